"""Mixture-of-experts routing, simulated: each iteration's tokens go, seeded, to top_k of `experts` experts under a
Zipf popularity, and two cost terms follow the load: the busiest expert's and the all-to-all between devices.

Why it matters to a scheduler: two iterations with the same number of tokens can split them very differently
over the experts, so batch size alone cannot predict an MoE iteration's latency.

What is routed: an iteration's real tokens, prefill tokens plus decode token-work (k + 1 a speculative step).
Padding rows (static batching's padded positions and idle slots, CUDA-graph padding) are not: they carry no
token, so where a router would send them depends on meaningless activations, and the latency model already
charges them as dense work.

How, for speed: the counts are drawn, not one choice per token. The iteration's tokens x top_k choices are
shared out over the experts, most popular first, each expert's share a binomial draw of the choices left
(the multinomial of the popularity), kept within what one-expert-a-token allows: an expert takes at most one
choice of each token, and the experts after it must be able to take the rest.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache

from .errors import ConfigError, _number, _whole

MAX_EXPERTS = 1024  # beyond any model's layer today (DeepSeek-V3 routes over 256); keeps the heatmap readable
MAX_SKEW = 10.0  # a Zipf exponent of 10 already sends nearly every token to the same experts


@dataclass(frozen=True, slots=True)
class MoE:
    """Expert routing (off while `experts` is 0, a dense model).

    top_k: experts each token is sent to (distinct). skew: the Zipf exponent of expert popularity: the expert of
        popularity rank r (0 the most popular) is chosen in proportion to 1 / (r + 1) ** skew; 0 is uniform.
        Which expert has which rank is a fixed shuffle drawn from the seed.
    devices: expert parallelism: the experts are split into `devices` equal groups of neighbours (expert e on
        device e // (experts / devices)); it must divide `experts`.
    c_expert: ms per token choice on the busiest expert (every expert waits for it: t = c_expert x max load).
    c_a2a: ms per token choice that crosses devices in the all-to-all (dispatch and return counted once).
    seed: the routing draws; iteration i's come from (seed, i) alone.
    """
    experts: int = 0
    top_k: int = 2
    skew: float = 0.0
    devices: int = 1
    c_expert: float = 0.1
    c_a2a: float = 0.01
    seed: int = 0

    def __post_init__(self):
        _whole("moe_experts", self.experts, low=0)
        if self.experts > MAX_EXPERTS:
            raise ConfigError("moe_experts", "moe_too_many", most=MAX_EXPERTS, value=self.experts)
        _whole("moe_top_k", self.top_k)
        _number("moe_skew", self.skew, high=MAX_SKEW)
        _whole("moe_devices", self.devices)
        for name in ("c_expert", "c_a2a"):
            _number(f"moe_{name}", getattr(self, name))
        _whole("moe_seed", self.seed, low=0)
        if self.experts and self.top_k > self.experts:
            raise ConfigError("moe_top_k", "moe_top_k", experts=self.experts, value=self.top_k)
        if self.experts and self.experts % self.devices:
            raise ConfigError("moe_devices", "moe_devices", experts=self.experts, devices=self.devices)

    def route(self, tokens: int, iteration: int) -> tuple[int, ...]:
        """Tokens routed to each expert in iteration number `iteration` of the run, for `tokens` tokens; the same
        for the same (settings, tokens, iteration) whatever happened before. () when off."""
        if not self.experts:
            return ()
        loads = [0] * self.experts
        choices = tokens * self.top_k
        if not choices:
            return tuple(loads)
        uniform = random.Random((self.seed << 48) + iteration).random
        log_factorial = _log_factorials(choices)
        after = self.experts
        for expert, share in _popularity(self.experts, self.skew, self.seed):
            # An expert takes at most one choice of each token, and the ones after it at most one each too.
            after -= 1
            drawn = binomial(uniform(), choices, share, log_factorial)
            loads[expert] = n = min(tokens, choices, max(choices - tokens * after, drawn))
            choices -= n
        return tuple(loads)

    def crossing(self, loads: tuple[int, ...]) -> int:
        """Token choices that cross devices: the iteration's tokens live spread evenly over the devices, so of
        the L choices sent to one device's experts, L // devices come from that device and the rest cross."""
        if self.devices == 1:
            return 0
        group = len(loads) // self.devices
        per_device = [sum(loads[d * group:(d + 1) * group]) for d in range(self.devices)]
        return sum(n - n // self.devices for n in per_device)

    def duration(self, loads: tuple[int, ...]) -> float:
        """The ms the routing adds to an iteration: c_expert x the busiest expert's load + c_a2a x the choices
        that cross devices."""
        return self.c_expert * max(loads, default=0) + self.c_a2a * self.crossing(loads)


Share = tuple[float, float, float, float]  # a chance p, with log p, log(1 - p) and p / (1 - p) worked out once


@lru_cache(maxsize=64)
def _popularity(experts: int, skew: float, seed: int) -> tuple[tuple[int, Share], ...]:
    """The experts from most to least popular (a shuffle drawn from the seed), each with the chance a choice goes
    to it among those not yet shared out (its Zipf weight over the weights from its rank on; the last 1)."""
    order = list(range(experts))
    random.Random(f"moe-popularity:{seed}").shuffle(order)
    weights = [1 / (rank + 1) ** skew for rank in range(experts)]
    out, tail = [], 0.0
    for rank in reversed(range(experts)):
        tail += weights[rank]
        p = weights[rank] / tail if rank < experts - 1 else 1.0
        out.append((order[rank], (p, math.log(p), math.log1p(-p) if p < 1 else 0.0, p / (1 - p) if p < 1 else 0.0)))
    return tuple(reversed(out))


_log_factorial_table: tuple[float, ...] = (0.0,)  # log k! for k = 0, 1, ...: shared by every run


def _log_factorials(n: int) -> tuple[float, ...]:
    """log k! up to k = n at least. The shared table is never changed in place but replaced whole by a longer one
    when an iteration needs more: runs in threads side by side (the app's sessions) always read a complete one,
    and each entry is the same sum whenever it is made."""
    global _log_factorial_table
    table = _log_factorial_table
    if len(table) <= n:
        grown = list(table)
        for k in range(len(grown), 2 * n + 1):  # (room for larger iterations to come)
            grown.append(grown[-1] + math.log(k))
        _log_factorial_table = table = tuple(grown)
    return table


def binomial(u: float, n: int, share: Share, log_factorial: tuple[float, ...]) -> int:
    """The Binomial(n, p) outcome at which the probabilities, walked in a fixed order, add up to the uniform draw
    `u`: from 0 upwards when the mean is small, else from the mode outwards, alternately up and down (about as
    many steps as the spread, however large n x p)."""
    p, log_p, log_q, odds = share
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    mode = 0 if n * p < 4 else min(n, int((n + 1) * p))
    at_mode = math.exp(log_factorial[n] - log_factorial[mode] - log_factorial[n - mode]
                       + mode * log_p + (n - mode) * log_q)
    u -= at_mode
    up = down = mode
    p_up = p_down = at_mode
    while u > 0 and (up < n or down > 0):
        if up < n:
            p_up *= (n - up) / (up + 1) * odds
            up += 1
            u -= p_up
            if u <= 0:
                return up
        if down > 0:
            p_down *= down / (n - down + 1) / odds
            down -= 1
            u -= p_down
            if u <= 0:
                return down
    return mode  # (what rounding leaves over the whole range)
