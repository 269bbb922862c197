"""Prefill/decode mixing: decode-first against prefill-first, which stalls a decoder."""
from sim.core.config import Config
from tests.scheduler_kit import emitted, per_tick, run, segs

MIX_ROWS = [("A", 0, 2, 3), ("B", 1, 2, 1)]


def test_decode_first_does_not_stall_a_decoder():
    # t0: A prefills. t1: A decodes (emitted 2) and B prefills in the budget left. t2: both decode (B done).
    # t3: A's last token.
    schedule = run(MIX_ROWS, Config(8))
    assert segs(schedule, "A") == [("prefill", 0, 1, 2), ("decode", 1, 4, 3)]
    assert segs(schedule, "B") == [("prefill", 1, 2, 2), ("decode", 2, 3, 1)]
    assert emitted(schedule) == {"A": [2, 3, 4], "B": [3]}


def test_prefill_first_stalls_a_decoder():
    # t1 has prefill work (B), so it is a prefill-only tick and A stalls; A decodes from t2 on, one tick late.
    schedule = run(MIX_ROWS, Config(8), mixing="prefill-first")
    assert segs(schedule, "A") == [("prefill", 0, 1, 2), ("stalled", 1, 2, 0), ("decode", 2, 5, 3)]
    assert segs(schedule, "B") == [("prefill", 1, 2, 2), ("decode", 2, 3, 1)]
    assert emitted(schedule) == {"A": [3, 4, 5], "B": [3]}
    assert (per_tick(schedule, "prefill_tokens")[1], per_tick(schedule, "decode_tokens")[1]) == (2, 0)
