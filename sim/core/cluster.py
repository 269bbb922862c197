"""Many engines behind a router: `--replicas N` identical engines, each the one scheduler with the run's budgets,
KV cache and options, and a router that places each request on one of them when it arrives.

Routing is a layer above the scheduler. Requests are placed in arrival order, each offered to every replica
(engine.Runner.offer, Scheduler.offer): it becomes the chosen one's, and the others pass it by. A router that
reads the replicas (least-requests, least-tokens, prefix-affinity) sees each as it stands when the request
arrives: before the request arriving at t is placed, every replica runs each iteration that starts before t
(Runner.advance), as a router reads an engine's stats after its latest step. A run of merged decode iterations
that goes past t is held, not cut (it changes no count a router reads), and is cut at t only if the request is
placed on its replica: merging never crosses an arrival that routing places there. Round-robin and random read no
replica, so every request is placed first and each replica then runs alone. Either way each replica's schedule is
the one a single engine makes of the requests placed on it alone: a test holds every router to that.

The routers (`ROUTERS`); `n` is the number of replicas:
- round-robin: the i-th request in arrival order goes to replica i mod n. O(1) a request.
- random: a replica drawn uniformly, seeded by `seed`. O(1).
- least-requests: the fewest requests waiting or running (placed there and not done); ties go to the lowest
  index. O(n).
- least-tokens: the fewest outstanding tokens, each such request's prompt left to prefill plus its output left to
  make; ties likewise. O(n + the requests outstanding), as it sums them.
- prefix-affinity: the replica whose prefix cache holds the longest prefix of the request's blocks (ties: fewer
  requests, then the lowest index). When no replica holds any, or when the load is out of balance, it falls back
  to least-requests. Out of balance follows SGLang's cache-aware router (balance_abs_threshold and
  balance_rel_threshold, the values of the SGLang Model Gateway's routing guide): the busiest replica has more than
  BALANCE_ABS requests more than the idlest, and more than BALANCE_REL times as many. That router matches against a
  radix tree on the router's side; this one reads each replica's own prefix cache, as routers fed by the engines'
  KV events do (Dynamo, llm-d), so a block that was evicted is not counted; its cache_threshold is not modelled
  (any hit counts). O(n x the request's blocks).
"""
from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from ..trace.trace import Trace
from .config import Config, ConfigError, Policy
from .engine import Runner, RunStopped, collector_paused
from .errors import choice, number, whole
from .kv import blocks_for
from .policies import make_scheduler
from .prefix import block_keys
from .request import DONE
from .schedule import Schedule
from .scheduler import Scheduler

ROUTERS = ("round-robin", "least-requests", "least-tokens", "prefix-affinity", "random")
BALANCE_ABS, BALANCE_REL = 64, 1.5  # prefix-affinity's load cap (SGLang's balance_abs / balance_rel thresholds)


@dataclass(frozen=True, slots=True)
class Routing:
    """How many identical engines serve the trace, and how each request is placed on one."""
    replicas: int = 1
    router: str = "round-robin"
    seed: int = 0  # the random router's draws

    def __post_init__(self):
        whole("replicas", self.replicas)
        choice("router", self.router, ROUTERS)
        whole("router_seed", self.seed, 0)


@dataclass(slots=True)
class ClusterRun:
    """Each replica's Schedule (its requests in arrival order, numbered from 0 on it) and where each request of
    the trace went."""
    schedules: list[Schedule]
    placed: list[int]  # by the trace's index: the replica the request was placed on
    local: list[int]  # by the trace's index: its index among its replica's requests
    routing: Routing


class Executors(Protocol):
    """What runs each replica's iterations when it is not the cost model: the real engine (gpu_demo.fleet), whose
    replicas share one model, each with its own KV pool, and time each iteration as it runs."""
    unit: str  # the clock's unit ("ms")

    def runner(self, scheduler: Scheduler, role: str, k: int, origin: Sequence[int]) -> Runner:
        """Replica k's loop, of `role`; `origin`: the trace index of each of its scheduler's requests."""

    def copy_time(self, j: int) -> float:
        """How long copying request j's prompt blocks out of its prefill replica took (a split's transfer)."""


def simulate_cluster(trace: Trace, config: Config, policy: Policy | str, routing: Routing, role: str = "mixed",
                     computed: list[int] | None = None, executors: Executors | None = None,
                     origin: Sequence[int] | None = None, cpu_limit: float | None = None) -> ClusterRun:
    """The trace served by `routing.replicas` engines of `policy` and `config` behind `routing.router`. `role`
    and `computed` (by the trace's index, the tokens of each prompt whose KV arrives with it): decode replicas'.
    `executors`: what runs the replicas (default: the cost model); `origin`: the index of each request in the
    trace the fleet serves (a split's decode side serves its requests in the order their blocks land).
    `cpu_limit`: the seconds of CPU time the fleet's run may take (RunStopped, with the fleet's figures)."""
    policy = Policy(batching=policy) if isinstance(policy, str) else policy
    unit = executors.unit if executors is not None else None
    with collector_paused():
        replicas = [make_scheduler(policy, trace, config, unit, replica=role) for _ in range(routing.replicas)]
        check_router(routing, replicas[0])
        origin = range(len(trace.requests)) if origin is None else origin
        runners = [Runner(scheduler, cpu_limit=cpu_limit) if executors is None
                   else executors.runner(scheduler, role, k, origin) for k, scheduler in enumerate(replicas)]
        router = Router(routing, runners)
        placed = []
        try:
            for j, request in enumerate(trace.requests):
                if router.reads_replicas:  # (round-robin and random read none: each replica runs later, alone)
                    for runner in runners:
                        runner.advance(request.arrival)
                chosen = router.place(j)
                placed.append(chosen)
                for k, runner in enumerate(runners):
                    runner.offer(j, k == chosen, request.arrival, computed[j] if computed else 0)
            for runner in runners:
                runner.advance()
        except RunStopped as stop:  # (a replica counts only its own requests: the fleet's figures instead)
            finished = len(placed) - sum(scheduler.remaining for scheduler in replicas)
            raise RunStopped(stop.seconds, stop.now, finished, len(trace.requests)) from None
    local, counts = [], [0] * routing.replicas
    for k in placed:
        local.append(counts[k])
        counts[k] += 1
    for k, scheduler in enumerate(replicas):
        _number_locally(scheduler.schedule, [local[j] if placed[j] == k else -1 for j in range(len(placed))])
    return ClusterRun([s.schedule for s in replicas], placed, local, routing)


def check_router(routing: Routing, scheduler: Scheduler) -> None:
    """Raise the ConfigError a fleet's run starts with when its router cannot work with its replicas (`scheduler`:
    one of them): prefix-affinity reads their prefix caches."""
    if routing.router == "prefix-affinity" and scheduler.memory.prefix is None:
        raise ConfigError("router", "affinity_needs_cache")


def _number_locally(schedule: Schedule, local: list[int]) -> None:
    """A replica's steps and events name its requests by the trace's index: by their index on it instead, the
    index of its Schedule's timelines (what every reader of a Schedule expects)."""
    for step in schedule.steps:
        if step.changes:
            step.changes = [local[c] if c >= 0 else ~local[~c] for c in step.changes]
    schedule.events = [(when, kind, local[i]) for when, kind, i in schedule.events]


class Router:
    """Places each request, in arrival order, on one of the replicas (`place(j)`), reading them as they stand."""

    def __init__(self, routing: Routing, runners: list[Runner]):
        self.runners, self.replicas = runners, [runner.scheduler for runner in runners]
        self.name, self.n = routing.router, len(runners)
        self.reads_replicas = self.name not in ("round-robin", "random")
        self.rng = random.Random(routing.seed)
        self.outstanding: list[dict[int, None]] = [{} for _ in runners]  # least-tokens: requests not seen done

    def place(self, j: int) -> int:
        name = self.name
        if name == "round-robin":
            chosen = j % self.n
        elif name == "random":
            chosen = self.rng.randrange(self.n)
        elif name == "least-requests":
            chosen = self.least_requests()
        elif name == "least-tokens":
            left = [self.tokens_left(k, self.replicas[0].requests[j].arrival) for k in range(self.n)]
            chosen = left.index(min(left))
            self.outstanding[chosen][j] = None
        else:
            chosen = self.prefix_affinity(j)
        return chosen

    def least_requests(self) -> int:
        """The replica with the fewest requests waiting or running (the lowest index of those tied)."""
        loads = [s.remaining for s in self.replicas]
        return loads.index(min(loads))

    def tokens_left(self, k: int, now: float) -> int:
        """The tokens replica k's requests not done still need at `now`: prompt left to prefill plus output left to
        make (less what a run of decodes held past `now` makes in its iterations that start before it)."""
        scheduler, outstanding = self.replicas[k], self.outstanding[k]
        phase, states = scheduler.phases.of, scheduler.states
        for i in [i for i in outstanding if phase[i] == DONE]:
            del outstanding[i]
        return sum(states[i].target - states[i].prefilled + states[i].output - scheduler.generated(i)
                   for i in outstanding) - self.runners[k].made_ahead(now)

    def prefix_affinity(self, j: int) -> int:
        """The replica whose prefix cache holds the longest prefix of request j's blocks; least-requests when
        none holds any or the load is out of balance (BALANCE_ABS, BALANCE_REL)."""
        replicas = self.replicas
        loads = [s.remaining for s in replicas]
        busiest, idlest = max(loads), min(loads)
        if busiest - idlest > BALANCE_ABS and busiest > BALANCE_REL * idlest:
            return loads.index(idlest)
        config, request = replicas[0].config, replicas[0].requests[j]
        keys = block_keys(request, j, request.prompt, config.block_size, config.prefix_block)
        held = [s.memory.prefix.cached(keys) for s in replicas]
        if not max(held):
            return loads.index(idlest)
        return min(range(self.n), key=lambda k: (-held[k], loads[k], k))


@dataclass(frozen=True, slots=True)
class Split:
    """Prefill/decode disaggregation: `prefill` engines prefill each request and sample its first token, then its
    prompt's KV blocks travel to one of `decode` engines, taking `latency` + `per_block` x blocks (in the run's
    time unit), and it decodes there."""
    prefill: int
    decode: int
    latency: float = 0
    per_block: float = 0

    def __post_init__(self):
        whole("prefill_replicas", self.prefill)
        whole("decode_replicas", self.decode)
        number("kv_transfer_latency", self.latency)
        number("kv_transfer_per_block", self.per_block)


def check_split(config: Config, split: Split, measured: bool = False) -> None:
    """Raise the ConfigError a split's run starts with: its first token must be the prefill's, and in ticks (not
    `measured` on the real engine) a transfer takes whole ticks."""
    if config.first_token != "prefill":
        raise ConfigError("first_token", "split_first_token")
    ticks = config.cost.kind == "ticks" and not measured
    if ticks and not (float(split.latency).is_integer() and float(split.per_block).is_integer()):
        raise ConfigError("kv_transfer_latency", "split_whole_ticks")


class Transfer(NamedTuple):
    start: float  # when its prefill made its first token, on the prefill replica
    end: float  # when its blocks land on the decode replica
    blocks: int


@dataclass(slots=True)
class SplitRun:
    """A disaggregated run: the prefill replicas' run (each request with one output token, its first), the
    decode replicas' run (the requests handed over, in the order their blocks landed: `handed`, trace indices)
    and each request's transfer (None: it never reached a decode replica)."""
    prefill: ClusterRun
    decode: ClusterRun
    handed: list[int]  # by decode-trace index: the request's index in the trace
    transfers: list[Transfer | None]  # by the trace's index
    split: Split


def simulate_split(trace: Trace, config: Config, policy: Policy | str, split: Split, router: str = "round-robin",
                   seed: int = 0, executors: Executors | None = None, cpu_limit: float | None = None) -> SplitRun:
    """The trace served by `split.prefill` prefill engines behind `router` and `split.decode` decode engines,
    each of `policy` and `config`. A request prefills on a prefill replica, which samples its first token (the
    first token is the prefill's: `config.first_token` must be "prefill") and frees its blocks. Its prompt's
    blocks then travel for `latency + per_block x blocks`; when they land, the decode replica with the fewest
    requests waiting or running takes it. There it arrives with its prompt's KV computed and the first token to
    feed: a request of prompt + 1 tokens of which the prompt is computed, and output - 1 tokens, so its first
    step there computes the first token's KV and makes the second (as vLLM schedules a request whose KV came from
    elsewhere: its computed tokens the prompt, one new token). It waits in that replica's queue while its cache
    has no room for it, and the wait is drawn there. `executors` (the real engine): what runs the replicas; a
    transfer then takes the time its copy took on top. `cpu_limit`: as simulate_cluster's, for both sides
    together (a stop on the prefill side counts the prefills done)."""
    check_split(config, split, measured=executors is not None)
    ticks = config.cost.kind == "ticks" and executors is None
    prefills = Trace(tuple(r._replace(output=1) for r in trace.requests))
    started = time.thread_time()
    first = simulate_cluster(prefills, config, policy, Routing(split.prefill, router, seed), "prefill",
                             executors=executors, cpu_limit=cpu_limit)
    transfers: list[Transfer | None] = []
    for j, request in enumerate(trace.requests):
        timeline = first.schedules[first.placed[j]].requests[first.local[j]]
        if request.output == 1 or timeline.finish_reason != "finished":
            transfers.append(None)
            continue
        blocks = blocks_for(request.prompt, config.block_size)
        end = timeline.completion + split.latency + split.per_block * blocks + (
            executors.copy_time(j) if executors is not None else 0)
        transfers.append(Transfer(timeline.completion, int(end) if ticks else end, blocks))
    handed = sorted((j for j, t in enumerate(transfers) if t is not None), key=lambda j: (transfers[j].end, j))
    decodes = Trace(tuple(trace.requests[j]._replace(arrival=transfers[j].end, prompt=trace.requests[j].prompt + 1,
                                                     output=trace.requests[j].output - 1) for j in handed))
    left = None if cpu_limit is None else max(0.0, cpu_limit - (time.thread_time() - started))
    try:
        second = simulate_cluster(decodes, config, policy, Routing(split.decode, "least-requests"), "decode",
                                  [trace.requests[j].prompt for j in handed], executors, handed, left)
    except RunStopped as stop:  # (those not handed over ended on the prefill side)
        raise RunStopped(cpu_limit, stop.now, len(trace.requests) - len(handed) + stop.finished,
                         len(trace.requests)) from None
    return SplitRun(first, second, handed, transfers, split)
