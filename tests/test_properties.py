"""Invariants of every schedule, on random traces and budgets (hypothesis)."""
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.config import POLICIES, Config
from sim.engine import run, simulate
from sim.export import run_json
from sim.metrics import compute
from sim.policies import make_scheduler
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
def test_the_quick_path_and_the_general_path_agree(scenario):
    """The seed's loop has a quick path through the same steps; forced down the general path (the one every
    option takes), the same trace gives the same schedule."""
    trace, config, policy = scenario
    quick = make_scheduler(policy, trace, config)
    general = make_scheduler(policy, trace, config)
    general.plain = False
    a, b = run(quick), run(general)
    assert run_json(a, compute(a)) == run_json(b, compute(b))
