"""Invariants of every combination of the scheduler's options (hypothesis)."""
import math
from dataclasses import replace

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sim.core.config import Config, Policy
from sim.report.export import run_json
from sim.report.metrics import compute
from sim.trace.trace import validate
from tests.scheduler_kit import OVERCOMMIT, OVERCOMMIT_ROWS, PRIORITY_PREEMPT_ROWS, simulate_bounded, trace


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
