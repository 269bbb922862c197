"""The simulator's executor: runs the scheduler's iterations under a cost model (ticks, or a linear latency
model in ms) and returns the Schedule.

Time jumps over idle stretches to the next event, and a run of identical decode iterations is one event,
so the cost grows with arrivals and completions, not with ticks or tokens.
"""
from __future__ import annotations

from ..trace.trace import Trace
from .config import Config, Policy
from .policies import make_scheduler
from .queue import NEVER
from .schedule import Schedule
from .scheduler import Scheduler


def simulate(trace: Trace, config: Config, policy: Policy | str) -> Schedule:
    """The Schedule of `trace` under `policy`; deterministic for the same inputs."""
    return run(make_scheduler(policy, trace, config))


def run(scheduler: Scheduler, max_repeat: int = NEVER) -> Schedule:
    """Drive a scheduler to the end of its trace under its config's cost model. A plan may merge up to
    `max_repeat` identical iterations into one event; with 1 it plans every iteration on its own (tests hold
    the merged run to that one)."""
    plan, commit, cost = scheduler.plan, scheduler.commit, scheduler.config.cost
    ticks = cost.kind == "ticks"
    now = 0
    # Iterations with no token-work only wait for swap-ins; more in a row than swaps could need is a bug that
    # must end in an error, never a hang.
    idle, idle_limit = 0, 1000 + scheduler.config.swap_cost * (len(scheduler.requests) + 1)
    while scheduler.remaining:
        iteration = plan(now, max_repeat)
        if iteration is None:
            upcoming = scheduler.next_event()
            if upcoming is None:
                if not scheduler.remaining:
                    break  # the last requests were cancelled or rejected in that plan
                raise RuntimeError("requests are left but nothing can run")  # a scheduler bug, never a hang
            now = upcoming if upcoming > now else now + (1 if ticks else 1e-9)
            continue
        if ticks:
            end = now + iteration.repeat
        else:  # padding is a padded prompt position in a prefill and an idle slot in a decode: it costs as such
            padding = (iteration.padding, 0) if iteration.prefill else (0, iteration.padding)
            length = cost.duration(iteration.prefill_tokens + padding[0],
                                   iteration.decode_work + iteration.graph_padding + padding[1], iteration.context_read)
            end = now + length * iteration.repeat
        commit(iteration, now, end)
        now = end
        idle = idle + 1 if not iteration.prefill_tokens and not iteration.decode_work else 0
        if idle > idle_limit:
            raise RuntimeError(f"the scheduler made no progress for {idle} iterations at time {now}")
    return scheduler.schedule
