"""Seeded synthetic traces: length distributions, Poisson and gamma (bursty) arrivals, resampling."""
from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from sim.trace.trace import MAX_NAME, MAX_TICK, MAX_TOKENS, REQUIRED, Trace, validate

MAX_REQUESTS = 1_000_000


def _check_int(field: str, value: object, low: int, high: int = MAX_TOKENS) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{field} must be a whole number from {low} to {high}, got {value!r}")


def _check_positive(field: str, value: object) -> None:
    try:
        ok = not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value) and value > 0
    except OverflowError:  # an integer too large for a float
        ok = False
    if not ok:
        raise ValueError(f"{field} must be a finite number above 0, got {value!r}")


class Length(Protocol):
    def sample(self, rng: random.Random) -> int: ...


@dataclass(frozen=True, slots=True)
class Fixed:
    """Every request gets the same length."""
    value: int

    def __post_init__(self):
        _check_int("value", self.value, 1)

    def sample(self, rng: random.Random) -> int:
        return self.value


@dataclass(frozen=True, slots=True)
class Uniform:
    """A whole number from low to high, both included."""
    low: int
    high: int

    def __post_init__(self):
        _check_int("low", self.low, 1)
        _check_int("high", self.high, self.low)

    def sample(self, rng: random.Random) -> int:
        return rng.randint(self.low, self.high)


@dataclass(frozen=True, slots=True)
class LogNormal:
    """Long-tailed lengths, as real prompts and answers are: rounded and clipped to [low, high]."""
    median: float
    sigma: float
    low: int = 1
    high: int | None = None

    def __post_init__(self):
        _check_positive("median", self.median)
        if isinstance(self.sigma, bool) or not isinstance(self.sigma, int | float) \
                or not 0 <= self.sigma <= 100:
            raise ValueError(f"sigma must be a number from 0 to 100, got {self.sigma!r}")
        _check_int("low", self.low, 1)
        if self.high is not None:
            _check_int("high", self.high, self.low)

    def sample(self, rng: random.Random) -> int:
        high = MAX_TOKENS if self.high is None else self.high
        # Clip in log space first so a far tail cannot overflow math.exp.
        log_value = math.log(self.median) + self.sigma * rng.gauss(0.0, 1.0)
        value = round(math.exp(min(log_value, math.log(high) + 1)))
        return min(max(value, self.low), high)


def _check_rate(rate: float, burstiness: float) -> float:
    """The gamma scale of the inter-arrival gaps, after checking rate and burstiness."""
    _check_positive("rate", rate)
    _check_positive("burstiness", burstiness)
    scale = 1.0 / (rate * burstiness) if rate * burstiness > 0 else math.inf
    if not math.isfinite(scale):
        raise ValueError(f"rate {rate} times burstiness {burstiness} is too small to draw gaps from")
    return scale


def _ticks(gaps: Iterable[float]) -> list[int]:
    """Arrival ticks from gaps: the first request arrives at tick 0, as in vLLM's benchmark_serving,
    which sends a request and then sleeps; cumulative float times are floored to whole ticks."""
    ticks, now = [0], 0.0
    for gap in gaps:
        now += gap
        if now > MAX_TICK:
            raise ValueError(f"arrivals run past tick {MAX_TICK}: use a higher rate or fewer requests")
        ticks.append(math.floor(now))
    return ticks


def bursty(n: int, rate: float, burstiness: float, rng: random.Random) -> list[int]:
    """Gamma-process arrival ticks with `rate` requests per tick on average; burstiness 1 is Poisson,
    below 1 is burstier (clumps and lulls), above 1 is more regular."""
    _check_int("n", n, 1, MAX_REQUESTS)
    scale = _check_rate(rate, burstiness)
    return _ticks(rng.gammavariate(burstiness, scale) for _ in range(n - 1))


def poisson(n: int, rate: float, rng: random.Random) -> list[int]:
    """Poisson arrival ticks: exponential gaps with mean 1/rate ticks."""
    return bursty(n, rate, 1.0, rng)


def _names(n: int, prefix: str) -> list[str]:
    width = len(str(n))
    if not isinstance(prefix, str) or len(prefix) + width > MAX_NAME:
        raise ValueError(f"prefix must be a string of at most {MAX_NAME - width} characters")
    return [f"{prefix}{i:0{width}d}" for i in range(1, n + 1)]


def _streams(seed: int) -> tuple[random.Random, random.Random, random.Random]:
    # One stream per quantity, so changing the output lengths keeps the same arrivals and prompts.
    return tuple(random.Random(f"{seed}:{what}") for what in ("arrival", "prompt", "output"))


def _trace(names: list[str], arrivals: list[int], prompts: list[int], outputs: list[int]) -> Trace:
    rows = [dict(zip(REQUIRED, row)) for row in zip(names, arrivals, prompts, outputs)]
    return validate(rows, REQUIRED)


def generate(n: int, rate: float, prompt: Length, output: Length, burstiness: float = 1.0,
             seed: int = 0, prefix: str = "r") -> Trace:
    """n requests arriving at `rate` per tick (first at tick 0), lengths drawn from `prompt`/`output`."""
    _check_int("n", n, 1, MAX_REQUESTS)
    for field, length in (("prompt", prompt), ("output", output)):
        if length is None or not callable(getattr(length, "sample", None)):
            raise ValueError(f"{field} must be a length distribution such as Fixed(8), got {length!r}")
    names = _names(n, prefix)
    arrival_rng, prompt_rng, output_rng = _streams(seed)
    arrivals = bursty(n, rate, burstiness, arrival_rng)
    return _trace(names, arrivals, [prompt.sample(prompt_rng) for _ in range(n)],
                  [output.sample(output_rng) for _ in range(n)])


def resample(source: Trace, n: int, seed: int = 0, prefix: str = "r") -> Trace:
    """n requests whose prompt lengths, output lengths and inter-arrival gaps are each drawn, with
    replacement and independently, from the source's own values; the first arrives at tick 0.

    Only those three quantities carry over (no priorities, deadlines or tenants)."""
    _check_int("n", n, 1, MAX_REQUESTS)
    if len(source) < 2:
        raise ValueError("the source trace needs at least 2 requests to have inter-arrival gaps")
    names = _names(n, prefix)
    arrival_rng, prompt_rng, output_rng = _streams(seed)
    requests = source.requests
    gaps = [b.arrival - a.arrival for a, b in pairwise(requests)]
    arrivals = _ticks(arrival_rng.choices(gaps, k=n - 1))
    return _trace(names, arrivals, prompt_rng.choices([r.prompt for r in requests], k=n),
                  output_rng.choices([r.output for r in requests], k=n))


def shared_prefix(n: int, rate: float, system: int, question: Length, output: Length, turns: int = 1,
                  block: int = 16, seed: int = 0, prefix: str = "r") -> Trace:
    """A workload whose prompts share prefixes, named by `hash_ids` of `block` tokens (the Config's
    `prefix_block`): every conversation starts with the same system prompt of `system` tokens, and a
    conversation of `turns` turns sends each turn as one request whose prompt is the previous turn's prompt and
    answer followed by a new question (multi-turn chat). Conversations arrive at `rate` per tick; a turn comes
    when the previous one could have been answered (its output length later, in ticks)."""
    _check_int("n", n, 1, MAX_REQUESTS)
    _check_int("system", system, 0)
    _check_int("turns", turns, 1, 1000)
    _check_int("block", block, 1)
    names = _names(n, prefix)
    arrival_rng, prompt_rng, output_rng = _streams(seed)
    starts = bursty(max(1, math.ceil(n / turns)), rate, 1.0, arrival_rng)
    ids = iter(range(1, 10**12))
    shared = [next(ids) for _ in range(system // block)]  # the system prompt's full blocks, common to all
    rows = []
    for start in starts:
        tokens, chain, now = system, list(shared), start
        for _ in range(turns):
            if len(rows) == n:
                break
            tokens += question.sample(prompt_rng)
            chain += [next(ids) for _ in range(tokens // block - len(chain))]  # this turn's own new blocks
            made = output.sample(output_rng)
            rows.append({"name": names[len(rows)], "arrival": now, "prompt": tokens, "output": made,
                         "hash_ids": list(chain)})
            tokens, now = tokens + made, now + made
    return validate(sorted(rows, key=lambda row: row["arrival"]))
