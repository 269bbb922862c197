"""The simulator's executor: runs the scheduler's iterations with the seed's cost model (one tick each).

Time jumps over idle ticks to the next arrival, and a run of identical decode ticks is one event, so the
cost grows with arrivals and completions, not with ticks or tokens.
"""
from __future__ import annotations

from .config import Config
from .policies import NEVER, make_scheduler
from .schedule import Schedule
from .trace import Trace


def simulate(trace: Trace, config: Config, policy: str) -> Schedule:
    """The Schedule of `trace` under `policy`; deterministic for the same inputs."""
    scheduler = make_scheduler(policy, trace, config)
    plan, commit = scheduler.plan, scheduler.commit
    now = 0
    while scheduler.remaining:
        iteration = plan(now, NEVER)
        if iteration is None:
            arrival = scheduler.next_arrival()
            if arrival is None:
                raise RuntimeError(f"{policy}: requests left but nothing can run")  # a scheduler bug
            now = max(now + 1, arrival)
            continue
        commit(iteration, now, now + iteration.repeat)
        now += iteration.repeat
    return scheduler.schedule
