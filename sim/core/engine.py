"""The simulator's executor: runs the scheduler's iterations under a cost model (ticks, or a latency model in
ms: linear, or a measured profile of the batch's shape) and returns the Schedule.

Time jumps over idle stretches to the next event (Scheduler.wake), and a run of identical decode iterations is
one event (under a latency model, a run that differs only in the lengths it reads: Continuous.time_ahead), so the
cost grows with arrivals and completions, not with ticks or tokens.
"""
from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from contextlib import contextmanager
from functools import partial

from ..trace.trace import Trace
from .config import Config, Policy
from .iteration import Iteration
from .policies import make_scheduler
from .queue import NEVER
from .schedule import Schedule
from .scheduler import Scheduler
from .shape import BatchShape, packed_shape


def simulate(trace: Trace, config: Config, policy: Policy | str, cpu_limit: float | None = None,
             wall_limit: float | None = None) -> Schedule:
    """The Schedule of `trace` under `policy`; deterministic for the same inputs. `cpu_limit`, `wall_limit`: see
    Runner."""
    with collector_paused():
        return run(make_scheduler(policy, trace, config), cpu_limit=cpu_limit, wall_limit=wall_limit)


def run(scheduler: Scheduler, max_repeat: int = NEVER, arrivals_on_iterations: bool = False,
        cpu_limit: float | None = None, wall_limit: float | None = None) -> Schedule:
    """Drive a scheduler to the end of its trace under its config's cost model. A plan may merge up to
    `max_repeat` identical iterations into one event; with 1 it plans every iteration on its own (tests hold
    the merged run to that one). `arrivals_on_iterations`: arrivals are read on the count of iterations run, as
    the real engine reads a trace in ticks (gpu_demo.engine.run), while time follows the cost model."""
    with collector_paused():
        Runner(scheduler, max_repeat, arrivals_on_iterations, cpu_limit=cpu_limit, wall_limit=wall_limit).advance()
        return scheduler.schedule


class RunStopped(RuntimeError):
    """A run went past its `cpu_limit` or `wall_limit` (Runner) and was stopped: how far it had come. Most runs
    are a few thousand plans, since identical iterations merge; what cannot merge (speculation's draws, MoE
    routing, slow clients' credits, prefill chunks) is planned one iteration at a time, and a long enough trace
    of it would run for hours and fill the memory. `computed`: the CPU seconds it had taken, when it was stopped by the
    clock instead (`wall_limit`, a busy server: another try may finish); None when by its CPU time."""

    def __init__(self, seconds: float, now: float, finished: int, total: int, computed: float | None = None):
        spent = f"{seconds:g} s of CPU time" if computed is None else (
            f"{seconds:g} s on a busy server ({computed:.3g} s of CPU time)")
        super().__init__(f"stopped after {spent}, at time {now:g}, with {finished} of {total} requests finished")
        self.seconds, self.now, self.finished, self.total, self.computed = seconds, now, finished, total, computed

    def __reduce__(self):  # (a cache or a worker process pickles it: by its fields, not by its message)
        return RunStopped, (self.seconds, self.now, self.finished, self.total, self.computed)


@contextmanager
def collector_paused():
    """Python's cycle collector is off while a run records its timeline. A run makes hundreds of thousands of
    small tuples that live as long as the Schedule, and each collection would walk all of them again (a
    prefill-first run spent half its time there). The collector is on again afterwards, unless it was off
    before, and then collects whatever cycles the run left."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Runner:
    """The executor's loop over one scheduler: plan, time, commit, and when a plan runs nothing, wait for what
    Scheduler.wake says. `advance(until)` runs every iteration that starts before `until` and stops there, so a
    router (sim.core.cluster) can place the arrival at `until` with each replica as it stands; by default it runs
    to the end.

    A run of merged iterations that would go on past `until` is held (`pending`) rather than cut: its first
    iterations are what starts before `until`, and nobody finishes or comes in during it, so it changes no count a
    router reads but the tokens its decoders make (`made_ahead`). When the router places the arrival here, the
    run is cut to the iterations that start before it and committed (`offer`), so the next plan sees it; when it
    places it elsewhere, the run stays whole. Merging never changes a schedule, so either way the replica's is
    the one it would make alone."""

    # plans between two looks at the CPU time and the clock, when there is a limit (a plan takes 10-100 us)
    CHECK_EVERY = 256

    def __init__(self, scheduler: Scheduler, max_repeat: int = NEVER, arrivals_on_iterations: bool = False,
                 execute: Callable[[Iteration, float], float] | None = None, cpu_limit: float | None = None,
                 wall_limit: float | None = None):
        """`execute(iteration, start)`: what runs each iteration and returns how long it took, in ms, instead of
        the cost model (the real engine behind a router, gpu_demo.fleet: the model runs it, timed); each iteration
        is then planned on its own. `cpu_limit`: the seconds of this thread's CPU time the run may take (a web
        page's run, on a server a class shares), after which it stops with RunStopped; None: no limit. CPU time,
        not the clock, so that a run is not stopped because other sessions keep the server busy. `wall_limit`: the
        seconds on the clock it may take all the same (a page's wait, however busy the server), after which it
        stops with RunStopped saying so (`computed`)."""
        self.scheduler, self.on_iterations, self.execute = scheduler, arrivals_on_iterations, execute
        self.cpu_limit, self.wall_limit = cpu_limit, wall_limit
        self.cpu_start, self.wall_until = time.thread_time(), (
            time.monotonic() + wall_limit if wall_limit is not None else math.inf)
        self.cpu_until = self.cpu_start + cpu_limit if cpu_limit is not None else math.inf
        limited = cpu_limit is not None or wall_limit is not None
        self.plans, self.check_at = 0, self.CHECK_EVERY if limited else NEVER
        self.max_repeat = 1 if execute is not None else max_repeat
        cost = scheduler.config.cost
        self.ticks = cost.kind == "ticks" and execute is None
        if cost.reads_context and not arrivals_on_iterations and execute is None and hasattr(scheduler, "time_ahead"):
            scheduler.time_ahead(partial(lengths_ahead, scheduler))  # (runs reading more each round merge)
        self.now, self.count = 0, 0
        self.waiting = False  # the last plan ran nothing: what comes next is what Scheduler.wake says
        self.pending: tuple[Iteration, float, float] | None = None  # a run held past `until`: (it, start, end)
        # Iterations with no token-work only wait for swap-ins; more in a row than swaps could need is a bug that
        # must end in an error, never a hang.
        self.idle, self.idle_limit = 0, 1000 + scheduler.config.swap_cost * (len(scheduler.requests) + 1)

    def advance(self, until: float = math.inf) -> None:
        scheduler, ticks, on_iterations = self.scheduler, self.ticks, self.on_iterations
        plan, opens = scheduler.plan, scheduler.advance
        while scheduler.remaining:
            if self.pending is not None:
                it, start, end = self.pending
                if self.starts_before(until) < it.repeat:
                    return
                self.pending = None
                self.commit(it, start, end)
                continue
            if self.waiting:
                when, credit = scheduler.wake(one_clock=not on_iterations)
                if when is None:
                    if until < math.inf:
                        return  # (a replica with nothing to do until the router places a request here)
                    raise RuntimeError("requests are left but nothing can run")  # a scheduler bug, never a hang
                now, count = self.now, self.count
                if credit:  # a paused decoder's client will have read enough then (ticks: at the boundary after it)
                    now = max(now + 1, math.ceil(when)) if ticks else max(when, now + 1e-9)
                elif on_iterations:
                    count = max(count + 1, math.ceil(when))
                else:
                    now = when if when > now else now + (1 if ticks else 1e-9)
                if (count if on_iterations else now) >= until:
                    return  # (the arrival at `until` may come here first)
                self.now, self.count, self.waiting = now, count, False
                continue
            now = self.now
            if (self.count if on_iterations else now) >= until:
                return
            if on_iterations:
                opens(now, clock=self.count)
                iteration = plan(now, 1)
            else:
                opens(now)
                iteration = plan(now, self.max_repeat)
            self.plans += 1
            if self.plans >= self.check_at:
                self.check_limits()
            if iteration is None:
                self.waiting = True
                continue
            if iteration.ends:  # (their lengths differ, each as the iteration alone would take: added up the same)
                end = iteration.ends[-1]
            elif self.execute is not None:
                end = now + self.execute(iteration, now)
            else:
                end = now + (1 if ticks else length(scheduler, iteration)) * iteration.repeat
            if iteration.repeat > 1 and until < math.inf:
                self.pending = iteration, now, end  # (committed once its iterations all start before a placing)
                continue
            self.commit(iteration, now, end)

    def check_limits(self) -> None:
        """Stop the run (RunStopped) if it has used up its CPU time, or its time on the clock."""
        self.check_at = self.plans + self.CHECK_EVERY
        cpu = time.thread_time()
        if cpu > self.cpu_until or time.monotonic() > self.wall_until:
            scheduler = self.scheduler
            total = len(scheduler.requests)
            finished = total - scheduler.remaining
            if cpu > self.cpu_until:
                raise RunStopped(self.cpu_limit, self.now, finished, total)
            raise RunStopped(self.wall_limit, self.now, finished, total, computed=cpu - self.cpu_start)

    def starts_before(self, when: float) -> int:
        """How many of the pending run's iterations start before `when`."""
        it, start, end = self.pending
        if when >= end:
            return it.repeat
        if it.ends:  # (iteration k + 1 starts at ends[k])
            return 1 + sum(1 for t in it.ends[:-1] if t < when)
        return min(it.repeat, self.scheduler.steps_until(when, start, self.length(it)))

    def made_ahead(self, until: float) -> int:
        """Tokens the pending run's decoders make in its iterations that start before `until` (0: none held)."""
        if self.pending is None:
            return 0
        return self.starts_before(until) * len(self.pending[0].decoding)

    def offer(self, i: int, mine: bool, arrival: float, computed: int = 0) -> None:
        """The router placed request i (arriving at `arrival`, with `computed` tokens of its prompt's KV): here
        (`mine`), or on another replica. Placed here, a pending run is cut to its iterations that start before the
        arrival, and committed."""
        self.scheduler.offer(i, mine, computed)
        if not mine or self.pending is None:
            return
        it, start, end = self.pending
        repeat = self.starts_before(arrival)
        self.pending = None
        if repeat < it.repeat:
            if it.ends:
                it.ends = it.ends[:repeat] if repeat > 1 else ()
            it.repeat = repeat
            it.finishing = []  # (a run's last iteration, where its decoders finish, is not among them)
            end = it.ends[-1] if it.ends else start + self.length(it) * repeat  # (as the loop times it)
        self.commit(it, start, end)

    def length(self, it: Iteration) -> float:
        """One iteration's time: a tick, or the latency model's."""
        return 1 if self.ticks else length(self.scheduler, it)

    def commit(self, iteration: Iteration, now: float, end: float) -> None:
        self.scheduler.commit(iteration, now, end)
        self.now, self.count = end, self.count + iteration.repeat
        self.idle = self.idle + 1 if not iteration.prefill_tokens and not iteration.decode_work else 0
        if self.idle > self.idle_limit:
            raise RuntimeError(f"the scheduler made no progress for {self.idle} iterations at time {end}")


def length(scheduler: Scheduler, it: Iteration, ahead: int = 0) -> float:
    """One iteration's time under a latency model (ms). Padding is a padded prompt position in a prefill and an
    idle slot in a decode: it costs as such. With MoE routing on, its two terms (the busiest expert, the
    all-to-all) come on top (sim.core.moe.MoE.duration). `ahead`: the time of the same pure-decode iteration that
    many decode rounds later, when each decoder's context is that many tokens longer (a merged run's iterations)."""
    cost = scheduler.config.cost
    if cost.kind == "profile":
        dense = cost.shape_duration(*batch_shape(scheduler, it, ahead))
    elif cost.kind == "roofline":
        dense = roofline_time(scheduler, it, ahead)
    else:
        padding = (it.padding, 0) if it.prefill else (0, it.padding)
        dense = cost.duration(it.prefill_tokens + padding[0], it.decode_work + it.graph_padding + padding[1],
                              it.context_read + ahead * len(it.decoding))
    return dense + scheduler.config.moe.duration(it.expert_tokens) if it.expert_tokens else dense


def lengths_ahead(scheduler: Scheduler, it: Iteration) -> Callable[[int], float]:
    """`length(scheduler, it, ahead)` as a function of `ahead`, for a merged run of pure-decode iterations
    (Continuous.steady_reading): what does not change from one round to the next (the batch's shape but its
    longest span, the tokens but the context read) is worked out once, and each round's time from the same numbers
    in the same order, so it is the same float."""
    cost = scheduler.config.cost
    if it.prefill or not it.decoding or it.expert_tokens or cost.kind not in ("profile", "linear"):
        return partial(length, scheduler, it)
    if cost.kind == "profile":  # (with no prefill and some decoders, the longest span is the longest context's)
        rows, groups, query, longest = batch_shape(scheduler, it)
        shape_duration = cost.shape_duration
        return lambda ahead: shape_duration(rows, groups, query, longest + ahead)
    duration, decode, decoders = cost.duration, it.decode_work + it.graph_padding + it.padding, len(it.decoding)
    prefill, context = it.prefill_tokens, it.context_read
    return lambda ahead: duration(prefill, decode, context + ahead * decoders)


def roofline_time(scheduler: Scheduler, it: Iteration, ahead: int = 0) -> float:
    """One iteration on a real GPU (sim.core.hardware.Roofline): every token row (prefill, decode, padding) through
    the layers, each sequence's last row through the output projection, and attention: a prefill chunk of n tokens
    from position p reads the p cached tokens' KV and each of its tokens attends to the positions up to its own;
    a decoder's tokens (each of a speculative step's k + 1) attend to its context, which it reads."""
    keys = kv = 0
    for _, first, n in it.prefill:
        keys += n * first + n * (n + 1) // 2
        kv += first + n
    decoders = len(it.decoding)
    decode = (0, 0)
    if decoders:
        context = scheduler.decoders_context(it.decoding) + ahead * decoders
        decode = (context * it.decode_work / decoders, context + it.decode_work)
    tokens = it.prefill_tokens + it.decode_work + it.padding + it.graph_padding
    return scheduler.config.cost.roofline.time(tokens, decoders + len(it.prefill), (keys, kv), decode)


def batch_shape(scheduler: Scheduler, it: Iteration, ahead: int = 0) -> BatchShape:
    """The shape of the batch the real engine packs for `it` (sim.core.shape, as gpu_demo.batch.pack counts it):
    its prefill chunks, then its decoders (each reading its context) and padding rows in sum."""
    firsts, counts = [], []
    if it.prefill:
        # (a static batch member whose prompt was prefilled in an earlier tick feeds its last prompt token again
        # when the batch prefill ends and samples its first token)
        emits = set(it.prefill_emits)
        for i, first, n in it.prefill:
            if n or i in emits:
                firsts.append(first if n else scheduler.states[i].target - 1)
                counts.append(n or 1)
    padding = it.padding + it.graph_padding
    return packed_shape(firsts, counts, len(it.decoding) + padding, it.decode_work + padding,
                        scheduler.longest_context(it.decoding) + ahead)
