"""The simulator's executor: runs the scheduler's iterations under a cost model (ticks, or a latency model in
ms: linear, or a measured profile of the batch's shape) and returns the Schedule.

Time jumps over idle stretches to the next event (Scheduler.wake), and a run of identical decode iterations is
one event (under a latency model, a run that differs only in the lengths it reads: Continuous.time_ahead), so the
cost grows with arrivals and completions, not with ticks or tokens.
"""
from __future__ import annotations

import gc
import math
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


def simulate(trace: Trace, config: Config, policy: Policy | str) -> Schedule:
    """The Schedule of `trace` under `policy`; deterministic for the same inputs."""
    with collector_paused():
        return run(make_scheduler(policy, trace, config))


def run(scheduler: Scheduler, max_repeat: int = NEVER, arrivals_on_iterations: bool = False) -> Schedule:
    """Drive a scheduler to the end of its trace under its config's cost model. A plan may merge up to
    `max_repeat` identical iterations into one event; with 1 it plans every iteration on its own (tests hold
    the merged run to that one). `arrivals_on_iterations`: arrivals are read on the count of iterations run, as
    the real engine reads a trace in ticks (gpu_demo.engine.run), while time follows the cost model."""
    with collector_paused():
        return _run(scheduler, max_repeat, arrivals_on_iterations)


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


def _run(scheduler: Scheduler, max_repeat: int, arrivals_on_iterations: bool) -> Schedule:
    plan, commit, cost = scheduler.plan, scheduler.commit, scheduler.config.cost
    ticks = cost.kind == "ticks"
    if cost.reads_context and not arrivals_on_iterations and hasattr(scheduler, "time_ahead"):
        scheduler.time_ahead(partial(length, scheduler))  # (runs of iterations reading more each round merge)
    now, count = 0, 0
    # Iterations with no token-work only wait for swap-ins; more in a row than swaps could need is a bug that
    # must end in an error, never a hang.
    idle, idle_limit = 0, 1000 + scheduler.config.swap_cost * (len(scheduler.requests) + 1)
    while scheduler.remaining:
        iteration = plan(now, 1, clock=count) if arrivals_on_iterations else plan(now, max_repeat)
        if iteration is None:
            when, credit = scheduler.wake(one_clock=not arrivals_on_iterations)
            if credit:  # a paused decoder's client will have read enough then (ticks: at the boundary after it)
                now = max(now + 1, math.ceil(when)) if ticks else max(when, now + 1e-9)
                continue
            if when is None:
                if not scheduler.remaining:
                    break  # the last requests were cancelled or rejected in that plan
                raise RuntimeError("requests are left but nothing can run")  # a scheduler bug, never a hang
            if arrivals_on_iterations:
                count = max(count + 1, math.ceil(when))
            else:
                now = when if when > now else now + (1 if ticks else 1e-9)
            continue
        if iteration.ends:  # (their lengths differ, each as the iteration alone would take: added up the same)
            end = iteration.ends[-1]
        else:
            end = now + (1 if ticks else length(scheduler, iteration)) * iteration.repeat
        commit(iteration, now, end)
        now, count = end, count + iteration.repeat
        idle = idle + 1 if not iteration.prefill_tokens and not iteration.decode_work else 0
        if idle > idle_limit:
            raise RuntimeError(f"the scheduler made no progress for {idle} iterations at time {now}")
    return scheduler.schedule


def length(scheduler: Scheduler, it: Iteration, ahead: int = 0) -> float:
    """One iteration's time under a latency model (ms). Padding is a padded prompt position in a prefill and an
    idle slot in a decode: it costs as such. With MoE routing on, its two terms (the busiest expert, the
    all-to-all) come on top (sim.core.moe.MoE.duration). `ahead`: the time of the same pure-decode iteration that
    many decode rounds later, when each decoder's context is that many tokens longer (a merged run's iterations)."""
    cost = scheduler.config.cost
    if cost.kind == "profile":
        dense = cost.shape_duration(*batch_shape(scheduler, it, ahead))
    else:
        padding = (it.padding, 0) if it.prefill else (0, it.padding)
        dense = cost.duration(it.prefill_tokens + padding[0], it.decode_work + it.graph_padding + padding[1],
                              it.context_read + ahead * len(it.decoding))
    return dense + scheduler.config.moe.duration(it.expert_tokens) if it.expert_tokens else dense


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
