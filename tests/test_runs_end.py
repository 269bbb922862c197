"""Runs that must end: option combinations that could livelock."""
import pytest

from sim.core.config import Config, Policy
from sim.core.schedule import SLOT_PHASES
from tests.scheduler_kit import emitted, per_tick, run, segs, timeline, trace


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


# Found by a random search over every option: a head of a better class pushed a lower one out for a slot, yet
# its tenant's quota kept it out; the victim came straight back, every iteration, and with prefill-first mixing
# the decoders stalled behind its prefill for ever. A priority preemption now needs the quota's room too.
LIVELOCK_ROWS = [
    ("r0", 3, 12, 5, 2, "b"), ("r1", 4, 8, 2, 0, "b"), ("r2", 4, 10, 8, 1, "a", 30), ("r3", 5, 9, 9, 1, "a"),
    ("r4", 5, 13, 1, 2, "b"), ("r5", 8, 10, 9, 2, "b", 13), ("r6", 8, 2, 6, 1, "a", 37), ("r7", 10, 7, 5, 0, "a"),
    ("r8", 11, 10, 9, 2, "a"), ("r9", 11, 2, 8, 0, "a"), ("r10", 13, 10, 11, 0, "a"), ("r11", 14, 5, 12, 2, "a"),
    ("r12", 17, 4, 11, 1, "b"), ("r13", 17, 6, 10, 2, "b", 33), ("r14", 20, 5, 10, 2, "b"),
    ("r15", 21, 5, 9, 0, "b", 47), ("r16", 21, 11, 10, 2, "b"), ("r17", 21, 1, 1, 0, "a", 47),
    ("r18", 24, 9, 8, 2, "a", 33), ("r19", 25, 10, 3, 0, "b", 34), ("r20", 26, 5, 2, 1, "b", 38),
    ("r21", 27, 10, 4, 2, "a"), ("r22", 28, 1, 8, 2, "b"), ("r23", 29, 6, 12, 1, "a", 41)]


def test_priority_preemption_under_a_tenant_quota_ends():
    keys = ("name", "arrival", "prompt", "output", "priority", "tenant", "cancel_at")
    rows = [dict(zip(keys, row)) for row in LIVELOCK_ROWS]
    schedule = run(rows, Config(14, 2, "prefill", block_size=1, swap_cost=0), order="aging", preemptive_priority=True,
                   tenant_quotas=(("a", 0.5),), mixing="prefill-first", kv_admission="overcommit", preempt="swap",
                   graph_buckets=(1, 2, 4, 8))
    assert all(r.finish_reason in ("finished", "cancelled") for r in schedule.requests)


def test_a_run_past_its_cpu_limit_stops_and_says_how_far_it_came():
    # Speculation's draws make every iteration differ, so none merge: 64 outputs of 200,000 tokens are about 90,000
    # plans, about 10 s here. A web page's run stops at its CPU limit, saying how far it came.
    from sim.core.engine import RunStopped, simulate
    rows = [(f"r{k}", 0, 10, 200_000) for k in range(64)]
    with pytest.raises(RunStopped) as stop:
        simulate(trace(*rows), Config(1024), Policy(spec_tokens=3, spec_accept=0.6), cpu_limit=0.05)
    assert (stop.value.seconds, stop.value.finished, stop.value.total) == (0.05, 0, 64)
    assert 0 < stop.value.now < 200_000
    assert "stopped after 0.05 s of CPU time" in str(stop.value)


def test_a_run_past_its_time_on_the_clock_stops_and_says_the_server_was_busy(monkeypatch):
    # A busy server: its clock runs ten times as fast as the run's CPU time, so the clock's limit (2 s) comes at
    # 0.2 s of CPU time, long before the CPU time's (5 s). The stop says so; a pickled copy (the page's cache, a
    # worker process) keeps it.
    import pickle
    import time
    import types

    from sim.core import engine
    from sim.core.engine import RunStopped, simulate
    busy = types.SimpleNamespace(thread_time=time.thread_time, monotonic=lambda: 10 * time.thread_time())
    monkeypatch.setattr(engine, "time", busy)
    rows, policy = [(f"r{k}", 0, 10, 200_000) for k in range(64)], Policy(spec_tokens=3, spec_accept=0.6)
    with pytest.raises(RunStopped) as stop:
        simulate(trace(*rows), Config(1024), policy, cpu_limit=5, wall_limit=2)
    assert stop.value.seconds == 2 and 0.2 <= stop.value.computed < 1
    assert (stop.value.finished, stop.value.total) == (0, 64) and 0 < stop.value.now < 200_000
    assert "stopped after 2 s on a busy server (0.2" in str(stop.value)
    copy = pickle.loads(pickle.dumps(stop.value))
    assert (copy.seconds, copy.now, copy.finished, copy.total, copy.computed) == (
        2, stop.value.now, 0, 64, stop.value.computed)
    with pytest.raises(RunStopped) as cpu:  # the CPU time's limit first: no `computed`
        simulate(trace(*rows), Config(1024), policy, cpu_limit=0.05, wall_limit=60)
    assert cpu.value.computed is None and "stopped after 0.05 s of CPU time, at" in str(cpu.value)


def test_a_cpu_limit_that_is_not_reached_changes_nothing():
    # about 1,100 plans: the limit is looked at four times
    from sim.core.engine import simulate
    rows, policy = [("A", 0, 3, 3_000), ("B", 5, 2, 1_500)], Policy(spec_tokens=3, spec_accept=0.6)
    free = simulate(trace(*rows), Config(16), policy)
    limited = simulate(trace(*rows), Config(16), policy, cpu_limit=60)
    assert len(free.steps) > 3 * 256
    assert limited.emitted() == free.emitted() and limited.steps == free.steps
