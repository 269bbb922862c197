"""Invariants of every schedule, on random traces and budgets (hypothesis)."""
from dataclasses import replace

from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from sim.core.config import ORDERS, POLICIES, PREEMPT, PRESETS, VICTIMS, Config, CostModel, Policy
from sim.core.engine import run, simulate
from sim.core.policies import make_scheduler
from sim.report.export import run_json
from sim.report.metrics import compute
from sim.trace.trace import validate
from tests.conftest import make_trace


@st.composite
def scenarios(draw):
    budget = draw(st.integers(1, 24))
    n = draw(st.integers(1, 30))
    arrivals = sorted(draw(st.lists(st.integers(0, 40), min_size=n, max_size=n)))
    rows = [(f"r{i}", a, draw(st.integers(1, budget)), draw(st.integers(1, 15))) for i, a in enumerate(arrivals)]
    max_seqs = draw(st.none() | st.integers(1, 12))
    config = Config(budget, max_seqs, draw(st.sampled_from(("decode", "prefill"))))
    return make_trace(*rows), config, draw(st.sampled_from(POLICIES))


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_schedule_invariants(scenario):
    trace, config, policy = scenario
    schedule = simulate(trace, config, policy)
    prefill_emits = config.first_token == "prefill"
    for request, timeline, times in zip(trace, schedule.requests, schedule.emitted()):
        assert len(times) == request.output  # exactly its output tokens
        assert times == sorted(set(times))  # one token per tick at most
        assert times[0] > request.arrival  # nothing before it arrives
        prefill_end = max(s.end for s in timeline.segments if s.phase == "prefill")
        assert times[0] == prefill_end if prefill_emits else times[0] > prefill_end
        assert sum(s.tokens for s in timeline.segments if s.phase == "prefill") == request.prompt
        assert timeline.completion == times[-1] and timeline.first_token == times[0]
        assert timeline.segments[0].start == request.arrival
        assert all(a.end == b.start for a, b in zip(timeline.segments, timeline.segments[1:]))
    limit = min(config.token_budget, config.max_seqs or config.token_budget)
    for step, members in zip(schedule.steps, schedule.members()):
        assert step.token_work <= config.token_budget
        assert step.running == len(members) <= limit
        assert step.end - step.start == step.iterations
    assert all(a.end <= b.start for a, b in zip(schedule.steps, schedule.steps[1:]))
    metrics = compute(schedule)
    assert metrics.prefill_tokens == sum(r.prompt for r in trace)
    assert metrics.decode_tokens == sum(r.output for r in trace) - prefill_emits * len(trace)
    if policy == "continuous":
        assert metrics.padding_waste == 0


@settings(max_examples=50, deadline=None)
@given(scenarios())
def test_same_input_same_schedule(scenario):
    trace, config, policy = scenario
    first = simulate(trace, config, policy)
    second = simulate(trace, config, policy)
    assert run_json(first, compute(first)) == run_json(second, compute(second))


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_the_seed_loop_merged_and_one_tick_at_a_time_agree(scenario):
    """With no option on, the seed's loop gives the same schedule merging identical ticks as planning one tick
    at a time (the one path every option takes)."""
    trace, config, _ = scenario
    a = run(make_scheduler("continuous", trace, config))
    c = run(make_scheduler("continuous", trace, config), max_repeat=1)
    assert run_json(a, compute(a)) == run_json(c, compute(c))


@st.composite
def option_scenarios(draw):
    """Random traces with priorities and cancels, under random scheduler options (KV cache, chunking,
    preemption, orders, timeouts, graph buckets, speculation)."""
    budget = draw(st.integers(2, 16))
    n = draw(st.integers(1, 20))
    arrivals = sorted(draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)))
    batching = draw(st.sampled_from(POLICIES))
    chunk = draw(st.none() | st.integers(1, budget)) if batching == "continuous" else None
    rows = []
    for i, a in enumerate(arrivals):
        prompt = draw(st.integers(1, 3 * budget if chunk else budget))
        cancel = draw(st.none() | st.integers(a, a + 30))
        rows.append({"name": f"r{i}", "arrival": a, "prompt": prompt, "output": draw(st.integers(1, 12)),
                     "priority": draw(st.integers(0, 2)), "deadline": a + draw(st.integers(0, 40)),
                     "cancel_at": cancel, "tenant": draw(st.sampled_from(("a", "b"))),
                     "read_rate": draw(st.none() | st.sampled_from((0.25, 0.5, 1.0, 3.0))),
                     "disconnect_at": draw(st.none() | st.integers(a, a + 40)),
                     "hash_ids": draw(st.sampled_from(CHAINS))[:prompt]})  # (a block a token, at most)
    cost = draw(st.sampled_from((CostModel(), CostModel("linear", c0=2.0, c_prefill=0.5, c_decode=1.0, c_attn=0.0),
                                 CostModel("linear", c0=2.0, c_prefill=0.5, c_decode=1.0, c_attn=0.01))))
    block_size = draw(st.integers(1, 4))
    config = Config(budget, draw(st.none() | st.integers(1, 8)), draw(st.sampled_from(("decode", "prefill"))),
                    kv_blocks=draw(st.none() | st.integers(4, 40)), block_size=block_size,
                    swap_cost=draw(st.integers(0, 3)), cost=cost, prefix_block=block_size)
    caching = batching == "continuous" and config.kv_blocks is not None and draw(st.booleans())
    common = {"order": draw(st.sampled_from([o for o in ORDERS if caching or o != "lpm"])),
              "timeout": draw(st.none() | st.integers(1, 40)),
              "graph_buckets": draw(st.sampled_from(((), (1, 2, 4, 8)))), "preempt": draw(st.sampled_from(PREEMPT)),
              "victim": draw(st.sampled_from(VICTIMS))}
    if batching == "continuous":
        common |= {"chunk_size": chunk, "mixing": draw(st.sampled_from(("decode-first", "prefill-first"))),
                   "kv_admission": draw(st.sampled_from(("reserve", "overcommit", "chunk"))),
                   "preemptive_priority": draw(st.booleans()), "spec_tokens": draw(st.integers(0, min(3, budget - 1))),
                   "spec_accept": draw(st.sampled_from((0.0, 0.6, 1.0))),
                   "tenant_quotas": draw(st.sampled_from(((), (("a", 0.5),), (("a", 0.5), ("b", 0.25))))),
                   "stream_credits": draw(st.none() | st.integers(4, 8)), "release_paused": False}
        if common["stream_credits"] is not None:
            common["release_paused"] = draw(st.booleans())
        common["prefix_cache"] = caching
        # (a preset's prefill is whole or cut to the budget: prompts drawn for a chunk size stay apart)
        preset = draw(st.sampled_from(("",) * 6 + PRESETS[1:])) if config.kv_blocks and chunk is None else ""
        if preset == "nano-vllm" and max(r["prompt"] + r["output"] - 1 for r in rows) > budget:
            preset = ""  # (nano-vllm needs a budget that holds the longest request: a ConfigError says so)
        if preset:  # a preset sets its own rules: only what it leaves to the user stays
            common = {"preset": preset, "timeout": common["timeout"]}
    return validate(rows), config, Policy(batching, **common)


# Prompts that share their first blocks: one of three chains of prefix-block ids (or none).
CHAINS = ([], [1, 2, 3, 4, 5, 6, 7, 8] * 6, [1, 2, 3, 9, 10, 11] * 8, [12, 13, 14, 15] * 12)



@st.composite
def prefill_first_scenarios(draw):
    """option_scenarios under prefill-first mixing, with outputs long enough that decoders outlive many pauses."""
    trace, config, policy = draw(option_scenarios())
    longer = validate([{"name": r.name, "arrival": r.arrival, "prompt": r.prompt,
                        "output": r.output * draw(st.integers(1, 4)), "priority": r.priority,
                        "deadline": r.deadline, "cancel_at": r.cancel_at, "tenant": r.tenant} for r in trace])
    return longer, config, replace(policy, batching="continuous", mixing="prefill-first", preset="")


@settings(max_examples=150, deadline=None)
@given(prefill_first_scenarios())
def test_prefill_first_pauses_merged_and_one_tick_at_a_time_agree(scenario):
    """A prefill-first pause is noted once for every decoder (sim.core.request.Pauses): the schedule is the
    same merging ticks as planning one at a time."""
    trace, config, policy = scenario
    a = run(make_scheduler(policy, trace, config))
    c = run(make_scheduler(policy, trace, config), max_repeat=1)
    assert [r.segments for r in a.requests] == [r.segments for r in c.requests]
    assert run_json(a, compute(a)) == run_json(c, compute(c))


def _rows(*rows):
    return validate([dict(zip(("name", "arrival", "prompt", "output", "priority"), row)) for row in rows])


# Found by this test, kept: a priority preemption that freed a slot its head could not use for lack of budget
# (the victim came straight back); a growth preemption that pushed out a better class, which pushed back; a
# recompute right after its preemption, merged into the prefill it repeated.
PRIORITY = Policy("continuous", order="priority", preemptive_priority=True)


@settings(max_examples=400, deadline=None)
@given(option_scenarios())
@example((_rows(("a", 0, 1, 1), ("b", 0, 2, 1), ("c", 0, 1, 1, 1), ("d", 0, 1, 1), ("e", 0, 1, 1)), Config(2),
          Policy("continuous", order="fcfs-skip", preemptive_priority=True)))
@example((_rows(("a", 0, 1, 1), ("b", 0, 3, 9, 1), ("c", 0, 1, 1), ("d", 0, 1, 1), ("e", 8, 1, 2)),
          Config(3, None, "prefill", kv_blocks=13, block_size=1), replace(PRIORITY, kv_admission="overcommit")))
@example((_rows(*((f"r{i}", 0, 1, 1, 1 if i in (0, 2, 3, 4, 5) else 0) for i in range(6)), ("r8", 1, 1, 1),
                ("r9", 2, 1, 1)), Config(4), replace(PRIORITY, spec_tokens=1)))
# A chunk's blocks preempted a request not yet planned, and the same plan admitted the victim again.
@example((_rows(("A", 0, 6, 2), ("B", 1, 5, 1)), Config(3, 2, kv_blocks=7, block_size=1),
          Policy("continuous", chunk_size=1, kv_admission="chunk", victim="latest")))
def test_invariants_with_every_option(scenario):
    trace, config, policy = scenario
    schedule = simulate(trace, config, policy)
    limit = min(config.token_budget, config.max_seqs or config.token_budget)
    victims = {}
    for time, kind, index in schedule.events:
        if kind in ("preempt", "swap_out"):
            victims.setdefault(time, set()).add(index)
    for step, members in zip(schedule.steps, schedule.members()):
        assert step.token_work <= config.token_budget  # the token budget is never exceeded
        # nor the sequence limit (nano-vllm's bounds each step's batch, not the running set)
        assert step.running == len(members) <= limit or policy.preset == "nano-vllm"
        assert step.decode_sequences <= limit
        if config.kv_blocks is not None:
            assert 0 <= step.kv_blocks <= config.kv_blocks  # KV blocks in use never above capacity
        # a victim never comes straight back: a plan that preempted admits nobody (vLLM's `if not preempted_reqs`).
        # (A preemptive priority class pushes out victims so that its head comes in at once: there a victim may
        # come back in the same plan, behind the head, when what the head left is room enough.)
        assert policy.preemptive_priority or not {c for c in step.changes if c >= 0} & victims.get(step.start, set())
    emitted = schedule.emitted()
    preempted = {}
    for time, kind, index in schedule.events:
        if kind == "preempt":
            preempted.setdefault(index, []).append(time)
    for request, timeline, times in zip(trace, schedule.requests, emitted):
        work = [s for s in timeline.segments if s.phase in ("prefill", "decode")]
        assert all(s.start >= request.arrival for s in timeline.segments)  # nothing before it arrives
        if timeline.finish_reason == "finished":
            assert len(times) == request.output  # exactly its output tokens
            assert timeline.completion == times[-1]
            stops = preempted.get(trace.requests.index(request), [])
            # each recompute prefills again its prompt plus the tokens generated before it was preempted (less
            # what the prefix cache held, when it held any)
            recomputed = sum(request.prompt + sum(1 for t in times if t <= at) for at in stops)
            last = max(stops, default=-1)
            again = sum(s.tokens for s in work if s.phase == "prefill" and s.start >= last)
            if not timeline.cached:
                assert timeline.recomputed == recomputed
                assert again == request.prompt + sum(1 for t in times if t <= last)
            else:
                assert 0 <= timeline.recomputed <= recomputed and timeline.cached <= timeline.queried
                assert again <= request.prompt + sum(1 for t in times if t <= last)
        elif timeline.finish_reason in ("cancelled", "disconnected"):
            assert timeline.cancel_time is not None and len(times) <= request.output
        else:
            assert timeline.finish_reason == "rejected" and not work and timeline.reject_reason
    metrics = compute(schedule)
    assert metrics.finished + metrics.cancelled + metrics.disconnected + metrics.rejected == len(trace)
    assert metrics.preemptions == sum(t.preemptions for t in schedule.requests)


@settings(max_examples=200, deadline=None)
@given(option_scenarios())
# Found by this test. A merged run held admission for every tick of an iteration that had just preempted
# (one tick at a time, the next tick admits again) ...
@example((_rows(*((f"r{i}", 0, 1, 1) for i in range(4)), ("r4", 0, 4, 5), ("r5", 0, 1, 3),
                *((f"r{i}", 0, 1, 1) for i in range(6, 20))),
          Config(5, kv_blocks=4, block_size=3, swap_cost=0), Policy(order="fcfs-skip", kv_admission="overcommit")))
# ... and, with prefill-first mixing, judged an arrival against the budget the decodes leave, not the whole.
@example((_rows(("r0", 0, 1, 1), ("r1", 0, 1, 1), ("r2", 2, 1, 4), *((f"r{i}", 2, 1, 1) for i in range(3, 6)),
                ("r6", 5, 4, 1), *((f"r{i}", 6, 1, 1) for i in range(7, 15))),
          Config(4), Policy(mixing="prefill-first")))
# Stops seen at one time are listed in trace order, however late a merged plan sees them.
# With tenant quotas, an arrival that could come in did not end a merged run (B waited until A was done) ...
@example((validate([{"name": "A", "arrival": 0, "prompt": 1, "output": 5, "tenant": "a"},
                    {"name": "B", "arrival": 2, "prompt": 1, "output": 1, "tenant": "b"}]),
          Config(4), Policy(tenant_quotas=(("a", 0.5),))))
# ... nor did a waiting request's stop, which unblocks the head of a strict FCFS queue (C waited behind B).
@example((validate([{"name": "A", "arrival": 0, "prompt": 1, "output": 6},
                    {"name": "B", "arrival": 0, "prompt": 4, "output": 1, "cancel_at": 2},
                    {"name": "C", "arrival": 0, "prompt": 1, "output": 1}]), Config(4), Policy(order="fcfs")))
@example((_rows(("r0", 0, 1, 1), ("r1", 11, 1, 1), ("r2", 11, 2, 4), ("r3", 12, 1, 4),
                *((f"r{i}", 12, 1, 1) for i in range(4, 9))), Config(2), Policy("static", timeout=8)))
# Under lpm, an arrival whose prefix the cache holds sorts ahead of the head that blocks: it cuts a merged run
# (r15 came in a tick late; r1, gone at 0, leaves the room).
@example((validate([*({"name": f"r{i}", "arrival": 0, "prompt": 1, "output": {2: 4, 4: 3}.get(i, 1),
                       "hash_ids": [1] if i == 0 else None, "disconnect_at": 0 if i == 1 else None} for i in range(15)),
                    {"name": "r15", "arrival": 3, "prompt": 1, "output": 1, "hash_ids": [1]}]),
          Config(3, kv_blocks=6, block_size=1, prefix_block=1), Policy(order="lpm", prefix_cache=True)))
def test_merged_ticks_equal_one_tick_at_a_time_with_every_option(scenario):
    """Merging a run of identical iterations into one event is an optimisation only: the same scheduler,
    planning every iteration on its own, gives the same schedule."""
    trace, config, policy = scenario
    merged = simulate(trace, config, policy)
    single = run(make_scheduler(policy, trace, config), max_repeat=1)
    assert run_json(merged, compute(merged)) == run_json(single, compute(single))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(0, 50) | st.floats(0, 50, allow_nan=False), st.integers(0, 20), max_size=12))
def test_weighted_percentiles_equal_the_listed_ones(counts):
    from sim.report.metrics import percentiles, weighted_percentiles

    listed = [value for value, n in counts.items() for _ in range(n)]
    assert weighted_percentiles(counts) == percentiles(listed)


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.booleans())
def test_emitted_ranges_list_the_same_ticks_and_gaps(scenario, preempting):
    """emitted() keeps a run of consecutive ticks as a range; as lists, its ticks and gap counts are the same."""
    from collections import Counter

    from sim.report.metrics import gap_counts

    trace, config, policy = scenario
    if preempting:  # a paged cache small enough to preempt: requests then emit in several pieces
        config = Config(config.token_budget, config.max_seqs, config.first_token, kv_blocks=6, block_size=4)
        policy = Policy(kv_admission="overcommit", preempt="recompute")  # reserving blocks never preempts
    schedule = simulate(trace, config, policy)
    if preempting:
        event("preempted" if any(r.preemptions for r in schedule.requests) else "not preempted")
    assert [list(times) for times in schedule.emitted(compact=True)] == schedule.emitted()
    for times, request in zip(schedule.emitted(), schedule.requests):
        listed = list(times)
        assert listed == sorted(listed)
        if request.finish_reason == "finished":
            assert len(listed) == request.output and listed[0] == request.first_token
            assert listed[-1] == request.completion
    gaps = Counter(b - a for times in schedule.emitted() for a, b in zip(times, times[1:]))
    assert gap_counts(schedule.emitted(compact=True)) == +gaps
