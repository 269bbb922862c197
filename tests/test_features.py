"""The scheduler's options, each on a small trace whose timeline is worked out by hand, plus invariants of
every option combination (hypothesis) and the seed's figures with every option off.

Reading the timelines: tick t covers [t, t+1); a token made in tick t is emitted at t+1. Segments are
(phase, start, end, tokens)."""
import math
import signal
from contextlib import contextmanager
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sim.core.config import SLO, STATIC_UNSUPPORTED, Config, ConfigError, CostModel, Policy
from sim.core.engine import run as run_scheduler
from sim.core.engine import simulate
from sim.core.policies import make_scheduler
from sim.core.schedule import SLOT_PHASES
from sim.report.export import run_json
from sim.report.metrics import compute
from sim.trace.trace import TraceError, validate
from tests.conftest import SEED_ROWS, make_trace


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


# -- chunked prefill ------------------------------------------------------------------------------------------

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


# -- prefill/decode mixing ------------------------------------------------------------------------------------

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


# -- queue orders ---------------------------------------------------------------------------------------------

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


PRIORITY_PREEMPT_ROWS = [{"name": "A", "arrival": 0, "prompt": 2, "output": 4, "priority": 5},
                         {"name": "B", "arrival": 3, "prompt": 2, "output": 2, "priority": 0}]


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


# -- the KV cache ---------------------------------------------------------------------------------------------

def test_kv_reserve_limits_admission():
    # 4 blocks of 4. A and B each reserve ceil((4 + 4) / 4) = 2 blocks at t0: the cache is full, so C (1 block)
    # is skipped although the budget has room. A and B decode t1..t4 and free their blocks after t4; C prefills
    # at t5 and decodes t6, t7.
    schedule = run([("A", 0, 4, 4), ("B", 0, 4, 4), ("C", 0, 2, 2)], Config(16, kv_blocks=4, block_size=4))
    assert segs(schedule, "C") == [("queued", 0, 5, 0), ("prefill", 5, 6, 2), ("decode", 6, 8, 2)]
    assert emitted(schedule) == {"A": [2, 3, 4, 5], "B": [2, 3, 4, 5], "C": [7, 8]}
    assert per_tick(schedule, "kv_blocks") == {0: 4, 1: 4, 2: 4, 3: 4, 4: 4, 5: 1, 6: 1, 7: 1}
    assert timeline(schedule, "A").kv == [(0, 2), (5, 0)]
    assert timeline(schedule, "C").kv == [(5, 1), (8, 0)]


OVERCOMMIT_ROWS = [("A", 0, 2, 4), ("B", 0, 2, 4)]
OVERCOMMIT = Config(8, kv_blocks=4, block_size=2)


def test_overcommit_with_recompute():
    # 4 blocks of 2. A decode feeds the last token made, so it needs KV for prompt + tokens made (the token it
    # makes needs none yet). t0: A and B take 1 block each (their prompts) and prefill. t1: token 1 feeds
    # nothing new (2 tokens of KV). t2: token 2 feeds token 1: a 2nd block each (4 used). t3: token 3 fits.
    # t4: A's token 4 feeds its 3rd: a 3rd block, none is free: the latest arrival, B (3 tokens made), is
    # preempted and frees 2; A takes 1 and finishes. B, needing ceil((2 + 3) / 2) = 3 blocks, recomputes 5
    # tokens at t5 and makes its last token at t6.
    schedule = run(OVERCOMMIT_ROWS, OVERCOMMIT, kv_admission="overcommit", preempt="recompute")
    assert segs(schedule, "A") == [("prefill", 0, 1, 2), ("decode", 1, 5, 4)]
    assert segs(schedule, "B") == [("prefill", 0, 1, 2), ("decode", 1, 4, 3), ("preempted", 4, 5, 0),
                                   ("prefill", 5, 6, 5), ("decode", 6, 7, 1)]
    assert emitted(schedule) == {"A": [2, 3, 4, 5], "B": [2, 3, 4, 7]}
    b = timeline(schedule, "B")
    assert (b.preemptions, b.recomputed, timeline(schedule, "A").preemptions) == (1, 5, 0)
    assert b.kv == [(0, 1), (2, 2), (4, 0), (5, 3), (7, 0)]
    assert schedule.events == [(4, "preempt", 1)]
    assert per_tick(schedule, "kv_blocks") == {0: 2, 1: 2, 2: 4, 3: 4, 4: 3, 5: 3, 6: 3}
    assert metrics_of(schedule, "B").recomputed == 5


def test_overcommit_lowest_priority_victim_may_be_the_requester_itself():
    # As above, but A has priority 5 and the victim is the lowest priority: at t4 A (needing the block) is the
    # victim itself; B takes a block from those A freed and finishes; A recomputes 5 tokens at t5.
    rows = [{"name": "A", "arrival": 0, "prompt": 2, "output": 4, "priority": 5},
            {"name": "B", "arrival": 0, "prompt": 2, "output": 4, "priority": 0}]
    schedule = run(rows, OVERCOMMIT, kv_admission="overcommit", victim="lowest-priority")
    assert segs(schedule, "A") == [("prefill", 0, 1, 2), ("decode", 1, 4, 3), ("preempted", 4, 5, 0),
                                   ("prefill", 5, 6, 5), ("decode", 6, 7, 1)]
    assert segs(schedule, "B") == [("prefill", 0, 1, 2), ("decode", 1, 5, 4)]
    assert emitted(schedule) == {"A": [2, 3, 4, 7], "B": [2, 3, 4, 5]}
    assert schedule.events == [(4, "preempt", 0)]


def test_overcommit_with_swap():
    # As the recompute case until t4, where B's 2 blocks go to host instead. B needs its 2 blocks back: only 1
    # is free until A leaves after t4. t5: B swaps in (2 ticks, t5 and t6, holding its slot), then at t7 takes a
    # 3rd block and makes its last token without recomputing.
    schedule = run(OVERCOMMIT_ROWS, Config(8, kv_blocks=4, block_size=2, swap_cost=2),
                   kv_admission="overcommit", preempt="swap")
    assert segs(schedule, "A") == [("prefill", 0, 1, 2), ("decode", 1, 5, 4)]
    assert segs(schedule, "B") == [("prefill", 0, 1, 2), ("decode", 1, 4, 3), ("swapped", 4, 5, 0),
                                   ("swapping", 5, 7, 0), ("decode", 7, 8, 1)]
    assert emitted(schedule) == {"A": [2, 3, 4, 5], "B": [2, 3, 4, 8]}
    b = timeline(schedule, "B")
    assert (b.preemptions, b.recomputed, b.swapped_blocks) == (1, 0, 2)
    assert b.kv == [(0, 1), (2, 2), (4, 0), (5, 2), (7, 3), (8, 0)]
    assert schedule.events == [(4, "swap_out", 1), (5, "swap_in", 1)]
    assert per_tick(schedule, "running")[5] == per_tick(schedule, "running")[6] == 1


def test_first_token_from_prefill_with_a_recompute():
    # Engine mode: a completed prefill emits a token. t0: both prefill and emit (at 1). t1: each feeds its token
    # 1 (3 tokens of KV): a 2nd block each (4 used); emitted 2. t2: 4 tokens fit. t3: A feeds its 3rd token: a
    # 3rd block, none free: B (3 tokens made) is preempted; A makes its last token. B (ceil(5 / 2) = 3 blocks)
    # is back at t4: its recompute prefill of 5 tokens emits its 4th and last token (at 5).
    schedule = run(OVERCOMMIT_ROWS, Config(8, kv_blocks=4, block_size=2, first_token="prefill"),
                   kv_admission="overcommit")
    assert segs(schedule, "A") == [("prefill", 0, 1, 2), ("decode", 1, 4, 3)]
    assert segs(schedule, "B") == [("prefill", 0, 1, 2), ("decode", 1, 3, 2), ("preempted", 3, 4, 0),
                                   ("prefill", 4, 5, 5)]
    assert emitted(schedule) == {"A": [1, 2, 3, 4], "B": [1, 2, 3, 5]}
    b = timeline(schedule, "B")
    assert (b.preemptions, b.recomputed, b.first_token, b.completion) == (1, 5, 1, 5)
    assert b.kv == [(0, 1), (1, 2), (3, 0), (4, 3), (5, 0)]


def test_a_request_larger_than_the_whole_cache_is_rejected_at_arrival():
    # 2 blocks of 2: R's last token feeds no KV, so it holds at most 3 + 3 - 1 tokens: ceil(5 / 2) = 3 blocks,
    # more than the cache; OK needs 1 and runs.
    schedule = run([("OK", 0, 2, 1), ("R", 1, 3, 3)], Config(8, kv_blocks=2, block_size=2))
    r = timeline(schedule, "R")
    assert (r.finish_reason, r.reject_reason, r.segments) == ("rejected", {"blocks": 3, "capacity": 2}, [])
    assert schedule.events == [(1, "reject", 1)]
    assert emitted(schedule) == {"OK": [2], "R": []}
    assert compute(schedule).rejected == 1


# -- tenant quotas ----------------------------------------------------------------------------------------------

QUOTA_ROWS = [{"name": "B", "arrival": 0, "prompt": 1, "output": 3, "tenant": "t2"},
              {"name": "A", "arrival": 0, "prompt": 5, "output": 1, "tenant": "t1"}]


def test_tenant_quota_caps_a_tenant_s_work_a_tick():
    # budget 4, chunk 4, t1 may use ceil(0.5 x 4) = 2 a tick while others run. t0: B prefills 1, A 2 (not 3);
    # t1: B decodes, A prefills 2; t2: B decodes, A prefills its last 1; t3: both decode.
    schedule = run(QUOTA_ROWS, Config(4), chunk_size=4, tenant_quotas=(("t1", 0.5),))
    assert segs(schedule, "A") == [("prefill", 0, 3, 5), ("decode", 3, 4, 1)]
    assert segs(schedule, "B") == [("prefill", 0, 1, 1), ("decode", 1, 4, 3)]
    assert emitted(schedule) == {"B": [2, 3, 4], "A": [4]}
    assert per_tick(schedule, "prefill_tokens") == {0: 3, 1: 2, 2: 1, 3: 0}


def test_without_a_quota_the_tenant_takes_the_budget_left():
    # t0: B 1, A 3; t1: B decodes, A its last 2; A decodes at t2.
    schedule = run(QUOTA_ROWS, Config(4), chunk_size=4)
    assert segs(schedule, "A") == [("prefill", 0, 2, 5), ("decode", 2, 3, 1)]
    assert emitted(schedule) == {"B": [2, 3, 4], "A": [3]}


# -- cancellation -----------------------------------------------------------------------------------------------

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


# -- runs that must end -----------------------------------------------------------------------------------------------

def test_prefill_first_with_overcommit_ends():
    # 5 blocks of 1, budget 4. t3: X prefills (2 blocks). t4: X decodes its 1st token. t5: X's next decode will
    # feed it: a 3rd block; Y arrives: a prefill-only tick (Y takes 2 blocks, 5 used; X stalls). t6: no prefill
    # work, a decode tick: X's 2nd token, Y's 1st. t7: X feeds its 2nd token and needs a 4th block, none free: Y
    # (latest, 1 made) is preempted and X makes its last token. t8: Y comes back and prefills 2 + 1 tokens; t9,
    # t10 it decodes (a 4th block at t10).
    schedule = run([("X", 3, 2, 3), ("Y", 5, 2, 3)], Config(4, kv_blocks=5, block_size=1),
                   mixing="prefill-first", kv_admission="overcommit")
    assert segs(schedule, "X") == [("prefill", 3, 4, 2), ("decode", 4, 5, 1), ("stalled", 5, 6, 0), ("decode", 6, 8, 2)]
    assert segs(schedule, "Y") == [("prefill", 5, 6, 2), ("decode", 6, 7, 1), ("preempted", 7, 8, 0),
                                   ("prefill", 8, 9, 3), ("decode", 9, 11, 2)]
    assert emitted(schedule) == {"X": [5, 7, 8], "Y": [7, 10, 11]}


def test_speculative_decoding_with_overcommit_ends():
    # 1 block of 4, k = 2. t0: R prefills 2 (1 block). t1: its next (3rd) token fits the block; it is its last
    # token, so the step commits just 1 (emitted 2).
    schedule = run([("R", 0, 2, 1)], Config(8, kv_blocks=1, block_size=4), kv_admission="overcommit",
                       spec_tokens=2)
    assert segs(schedule, "R") == [("prefill", 0, 1, 2), ("decode", 1, 2, 1)]
    assert emitted(schedule) == {"R": [2]}


def test_a_recompute_larger_than_the_budget_ends():
    # budget 1. t0: L prefills; t1: L decodes (emitted 2). t2: H (priority 0) arrives and preempts L (1 made); H
    # prefills t2, decodes t3. L must now prefill 2 tokens in a budget of 1: it does, in budget-sized pieces.
    rows = [{"name": "L", "arrival": 0, "prompt": 1, "output": 2, "priority": 1},
            {"name": "H", "arrival": 2, "prompt": 1, "output": 1, "priority": 0}]
    schedule = run(rows, Config(1), order="priority", preemptive_priority=True)
    assert timeline(schedule, "L").recomputed == 2
    assert [len(times) for times in schedule.emitted()] == [2, 1]
    assert {r.finish_reason for r in schedule.requests} == {"finished"}


@pytest.mark.parametrize("order", [dict(order="priority"), dict(order="aging", aging_rate=0.0)])
def test_a_preempted_request_queues_behind_the_one_that_preempted_it(order):
    # budget 1 (one slot). t0: L prefills. t1: H (priority 0, ahead of L in both orders: with no aging, aging is
    # priority order) finds no slot: L (priority 1, 0 tokens made) is preempted by recompute and H prefills; t2: H
    # decodes. t3: L prefills its prompt again; t4: it decodes.
    rows = [{"name": "L", "arrival": 0, "prompt": 1, "output": 1, "priority": 1},
            {"name": "H", "arrival": 1, "prompt": 1, "output": 1, "priority": 0}]
    schedule = run(rows, Config(1), preemptive_priority=True, **order)
    assert segs(schedule, "L") == [("prefill", 0, 1, 1), ("preempted", 1, 3, 0), ("prefill", 3, 4, 1),
                                   ("decode", 4, 5, 1)]
    assert segs(schedule, "H") == [("prefill", 1, 2, 1), ("decode", 2, 3, 1)]
    assert schedule.events == [(1, "preempt", 0)]
    assert timeline(schedule, "L").recomputed == 1


def test_overcommit_with_swap_ends_when_the_cache_holds_one_request_at_a_time():
    # 6 blocks of 1, budget 2, chunk 1, swap_cost 3. A (prompt 5, output 1) needs all 6 blocks for its token, B
    # (prompt 1) needs 2 for its token: one must wait for the other. t0: A's first chunk (A takes 5 blocks for its
    # prompt) and B's prefill (the 6th block). t1: B's token needs a 2nd block, none free: B (latest) swaps itself
    # out, and its 1 block, free again, lets it swap back in (t1..t3); t4 likewise. A's prefill ends at t4. t5: A's
    # token needs the 6th block, held by B, which is swapping in (it holds its slot, so it is a running request):
    # the victim is B, A makes its token (emitted 6) and leaves; B swaps in at t6..t8 and makes its token at t9
    # (emitted 10). However the victims are chosen, the run ends with both tokens made.
    schedule = run([("A", 0, 5, 1), ("B", 0, 1, 1)], Config(2, kv_blocks=6, block_size=1, swap_cost=3),
                   chunk_size=1, kv_admission="overcommit", preempt="swap")
    assert [len(times) for times in schedule.emitted()] == [1, 1]
    assert {r.finish_reason for r in schedule.requests} == {"finished"}


def test_preemptive_priority_with_overcommit_ends():
    # 3 blocks of 3, budget 7. t0: B (priority 0) takes 1 block, A (priority 1, prompt 6) 2; both prefill. t1: A's
    # 7th token needs a 3rd block, none free: the victim is the latest, B; B, now the best waiting request, finds
    # no KV room and preempts A, of lower priority. Taken literally the rules bring both back in and repeat t0 for
    # ever; whatever breaks the tie, the run must end with both tokens made.
    rows = [{"name": "A", "arrival": 0, "prompt": 6, "output": 1, "priority": 1},
            {"name": "B", "arrival": 0, "prompt": 1, "output": 1, "priority": 0}]
    schedule = run(rows, Config(7, kv_blocks=3, block_size=3), order="priority", preemptive_priority=True,
                   kv_admission="overcommit")
    assert [len(times) for times in schedule.emitted()] == [1, 1]
    assert {r.finish_reason for r in schedule.requests} == {"finished"}


def test_swap_in_with_no_swap_cost_keeps_a_whole_timeline():
    # budget 2, 2 blocks of 2, swap, swap_cost 0. t0: r0, r1 prefill 1 each (1 block each). t1, t2: both decode
    # (2 tokens of KV fit). t3: r0 feeds its 2nd token and needs a 2nd block: r1 (latest, 1 block) swaps out; r0
    # makes its last token; r1 cannot come back (0 free). t4: r1 swaps in (its block, no copy time) after t4's
    # decodes, so it holds its slot in t4 without decoding; t5: a 2nd block and its last token (emitted 6).
    schedule = run([("r0", 0, 1, 3), ("r1", 0, 1, 3)], Config(2, kv_blocks=2, block_size=2, swap_cost=0),
                   kv_admission="overcommit", preempt="swap")
    assert emitted(schedule) == {"r0": [2, 3, 4], "r1": [2, 3, 6]}
    assert schedule.events == [(3, "swap_out", 1), (4, "swap_in", 1)]
    assert per_tick(schedule, "running") == {0: 2, 1: 2, 2: 2, 3: 1, 4: 1, 5: 1}
    r1 = segs(schedule, "r1")
    assert r1[:3] == [("prefill", 0, 1, 1), ("decode", 1, 3, 2), ("swapped", 3, 4, 0)]
    assert r1[-1] == ("decode", 5, 6, 1)
    assert all(a[2] == b[1] for a, b in zip(r1, r1[1:]))
    assert all(phase in SLOT_PHASES for phase, start, *_ in r1 if start == 4)


# -- CUDA-graph buckets -------------------------------------------------------------------------------------------

GRAPH_ROWS = [("A", 0, 1, 4), ("B", 0, 1, 3), ("C", 0, 1, 1), ("D", 1, 1, 1)]


@pytest.mark.parametrize(("buckets", "padding"), [
    # decoders a tick: t1 3 (+ D's prefill: not padded), t2 3 (A, B, D), t3 2 (A, B), t4 1 (A).
    ((2, 4), {0: 0, 1: 0, 2: 1, 3: 0, 4: 1}),
    ((2,), {0: 0, 1: 0, 2: 0, 3: 0, 4: 1}),  # 3 decoders is above the largest bucket: not padded
])
def test_graph_padding_on_continuous(buckets, padding):
    schedule = run(GRAPH_ROWS, Config(8), graph_buckets=buckets)
    assert per_tick(schedule, "decode_tokens") == {0: 0, 1: 3, 2: 3, 3: 2, 4: 1}
    assert per_tick(schedule, "graph_padding") == padding
    assert compute(schedule).graph_padding == sum(padding.values())


def test_graph_padding_on_static():
    # The seed's static timeline: batch {A, B} prefills at t0 and decodes t1..t5 (B's finished slot is padding
    # from t3, still a slot of the 2-wide batch), padded to bucket 4: 2 a tick; C alone prefills at t6 and
    # decodes t7..t10: 3 a tick. Prefill ticks are not padded.
    schedule = run(SEED_ROWS, Config(8), batching="static", graph_buckets=(4,))
    expected = {0: 0, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 0, 7: 3, 8: 3, 9: 3, 10: 3}
    assert per_tick(schedule, "graph_padding") == expected
    assert compute(schedule).graph_padding == 22
    assert emitted(schedule) == {"A": [2, 3, 4, 5, 6], "B": [2, 3], "C": [8, 9, 10, 11]}


# -- static batching ----------------------------------------------------------------------------------------------

def test_static_prefill_over_several_ticks():
    # budget 4: prompts 3 and 2 padded to 3: 6 positions, ceil(6 / 4) = 2 prefill ticks (5 real + 1 padding).
    # t2: both decode (A done); t3: B decodes, A's slot is padding.
    schedule = run([("A", 0, 3, 1), ("B", 0, 2, 2)], Config(4), batching="static")
    assert segs(schedule, "A") == [("prefill", 0, 2, 3), ("decode", 2, 3, 1), ("padding", 3, 4, 1)]
    assert segs(schedule, "B") == [("prefill", 0, 2, 2), ("decode", 2, 4, 2)]
    prefill, padding = per_tick(schedule, "prefill_tokens"), per_tick(schedule, "padding_tokens")
    assert prefill[0] + prefill[1] == 5 and padding[0] + padding[1] == 1
    assert (prefill[2], padding[2], prefill[3], padding[3]) == (0, 0, 0, 1)
    assert compute(schedule).padding_waste == 2


def test_static_batch_limited_by_the_kv_cache():
    # 3 blocks of 3: A reserves all it will hold, ceil((4 + 5 - 1) / 3) = 3, so B cannot join and A runs alone
    # (t0 prefill, t1..t5). At 6 B (1 block) and C (2 blocks) form the next batch: prompts 2, 3 padded to 3
    # (1 padding), decode t7, t8 together, then C alone t9, t10 with B's slot as padding.
    schedule = run(SEED_ROWS, Config(8, kv_blocks=3, block_size=3), batching="static")
    assert segs(schedule, "A") == [("prefill", 0, 1, 4), ("decode", 1, 6, 5)]
    assert segs(schedule, "B") == [("queued", 0, 6, 0), ("prefill", 6, 7, 2), ("decode", 7, 9, 2),
                                   ("padding", 9, 11, 2)]
    assert segs(schedule, "C") == [("queued", 3, 6, 0), ("prefill", 6, 7, 3), ("decode", 7, 11, 4)]
    assert emitted(schedule) == {"A": [2, 3, 4, 5, 6], "B": [8, 9], "C": [8, 9, 10, 11]}
    assert set(per_tick(schedule, "kv_blocks").values()) == {3}
    assert compute(schedule).padding_waste == 3


# -- speculative decoding -------------------------------------------------------------------------------------------

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


# -- the linear cost model --------------------------------------------------------------------------------------------

def test_linear_cost_model():
    # ms = 2 + 0.5 x prefill tokens + 1 x decoding sequences (no attention term).
    # [0, 4): A prefills 4 (2 + 2). B arrives at 3 and waits. [4, 8): A decodes, B prefills 2 (2 + 1 + 1).
    # [8, 12): both decode (2 + 2). C arrives at 20 on an idle server: [20, 22.5) prefill 1, [22.5, 25.5) decode.
    cost = CostModel("linear", c0=2.0, c_prefill=0.5, c_decode=1.0, c_attn=0.0)
    schedule = run([("A", 0, 4, 2), ("B", 3, 2, 1), ("C", 20, 1, 1)], Config(8, cost=cost))
    assert [(s.start, s.end) for s in schedule.steps] == [(0, 4), (4, 8), (8, 12), (20, 22.5), (22.5, 25.5)]
    assert segs(schedule, "A") == [("prefill", 0, 4, 4), ("decode", 4, 12, 2)]
    assert segs(schedule, "B") == [("queued", 3, 4, 0), ("prefill", 4, 8, 2), ("decode", 8, 12, 1)]
    assert emitted(schedule) == {"A": [8, 12], "B": [12], "C": [25.5]}
    metrics = compute(schedule)
    assert (metrics.unit, metrics.makespan) == ("ms", 25.5)
    assert [r.ttft for r in metrics.requests] == [8, 9, 5.5]


# -- the seed's example with every new option off ---------------------------------------------------------------------

SEED_FIGURES = {"static": (11, 5, 1.0, 5), "continuous": (8, 0, 1.375, 2)}
NO_OP_OPTIONS = [
    ({}, {}),
    ({"kv_blocks": 1000}, {}),
    ({"kv_blocks": 1000, "block_size": 1}, {"kv_admission": "overcommit", "preempt": "swap"}),
    ({"max_seqs": 8, "swap_cost": 5}, {"graph_buckets": ()}),
    ({}, {"order": "fcfs"}),
    ({}, {"order": "priority", "preemptive_priority": True}),
    ({}, {"order": "edf"}),
    ({}, {"order": "aging", "aging_rate": 2.0}),
    ({}, {"timeout": 100, "victim": "lowest-priority"}),
    ({}, {"tenant_quotas": (("nobody", 0.5),)}),
    ({}, {"chunk_size": 8}),
    ({"slo": SLO(ttft=100)}, {"spec_tokens": 0, "seed": 3}),
]


@pytest.mark.parametrize(("batching", "config", "options"),
                         [(b, c, o) for b in ("static", "continuous") for c, o in NO_OP_OPTIONS
                          if b == "continuous" or not set(o) & set(STATIC_UNSUPPORTED)])
def test_seed_figures_with_options_that_change_nothing(batching, config, options):
    policy = Policy(batching=batching, **options)
    schedule = simulate(make_trace(*SEED_ROWS), Config(token_budget=8, **config), policy)
    metrics = compute(schedule)
    ttft_c = next(r.ttft for r in metrics.requests if r.name == "C")
    assert (metrics.makespan, metrics.padding_waste, metrics.throughput, ttft_c) == SEED_FIGURES[batching]
    assert all(r.tpot == 1 for r in metrics.requests)
    assert (metrics.preemptions, metrics.cancelled, metrics.rejected, metrics.graph_padding) == (0, 0, 0, 0)


# -- invariants of every combination (hypothesis) ----------------------------------------------------------------------

@st.composite
def feature_scenarios(draw):
    batching = draw(st.sampled_from(("static", "continuous")))
    continuous = batching == "continuous"
    budget = draw(st.integers(1, 12))
    chunk = draw(st.none() | st.integers(1, 6)) if continuous else None
    spec = draw(st.integers(0, min(2, budget - 1))) if continuous else 0
    policy = Policy(
        batching=batching,
        order=draw(st.sampled_from(("fcfs-skip", "fcfs", "priority", "sjf", "edf", "aging"))),
        sjf_key=draw(st.sampled_from(("prompt", "output"))),
        aging_rate=draw(st.sampled_from((0.0, 0.5, 1.0, 3.0))),
        preemptive_priority=continuous and draw(st.booleans()),
        tenant_quotas=draw(st.sampled_from(((), (("a", 0.5),), (("a", 0.3), ("b", 1.0))))) if continuous else (),
        chunk_size=chunk,
        mixing=draw(st.sampled_from(("decode-first", "prefill-first"))) if continuous else "decode-first",
        kv_admission=draw(st.sampled_from(("reserve", "overcommit"))) if continuous else "reserve",
        preempt=draw(st.sampled_from(("recompute", "swap"))),
        victim=draw(st.sampled_from(("latest", "lowest-priority"))),
        timeout=draw(st.none() | st.integers(1, 15)),
        graph_buckets=draw(st.sampled_from(((), (1, 2, 4), (2, 8), (3,)))),
        spec_tokens=spec,
        spec_accept=draw(st.sampled_from((0.0, 0.5, 0.9, 1.0))),
        seed=draw(st.integers(0, 3)),
    )
    config = Config(token_budget=budget, max_seqs=draw(st.none() | st.integers(1, 5)),
                    first_token=draw(st.sampled_from(("decode", "prefill"))),
                    kv_blocks=draw(st.none() | st.integers(1, 16)), block_size=draw(st.integers(1, 4)),
                    swap_cost=draw(st.integers(0, 3)))
    rows = []
    for i in range(draw(st.integers(1, 7))):
        arrival = draw(st.integers(0, 12))
        prompt = draw(st.integers(1, 10))
        row = {"name": f"r{i}", "arrival": arrival, "output": draw(st.integers(1, 7)),
               "prompt": prompt if chunk else 1 + (prompt - 1) % budget}
        if draw(st.booleans()):
            row["priority"] = draw(st.integers(0, 3))
        if draw(st.booleans()):
            row["tenant"] = draw(st.sampled_from(("a", "b", "")))
        if draw(st.integers(0, 3)) == 0:
            row["cancel_at"] = arrival + draw(st.integers(0, 10))
        if draw(st.booleans()):
            row["deadline"] = arrival + draw(st.integers(0, 20))
        rows.append(row)
    return validate(rows), config, policy


def stop_time(request, policy):
    times = [t for t in (request.cancel_at, None if policy.timeout is None else request.arrival + policy.timeout)
             if t is not None]
    return min(times) if times else None


def check_recompute(request, tl, times, events):
    """A preemption by recompute at t makes the request prefill again its prompt + the tokens emitted by t:
    `recomputed` sums that over the preemptions it came back from, and the prefill between its return and
    its next decode is exactly that many tokens."""
    stops = [t for t, kind in events if kind in ("preempt", "swap_out")]
    recomputed = 0
    for t, kind in events:
        if kind != "preempt":
            continue
        target = request.prompt + sum(1 for e in times if e <= t)
        if any(s.phase == "prefill" and s.end > t for s in tl.segments):  # it came back
            recomputed += target
        later = [u for u in stops if u > t]
        until = later[0] if later else math.inf
        resumed = next((s for s in tl.segments if s.phase == "decode" and t <= s.start < until), None)
        straddles = any(s.phase == "prefill" and s.start < t < s.end for s in tl.segments)
        if resumed is not None and not straddles:  # its recompute prefill completed before it decoded again
            assert sum(s.tokens for s in tl.segments
                       if s.phase == "prefill" and t <= s.start and s.end <= resumed.start) == target
    assert tl.recomputed == recomputed


@settings(max_examples=150, deadline=None)
@given(feature_scenarios())
# Random scenarios rarely preempt (about 1 in 60): these do, by recompute, swap and a preemptive priority.
@example((trace(*OVERCOMMIT_ROWS, ("C", 1, 1, 3)), OVERCOMMIT, Policy(kv_admission="overcommit")))
@example((trace(*OVERCOMMIT_ROWS), replace(OVERCOMMIT, swap_cost=1), Policy(kv_admission="overcommit",
                                                                              preempt="swap")))
@example((trace(*PRIORITY_PREEMPT_ROWS), Config(8, max_seqs=1), Policy(order="priority", preemptive_priority=True)))
def test_feature_invariants(scenario):
    trace_, config, policy = scenario
    schedule = simulate_bounded(trace_, config, policy)
    limit = min(config.max_seqs or config.token_budget, config.token_budget)
    for step, members in zip(schedule.steps, schedule.members()):
        assert step.token_work <= config.token_budget  # the token budget
        assert step.running == len(members) <= limit  # the sequence limit
        if config.kv_blocks is not None:
            assert 0 <= step.kv_blocks <= config.kv_blocks  # the KV cache
        assert step.decode_tokens == step.decode_sequences * (1 + policy.spec_tokens)
    assert all(a.end <= b.start for a, b in zip(schedule.steps, schedule.steps[1:]))
    all_emitted = schedule.emitted()
    made = sum(len(times) - len(r.prefill_emits) for r, times in zip(schedule.requests, all_emitted))
    assert made == sum((s.decode_sequences + s.spec_accepted) * s.iterations for s in schedule.steps)
    events = {}
    for when, kind, i in schedule.events:
        events.setdefault(i, []).append((when, kind))
    for i, (request, tl, times) in enumerate(zip(trace_, schedule.requests, all_emitted)):
        segments = tl.segments
        assert all(s.start >= request.arrival for s in segments)  # nothing before arrival
        assert all(t > request.arrival for t in times)
        assert all(a.end == b.start for a, b in zip(segments, segments[1:]))
        if segments:
            assert segments[0].start == request.arrival
        assert times == sorted(times)
        rejected = (config.kv_blocks is not None
                    and math.ceil((request.prompt + request.output - 1) / config.block_size) > config.kv_blocks)
        stop = stop_time(request, policy)
        assert (tl.finish_reason == "rejected") == rejected  # rejected at arrival, before any stop
        if tl.finish_reason == "rejected":
            assert rejected and segments == [] and times == []
            assert tl.reject_reason == {"blocks": math.ceil((request.prompt + request.output - 1) / config.block_size),
                                        "capacity": config.kv_blocks}
        elif tl.finish_reason == "cancelled":
            assert tl.cancel_time == stop
            assert all(s.end <= stop + 1 for s in segments if s.phase in ("prefill", "decode", "stalled", "swapping"))
            assert all(t <= stop + 1 for t in times)
            if segments and segments[-1].phase in ("queued", "preempted", "swapped"):
                assert segments[-1].end == stop  # a waiting request leaves at its stop
        else:
            assert tl.finish_reason == "finished"  # every other request completes...
            assert len(times) == request.output  # ...with exactly its output tokens
            assert tl.completion == times[-1] and tl.first_token == times[0]
        check_recompute(request, tl, times, events.get(i, []))
        assert tl.preemptions == sum(1 for _, kind in events.get(i, []) if kind in ("preempt", "swap_out"))
    # determinism: the same inputs give the same run
    again = simulate_bounded(trace_, config, policy)
    assert run_json(schedule, compute(schedule)) == run_json(again, compute(again))


@pytest.mark.parametrize("option", [dict(chunk_size=4), dict(mixing="prefill-first"),
                                    dict(kv_admission="overcommit"), dict(spec_tokens=1),
                                    dict(tenant_quotas=(("a", 0.5),)), dict(preemptive_priority=True)])
def test_static_rejects_continuous_only_options(option):
    with pytest.raises(ConfigError):
        Policy(batching="static", **option)
