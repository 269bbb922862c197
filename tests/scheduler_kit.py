"""Helpers of the scheduler option tests (test_chunked_prefill.py, test_queue_orders.py, ...): run a trace, read it.

Reading the timelines: tick t covers [t, t+1); a token made in tick t is emitted at t+1. Segments are
(phase, start, end, tokens)."""
import signal
from contextlib import contextmanager

from sim.core.config import Config, Policy
from sim.core.engine import run as run_scheduler
from sim.core.policies import make_scheduler
from sim.report.metrics import compute
from sim.trace.trace import validate


class NoEnd(RuntimeError):
    """A run still going after far more iterations than its trace could need: a livelock."""


def simulate_bounded(trace_, config, policy, max_iterations=5000):
    """simulate(), but a run that does not end is a failure, not a stuck test run."""
    scheduler = make_scheduler(policy, trace_, config)
    plan, planned = scheduler.plan, 0

    def counted(now, max_repeat=1):
        nonlocal planned
        planned += 1
        if planned > max_iterations:
            raise NoEnd(f"the run did not end within {max_iterations} iterations (now {now})")
        return plan(now, max_repeat)

    scheduler.plan = counted
    with time_limit(20):  # a safety net for a loop inside one iteration
        return run_scheduler(scheduler)


@contextmanager
def time_limit(seconds):
    def expire(signum, frame):
        raise NoEnd(f"the simulation did not end within {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def trace(*rows):
    """A trace from (name, arrival, prompt, output) tuples or dicts with optional columns."""
    keys = ("name", "arrival", "prompt", "output")
    return validate([row if isinstance(row, dict) else dict(zip(keys, row)) for row in rows])


def run(rows, config=None, **policy):
    return simulate_bounded(trace(*rows), config or Config(), Policy(**policy))


def segs(schedule, name):
    timeline = next(r for r in schedule.requests if r.name == name)
    return [(s.phase, s.start, s.end, s.tokens) for s in timeline.segments]


def timeline(schedule, name):
    return next(r for r in schedule.requests if r.name == name)


def emitted(schedule):
    return {r.name: times for r, times in zip(schedule.requests, schedule.emitted())}


def per_tick(schedule, attr):
    """{tick: value of a Step field} for every tick that ran."""
    return {t: getattr(s, attr) for s in schedule.steps for t in range(int(s.start), int(s.end))}


def metrics_of(schedule, name):
    return next(r for r in compute(schedule).requests if r.name == name)


# Traces that more than one test file runs

PRIORITY_PREEMPT_ROWS = [{"name": "A", "arrival": 0, "prompt": 2, "output": 4, "priority": 5},
                         {"name": "B", "arrival": 3, "prompt": 2, "output": 2, "priority": 0}]

OVERCOMMIT_ROWS = [("A", 0, 2, 4), ("B", 0, 2, 4)]
OVERCOMMIT = Config(8, kv_blocks=4, block_size=2)
