"""Cancellation and timeouts of waiting, running and swapping-in requests."""
from sim.core.config import Config
from sim.report.metrics import compute
from tests.scheduler_kit import emitted, metrics_of, run, segs, timeline


def test_cancel_of_a_waiting_request():
    # budget 2: A prefills at t0 and decodes t1..t3 (1 left a tick); W (2) waits and is stopped at 2.
    rows = [("A", 0, 2, 3), {"name": "W", "arrival": 0, "prompt": 2, "output": 2, "cancel_at": 2}]
    schedule = run(rows, Config(2))
    w = timeline(schedule, "W")
    assert segs(schedule, "W") == [("queued", 0, 2, 0)]
    assert (w.finish_reason, w.cancel_time) == ("cancelled", 2)
    assert schedule.events == [(2, "cancel", 1)]
    assert emitted(schedule) == {"A": [2, 3, 4], "W": []}
    m = metrics_of(schedule, "W")
    assert (m.delivered, m.wasted) == (0, 0)


def test_cancel_of_a_running_request():
    # R decodes at t1 (emitted 2). Stopped at 2: it stays for t2 (its token emitted at 3, after the stop:
    # wasted) and leaves at 3.
    rows = [{"name": "R", "arrival": 0, "prompt": 2, "output": 4, "cancel_at": 2}]
    schedule = run(rows, Config(8))
    r = timeline(schedule, "R")
    assert segs(schedule, "R") == [("prefill", 0, 1, 2), ("decode", 1, 3, 2)]
    assert (r.finish_reason, r.cancel_time, r.completion) == ("cancelled", 2, None)
    assert emitted(schedule) == {"R": [2, 3]}
    m = metrics_of(schedule, "R")
    assert (m.delivered, m.wasted) == (1, 1)
    assert compute(schedule).makespan == 3


def test_cancel_during_the_tick_that_makes_the_last_token():
    # R's last token comes from t2 and is emitted at 3; stopped at 2, the user never receives it: the request
    # was still running when stopped, so it is cancelled (1 delivered, 1 wasted), not finished.
    rows = [{"name": "R", "arrival": 0, "prompt": 2, "output": 2, "cancel_at": 2}]
    schedule = run(rows, Config(8))
    m = metrics_of(schedule, "R")
    assert (m.finish_reason, m.delivered, m.wasted) == ("cancelled", 1, 1)


def test_timeout_stops_a_running_and_a_waiting_request():
    # timeout 3. T (arrives 0) decodes t1..t3 and is stopped at 3: it leaves at 4, its token emitted at 4 is
    # wasted. U (prompt 8) never fits next to T's decode and is stopped at 1 + 3 = 4, still waiting.
    schedule = run([("T", 0, 2, 5), ("U", 1, 8, 1)], Config(8), timeout=3)
    assert segs(schedule, "T") == [("prefill", 0, 1, 2), ("decode", 1, 4, 3)]
    assert segs(schedule, "U") == [("queued", 1, 4, 0)]
    t, u = timeline(schedule, "T"), timeline(schedule, "U")
    assert (t.finish_reason, t.cancel_time, u.finish_reason, u.cancel_time) == ("cancelled", 3, "cancelled", 4)
    m = metrics_of(schedule, "T")
    assert (m.delivered, m.wasted) == (2, 1)
    assert compute(schedule).makespan == 4


def test_cancel_of_a_request_swapping_in():
    # budget 4, chunk 3, 3 blocks of 4, overcommit + swap, swap_cost 2. t0: r0 prefills 2 (1 block). t1: r0 decodes.
    # t2: r1 arrives, takes 2 blocks (prompt 5) and its first chunk of 3; t3: its last 2. t4: r0 feeds its 3rd token,
    # the 5th of its KV: a 2nd block, none free: r1 (latest) swaps out with 0 tokens made; r0 takes a block and makes
    # its last token
    # (emitted 5); r1 cannot come back (1 block free). t5: r1 swaps in (t5, t6). Stopped at 6 while swapping in (it
    # holds its slot): it stays for t6 and leaves at 7, never having emitted a token.
    rows = [{"name": "r0", "arrival": 0, "prompt": 2, "output": 4},
            {"name": "r1", "arrival": 2, "prompt": 5, "output": 1, "cancel_at": 6}]
    schedule = run(rows, Config(4, kv_blocks=3, block_size=4, swap_cost=2),
                   chunk_size=3, kv_admission="overcommit", preempt="swap")
    assert segs(schedule, "r0") == [("prefill", 0, 1, 2), ("decode", 1, 5, 4)]
    assert emitted(schedule) == {"r0": [2, 3, 4, 5], "r1": []}
    assert schedule.events == [(4, "swap_out", 1), (5, "swap_in", 1), (6, "cancel", 1)]
    r1 = timeline(schedule, "r1")
    assert (r1.finish_reason, r1.cancel_time) == ("cancelled", 6)
    assert r1.kv == [(2, 2), (4, 0), (5, 2), (7, 0)]
    assert segs(schedule, "r1") == [("prefill", 2, 4, 5), ("swapped", 4, 5, 0), ("swapping", 5, 7, 0)]
    assert compute(schedule).makespan == 7
