"""The queue orders: fcfs-skip, fcfs, priority (preemptive or not), sjf, edf, aging; and the max_seqs slot count."""
import pytest

from sim.core.config import Config
from tests.scheduler_kit import PRIORITY_PREEMPT_ROWS, emitted, run, segs, timeline

HOL_ROWS = [("A", 0, 3, 3), ("B", 0, 4, 1), ("C", 0, 1, 1)]


def test_fcfs_skip_lets_a_small_request_pass_one_that_does_not_fit():
    # budget 4. t0: A prefills 3; B (4) does not fit in the 1 left and is skipped; C (1) fits.
    # t1: A and C decode (C done), 2 left: B still does not fit; t2, t3: A decodes (3 left); A done after t3.
    # t4: B prefills, t5: B decodes.
    schedule = run(HOL_ROWS, Config(4))
    assert segs(schedule, "A") == [("prefill", 0, 1, 3), ("decode", 1, 4, 3)]
    assert segs(schedule, "B") == [("queued", 0, 4, 0), ("prefill", 4, 5, 4), ("decode", 5, 6, 1)]
    assert segs(schedule, "C") == [("prefill", 0, 1, 1), ("decode", 1, 2, 1)]
    assert emitted(schedule) == {"A": [2, 3, 4], "B": [6], "C": [2]}


def test_fcfs_blocks_at_the_head_of_the_line():
    # Same trace, fcfs: B at the head does not fit until A is gone (t4), and C waits behind it; at t5 B decodes
    # (1 token) and C prefills in the 3 left; C decodes at t6.
    schedule = run(HOL_ROWS, Config(4), order="fcfs")
    assert segs(schedule, "A") == [("prefill", 0, 1, 3), ("decode", 1, 4, 3)]
    assert segs(schedule, "B") == [("queued", 0, 4, 0), ("prefill", 4, 5, 4), ("decode", 5, 6, 1)]
    assert segs(schedule, "C") == [("queued", 0, 5, 0), ("prefill", 5, 6, 1), ("decode", 6, 7, 1)]
    assert emitted(schedule) == {"A": [2, 3, 4], "B": [6], "C": [7]}


def test_priority_order():
    # budget 4, three 4-token prompts at t0: one prefill a tick pair. Lower value first: Y (0), Z (1), X (2).
    rows = [{"name": "X", "arrival": 0, "prompt": 4, "output": 1, "priority": 2},
            {"name": "Y", "arrival": 0, "prompt": 4, "output": 1, "priority": 0},
            {"name": "Z", "arrival": 0, "prompt": 4, "output": 1, "priority": 1}]
    schedule = run(rows, Config(4), order="priority")
    assert segs(schedule, "Y") == [("prefill", 0, 1, 4), ("decode", 1, 2, 1)]
    assert segs(schedule, "Z") == [("queued", 0, 2, 0), ("prefill", 2, 3, 4), ("decode", 3, 4, 1)]
    assert segs(schedule, "X") == [("queued", 0, 4, 0), ("prefill", 4, 5, 4), ("decode", 5, 6, 1)]
    assert emitted(schedule) == {"X": [6], "Y": [2], "Z": [4]}


def test_preemptive_priority():
    # max_seqs 1. A decodes at t1, t2 (2 tokens made). B (priority 0) arrives at 3 and finds no slot: A (5) is
    # preempted by recompute before t3's decode. B prefills at t3, decodes t4, t5 (leaves after t5). A comes
    # back at t6 and prefills prompt + its 2 tokens = 4, then decodes its last 2 tokens at t7, t8.
    schedule = run(PRIORITY_PREEMPT_ROWS, Config(8, max_seqs=1), order="priority", preemptive_priority=True)
    assert segs(schedule, "A") == [("prefill", 0, 1, 2), ("decode", 1, 3, 2), ("preempted", 3, 6, 0),
                                   ("prefill", 6, 7, 4), ("decode", 7, 9, 2)]
    assert segs(schedule, "B") == [("prefill", 3, 4, 2), ("decode", 4, 6, 2)]
    assert emitted(schedule) == {"A": [2, 3, 8, 9], "B": [5, 6]}
    a = timeline(schedule, "A")
    assert (a.preemptions, a.recomputed) == (1, 4)
    assert schedule.events == [(3, "preempt", 0)]


def test_priority_without_preemption_waits_for_the_slot():
    # Without preemption B waits for A's slot: A decodes t1..t4, B prefills t5 and decodes t6, t7.
    schedule = run(PRIORITY_PREEMPT_ROWS, Config(8, max_seqs=1), order="priority")
    assert segs(schedule, "B") == [("queued", 3, 5, 0), ("prefill", 5, 6, 2), ("decode", 6, 8, 2)]
    assert emitted(schedule) == {"A": [2, 3, 4, 5], "B": [7, 8]}
    assert schedule.events == []


def test_sjf_by_prompt():
    # budget 4. Shortest prompt first: S (2) at t0, the 2 left fit neither M (3) nor L (4). t1: S decodes, M
    # prefills in the 3 left. t2: M decodes, 3 left: L waits. t3: L prefills, t4 decodes.
    schedule = run([("L", 0, 4, 1), ("S", 0, 2, 1), ("M", 0, 3, 1)], Config(4), order="sjf")
    assert segs(schedule, "S") == [("prefill", 0, 1, 2), ("decode", 1, 2, 1)]
    assert segs(schedule, "M") == [("queued", 0, 1, 0), ("prefill", 1, 2, 3), ("decode", 2, 3, 1)]
    assert segs(schedule, "L") == [("queued", 0, 3, 0), ("prefill", 3, 4, 4), ("decode", 4, 5, 1)]


def test_sjf_by_output():
    # budget 2, equal prompts: the shorter output (Q) first; P prefills at t2 once Q has left.
    schedule = run([("P", 0, 2, 3), ("Q", 0, 2, 1)], Config(2), order="sjf", sjf_key="output")
    assert segs(schedule, "Q") == [("prefill", 0, 1, 2), ("decode", 1, 2, 1)]
    assert segs(schedule, "P") == [("queued", 0, 2, 0), ("prefill", 2, 3, 2), ("decode", 3, 6, 3)]
    assert emitted(schedule) == {"P": [4, 5, 6], "Q": [2]}


def test_edf():
    # budget 2, one request at a time (prefill tick, decode tick). Earliest deadline first, none last.
    rows = [{"name": "D1", "arrival": 0, "prompt": 2, "output": 1},
            {"name": "D2", "arrival": 0, "prompt": 2, "output": 1, "deadline": 9},
            {"name": "D3", "arrival": 0, "prompt": 2, "output": 1, "deadline": 5}]
    schedule = run(rows, Config(2), order="edf")
    assert emitted(schedule) == {"D1": [6], "D2": [4], "D3": [2]}
    assert segs(schedule, "D1") == [("queued", 0, 4, 0), ("prefill", 4, 5, 2), ("decode", 5, 6, 1)]


AGING_ROWS = [{"name": "R", "arrival": 0, "prompt": 2, "output": 3, "priority": 0},
              {"name": "O", "arrival": 0, "prompt": 2, "output": 1, "priority": 3},
              {"name": "N", "arrival": 4, "prompt": 2, "output": 1, "priority": 0}]


def test_aging_lets_an_old_low_priority_request_overtake():
    # budget 2. R prefills at t0 and decodes t1..t3 (1 left a tick: nothing else fits). At t4 the old O scores
    # 3 - 1 x 4 = -1, the new N scores 0 - 0 = 0: O goes first (prefill t4, decode t5), N prefills at t6.
    schedule = run(AGING_ROWS, Config(2), order="aging", aging_rate=1.0)
    assert segs(schedule, "O") == [("queued", 0, 4, 0), ("prefill", 4, 5, 2), ("decode", 5, 6, 1)]
    assert segs(schedule, "N") == [("queued", 4, 6, 0), ("prefill", 6, 7, 2), ("decode", 7, 8, 1)]
    assert emitted(schedule) == {"R": [2, 3, 4], "O": [6], "N": [8]}


@pytest.mark.parametrize("policy", [dict(order="priority"), dict(order="aging", aging_rate=0.5)])
def test_without_enough_aging_the_new_high_priority_request_goes_first(policy):
    # Plain priority, or aging at 0.5 a tick (O scores 3 - 2 = 1 > 0 at t4): N first.
    schedule = run(AGING_ROWS, Config(2), **policy)
    assert emitted(schedule) == {"R": [2, 3, 4], "O": [8], "N": [6]}


def test_max_seqs_counts_a_request_finishing_in_the_tick():
    # max_seqs 1: A's last token comes from t2, so its slot is free only from t3.
    schedule = run([("A", 0, 1, 2), ("B", 0, 1, 1)], Config(8, max_seqs=1))
    assert segs(schedule, "B") == [("queued", 0, 3, 0), ("prefill", 3, 4, 1), ("decode", 4, 5, 1)]
    assert emitted(schedule) == {"A": [2, 3], "B": [5]}
