"""Speculative decoding: drafts accepted or not, deterministic for the seed."""
import pytest

from sim.core.config import Config, Policy
from sim.core.engine import simulate
from sim.report.export import run_json
from sim.report.metrics import compute
from tests.scheduler_kit import emitted, per_tick, run, trace


def test_speculative_decoding_with_every_draft_accepted():
    # k = 2, p = 1: each step commits 3 tokens (never more than are left): t1: 3, t2: 3, t3: the last 1.
    # Each step costs 3 token-work.
    schedule = run([("A", 0, 2, 7)], Config(8), spec_tokens=2, spec_accept=1.0)
    assert emitted(schedule) == {"A": [2, 2, 2, 3, 3, 3, 4]}
    assert per_tick(schedule, "decode_tokens") == {0: 0, 1: 3, 2: 3, 3: 3}
    assert per_tick(schedule, "spec_accepted") == {0: 0, 1: 2, 2: 2, 3: 0}


def test_speculative_decoding_with_no_draft_accepted():
    # p = 0: one token a step, still 3 token-work.
    schedule = run([("A", 0, 2, 3)], Config(8), spec_tokens=2, spec_accept=0.0)
    assert emitted(schedule) == {"A": [2, 3, 4]}
    assert per_tick(schedule, "decode_tokens") == {0: 0, 1: 3, 2: 3, 3: 3}


SPEC_ROWS = [("A", 0, 3, 9), ("B", 1, 2, 6), ("C", 2, 4, 5)]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_speculative_decoding_invariants(seed):
    config, policy = Config(12), Policy(spec_tokens=3, spec_accept=0.6, seed=seed)
    schedule = simulate(trace(*SPEC_ROWS), config, policy)
    again = simulate(trace(*SPEC_ROWS), config, policy)
    assert run_json(schedule, compute(schedule)) == run_json(again, compute(again))
    for request, times in zip(schedule.requests, schedule.emitted()):
        assert len(times) == request.output
        per_step = [times.count(t) for t in sorted(set(times))]
        assert all(1 <= n <= 4 for n in per_step)
    for step in schedule.steps:
        assert step.decode_tokens == 4 * step.decode_sequences
    total = sum(len(t) for t in schedule.emitted())
    assert total == sum((s.decode_sequences + s.spec_accepted) * s.iterations for s in schedule.steps)
