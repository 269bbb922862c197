"""Chunked prefill: a prompt larger than the token budget, prefilled a chunk an iteration."""
import pytest

from sim.core.config import Config
from sim.trace.trace import TraceError
from tests.scheduler_kit import emitted, per_tick, run, segs


def test_chunked_prefill_of_a_prompt_larger_than_the_budget():
    # budget 4, chunk 4. A (prompt 10) takes 4 at t0, 4 at t1 (B arrives at 1 but the budget is spent), and its
    # last 2 at t2, leaving 2: B (chunked admission costs 1) comes in and prefills its whole 2-token prompt.
    # t3: A and B decode (B's only token, emitted 4); t4: A's second token (emitted 5).
    schedule = run([("A", 0, 10, 2), ("B", 1, 2, 1)], Config(token_budget=4), chunk_size=4)
    assert segs(schedule, "A") == [("prefill", 0, 3, 10), ("decode", 3, 5, 2)]
    assert segs(schedule, "B") == [("queued", 1, 2, 0), ("prefill", 2, 3, 2), ("decode", 3, 4, 1)]
    assert emitted(schedule) == {"A": [4, 5], "B": [4]}
    assert per_tick(schedule, "prefill_tokens") == {0: 4, 1: 4, 2: 4, 3: 0, 4: 0}
    assert per_tick(schedule, "decode_tokens") == {0: 0, 1: 0, 2: 0, 3: 2, 4: 1}


def test_a_prompt_over_the_budget_without_chunking_is_a_validation_error():
    with pytest.raises(TraceError):
        run([("A", 0, 10, 2)], Config(token_budget=4))
