"""Speculative decoding: drafts accepted or not, deterministic for the seed."""
from random import Random

import pytest

from sim.core.config import Config, Policy
from sim.core.engine import simulate
from sim.core.policies import make_scheduler
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


def draws_ahead(scheduler, k: int) -> dict[int, list[float]]:
    """Each request's next k draws, as a plan reads them."""
    return {i: s.draws.drawn[s.draws.at:][:k] for i, s in enumerate(scheduler.states)}


def test_a_plan_reads_its_draws_and_the_commit_uses_them():
    """A plan only reads each decoder's draws ahead (planning it again reads the same); a step accepts the drafts
    while their draws are under p, and its commit uses one draw a draft accepted and one for the draft rejected,
    none past the request's last token."""
    k, p = 3, 0.6
    scheduler = make_scheduler(Policy(spec_tokens=k, spec_accept=p, seed=4), trace(*SPEC_ROWS), Config(16))
    stream = {i: Random(4 * 1_000_003 + i) for i in range(3)}  # each request's own seeded stream
    expected = {i: [rng.random() for _ in range(k)] for i, rng in stream.items()}
    now, steps = 0, 0
    while scheduler.remaining:
        scheduler.advance(now)
        ahead = draws_ahead(scheduler, k)
        assert ahead == expected
        made = {i: scheduler.rounds.made(s) for i, s in enumerate(scheduler.states)}
        it = scheduler.plan(now)
        assert draws_ahead(scheduler, k) == ahead  # (the plan drew none)
        for i, n in dict(it.accepted).items():
            most = min(k, SPEC_ROWS[i][3] - made[i] - 1)
            assert n == next((m for m in range(most) if ahead[i][m] >= p), most)
            used = n if n == most else n + 1
            assert it.drawn[i] == used
            expected[i] = expected[i][used:] + [stream[i].random() for _ in range(used)]
            steps += 1
        scheduler.commit(it, now, now + 1)
        now += 1
    assert steps > 10
