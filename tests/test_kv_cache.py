"""The scheduler's KV cache: reserve and overcommit admission, recompute and swap, victims, rejection."""
from sim.core.config import Config
from sim.report.metrics import compute
from tests.scheduler_kit import OVERCOMMIT, OVERCOMMIT_ROWS, emitted, metrics_of, per_tick, run, segs, timeline


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


def test_a_plan_is_a_value_its_block_tables_and_decoders_stay_as_planned():
    """An Iteration copies what it names: once later iterations have grown, freed and reused blocks and moved
    requests on, an earlier plan still says what it said when it was planned."""
    import copy

    from sim.core.config import Policy
    from sim.core.policies import make_scheduler
    from tests.scheduler_kit import trace as make_trace

    trace = make_trace(("A", 0, 3, 6), ("B", 0, 2, 5), ("C", 2, 4, 3))
    scheduler = make_scheduler(Policy(kv_admission="overcommit", preempt="swap"), trace,
                               Config(8, kv_blocks=4, block_size=2, swap_cost=1))
    plans, now = [], 0
    while scheduler.remaining:
        scheduler.advance(now)
        it = scheduler.plan(now, 1)
        if it is None:
            now = scheduler.next_event()
            continue
        plans.append((it, copy.deepcopy((it.blocks, list(it.decoding), it.swapped_out, it.swapped_in))))
        scheduler.commit(it, now, now + 1)
        now += 1
    assert len(plans) > 5 and any(it.blocks for it, _ in plans)
    for it, seen in plans:
        assert (it.blocks, list(it.decoding), it.swapped_out, it.swapped_in) == seen


def test_a_plan_whose_chunk_preempts_admits_nobody():
    # 7 blocks of 1 token, chunks of 1, blocks taken chunk by chunk. A (6 + 2) from t0 and B (5 + 1) from t1
    # prefill a token a tick each: the 7 blocks are used after t3. t4: A's 5th token needs a block: the latest
    # arrival, B, is preempted and frees 3, and A takes 1. B, back at the head of the queue, would fit in the 2
    # left, but a plan that preempted admits nobody (vLLM's `if not preempted_reqs`), or B would take back at once
    # the blocks its preemption freed: B comes back at t5, for the last free block (A takes its 6th). t6: A
    # decodes (its 1st token feeds nothing new); B's 2nd token finds no block, and B, the only request not yet
    # planned, preempts itself. t7: A's 2nd token feeds its 1st, the 7th block, and A leaves; B recomputes its 5
    # tokens t8..t12 and makes its token at t13.
    schedule = run([("A", 0, 6, 2), ("B", 1, 5, 1)], Config(3, 2, kv_blocks=7, block_size=1),
                   kv_admission="chunk", chunk_size=1, preempt="recompute", victim="latest")
    assert segs(schedule, "A") == [("prefill", 0, 6, 6), ("decode", 6, 8, 2)]
    assert segs(schedule, "B") == [("prefill", 1, 4, 3), ("preempted", 4, 5, 0), ("prefill", 5, 6, 1),
                                   ("preempted", 6, 8, 0), ("prefill", 8, 13, 5), ("decode", 13, 14, 1)]
    assert schedule.events == [(4, "preempt", 1), (6, "preempt", 1)]
    assert per_tick(schedule, "kv_blocks") == {0: 1, 1: 3, 2: 5, 3: 7, 4: 5, 5: 7, 6: 6, 7: 7, 8: 1, 9: 2, 10: 3,
                                               11: 4, 12: 5, 13: 5}
    assert {step.start: list(step.changes) for step in schedule.steps if step.changes} == {
        0: [0], 1: [1], 4: [~1], 5: [1], 6: [~1], 8: [~0, 1]}
