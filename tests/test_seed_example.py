"""The design document's worked example, figure for figure (its first acceptance test)."""
import pytest

from sim.core.config import Config
from sim.core.engine import simulate
from sim.report.metrics import compute, inter_token_gaps
from tests.conftest import SEED_ROWS, make_trace

SEED = {
    "static": {"makespan": 11, "padding_waste": 5, "throughput": 1.0, "ttft_c": 5,
               "completion": {"A": 6, "B": 3, "C": 11}},
    "continuous": {"makespan": 8, "padding_waste": 0, "throughput": 1.375, "ttft_c": 2,
                   "completion": {"A": 6, "B": 3, "C": 8}},
}


@pytest.mark.parametrize("policy", SEED)
def test_seed_figures(policy):
    schedule = simulate(make_trace(*SEED_ROWS), Config(token_budget=8), policy)
    metrics = compute(schedule)
    expected = SEED[policy]
    assert metrics.makespan == expected["makespan"]
    assert metrics.padding_waste == expected["padding_waste"]
    assert metrics.throughput == expected["throughput"]
    by_name = {r.name: r for r in metrics.requests}
    assert by_name["C"].ttft == expected["ttft_c"]
    assert {name: r.completion for name, r in by_name.items()} == expected["completion"]
    assert all(r.tpot == 1 for r in metrics.requests)
    assert all(gap == 1 for gaps in inter_token_gaps(schedule) for gap in gaps)
    assert metrics.output_tokens == 11


def test_seed_static_timeline():
    """The seed's story: A and B padded to 4 at t=0, three idle slots after B, C admitted when A is done."""
    schedule = simulate(make_trace(*SEED_ROWS), Config(8), "static")
    a, b, c = schedule.requests
    assert [(s.phase, s.start, s.end, s.tokens) for s in b.segments] == [
        ("prefill", 0, 1, 2), ("decode", 1, 3, 2), ("padding", 3, 6, 3)]
    assert [(s.phase, s.start, s.end) for s in c.segments] == [
        ("queued", 3, 6), ("prefill", 6, 7), ("decode", 7, 11)]
    first = schedule.steps[0]
    assert (first.prefill_tokens, first.padding_tokens, first.decode_tokens) == (6, 2, 0)
    assert schedule.emitted() == [[2, 3, 4, 5, 6], [2, 3], [8, 9, 10, 11]]


def test_seed_continuous_timeline():
    """At t=3 A decodes while C prefills 3 tokens in the same tick, reusing B's slot."""
    schedule = simulate(make_trace(*SEED_ROWS), Config(8), "continuous")
    tick3 = next(s for s in schedule.steps if s.start == 3)
    assert (tick3.prefill_tokens, tick3.decode_tokens, tick3.end) == (3, 1, 4)
    assert schedule.members()[schedule.steps.index(tick3)] == [0, 2]
    metrics = compute(schedule)
    assert [r.queue_time for r in metrics.requests] == [0, 0, 0]


def test_prefill_first_token_mode_shifts_ttft_by_one_tick():
    decode = compute(simulate(make_trace(*SEED_ROWS), Config(8), "continuous"))
    prefill = compute(simulate(make_trace(*SEED_ROWS), Config(8, first_token="prefill"), "continuous"))
    assert [r.ttft for r in prefill.requests] == [r.ttft - 1 for r in decode.requests]
    assert prefill.makespan == 7
