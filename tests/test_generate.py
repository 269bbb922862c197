"""Tests of the seeded trace generators: distributions, arrival processes, generate and resample."""
import random
import statistics
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.trace.generate import Fixed, LogNormal, Uniform, bursty, generate, poisson, resample
from sim.trace.trace import Trace, validate

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"


def gaps(ticks):
    return [b - a for a, b in pairwise(ticks)]


def cv(values):
    """Coefficient of variation: 1 for exponential gaps, 1/sqrt(shape) for gamma ones."""
    return statistics.pstdev(values) / statistics.fmean(values)


def test_generate_is_deterministic_for_a_seed():
    args = {"n": 500, "rate": 0.7, "prompt": LogNormal(300, 1.0), "output": Uniform(5, 50), "burstiness": 0.5}
    assert generate(**args, seed=3) == generate(**args, seed=3)
    assert generate(**args, seed=3) != generate(**args, seed=4)


def test_names_are_zero_padded_to_the_width_of_n():
    trace = generate(1000, 2.0, Fixed(4), Fixed(5))
    assert [r.name for r in trace][:2] == ["r0001", "r0002"]
    assert trace.requests[-1].name == "r1000"
    assert [r.name for r in generate(3, 1.0, Fixed(1), Fixed(1), prefix="q")] == ["q1", "q2", "q3"]


def test_first_request_arrives_at_tick_0_and_arrivals_are_sorted():
    trace = generate(2000, 0.3, Fixed(4), Fixed(5), burstiness=0.2, seed=9)
    arrivals = [r.arrival for r in trace]
    assert arrivals[0] == 0
    assert arrivals == sorted(arrivals) and not trace.reordered
    assert [r.arrival for r in generate(1, 1.0, Fixed(1), Fixed(1))] == [0]


def test_lengths_do_not_move_the_arrivals():
    # One random stream per quantity: an A/B of output lengths keeps the same arrivals and prompts.
    a = generate(300, 1.0, Uniform(1, 100), Fixed(5), seed=1)
    b = generate(300, 1.0, Uniform(1, 100), LogNormal(50, 2.0), seed=1)
    assert [(r.arrival, r.prompt) for r in a] == [(r.arrival, r.prompt) for r in b]


@given(st.integers(1, 10**6), st.integers(0, 10**6), st.integers(0, 2**32))
def test_uniform_stays_within_its_inclusive_bounds(low, extra, seed):
    rng = random.Random(seed)
    dist = Uniform(low, low + extra)
    assert all(low <= dist.sample(rng) <= low + extra for _ in range(20))


@given(st.floats(0.5, 1e6), st.floats(0, 100), st.integers(1, 50), st.none() | st.integers(50, 10**5),
       st.integers(0, 2**32))
def test_lognormal_stays_within_its_clip(median, sigma, low, high, seed):
    rng = random.Random(seed)
    dist = LogNormal(median, sigma, low, high)
    top = high if high is not None else 10**7
    assert all(low <= dist.sample(rng) <= top for _ in range(20))


def test_distributions_hit_their_ends_and_centre():
    rng = random.Random(0)
    assert {Uniform(1, 3).sample(rng) for _ in range(200)} == {1, 2, 3}
    assert {Fixed(7).sample(rng) for _ in range(10)} == {7}
    assert {LogNormal(40.4, 0).sample(rng) for _ in range(10)} == {40}
    samples = [LogNormal(200, 1.0).sample(rng) for _ in range(20001)]
    assert 180 <= statistics.median(samples) <= 220


@pytest.mark.parametrize("make, field", [
    (lambda: Fixed(0), "value"), (lambda: Fixed(2.5), "value"), (lambda: Fixed(True), "value"),
    (lambda: Uniform(0, 3), "low"), (lambda: Uniform(5, 4), "high"),
    (lambda: LogNormal(0, 1), "median"), (lambda: LogNormal(float("nan"), 1), "median"),
    (lambda: LogNormal(10, -1), "sigma"), (lambda: LogNormal(10, 1, low=0), "low"),
    (lambda: LogNormal(10, 1, low=5, high=4), "high"),
])
def test_bad_distributions_name_the_field(make, field):
    with pytest.raises(ValueError, match=field):
        make()


def test_poisson_gaps_have_the_right_mean_and_spread():
    ticks = poisson(20001, 0.01, random.Random(5))
    assert 95 <= statistics.fmean(gaps(ticks)) <= 105
    assert 0.9 <= cv(gaps(ticks)) <= 1.1


@pytest.mark.parametrize("burstiness, low, high", [(0.25, 1.8, 2.2), (1.0, 0.9, 1.1), (4.0, 0.45, 0.55)])
def test_gamma_burstiness_sets_the_spread_but_not_the_rate(burstiness, low, high):
    ticks = bursty(20001, 0.01, burstiness, random.Random(6))
    assert 90 <= statistics.fmean(gaps(ticks)) <= 110
    assert low <= cv(gaps(ticks)) <= high


def test_fast_rates_put_several_requests_in_one_tick():
    ticks = poisson(1001, 5.0, random.Random(0))
    assert 190 <= ticks[-1] <= 210
    assert max(ticks.count(t) for t in set(ticks)) > 5


@pytest.mark.parametrize("kwargs, field", [
    ({"n": 0}, "n"), ({"n": 1_000_001}, "n"), ({"n": 2.0}, "n"),
    ({"rate": 0}, "rate"), ({"rate": -1}, "rate"), ({"rate": float("inf")}, "rate"),
    ({"rate": float("nan")}, "rate"), ({"rate": 10**400}, "rate"), ({"burstiness": 0}, "burstiness"),
    ({"burstiness": float("inf")}, "burstiness"), ({"prompt": 8}, "prompt"), ({"output": None}, "output"),
    ({"rate": 1e-9}, "rate"), ({"prefix": "x" * 100}, "prefix"),
])
def test_bad_generate_arguments_raise_value_errors(kwargs, field):
    args = {"n": 10, "rate": 1.0, "prompt": Fixed(4), "output": Fixed(5)} | kwargs
    with pytest.raises(ValueError, match=field):
        generate(**args)


def small_trace():
    rows = [("a", 0, 10, 1), ("b", 3, 20, 2), ("c", 3, 30, 3), ("d", 10, 40, 4)]
    return validate([{"name": n, "arrival": t, "prompt": p, "output": o} for n, t, p, o in rows])


def test_resample_draws_every_quantity_from_the_source():
    source = small_trace()
    trace = resample(source, 2000, seed=2)
    assert len(trace) == 2000 and trace.requests[0].arrival == 0
    assert {r.prompt for r in trace} == {10, 20, 30, 40}
    assert {r.output for r in trace} == {1, 2, 3, 4}
    assert set(gaps([r.arrival for r in trace])) == {0, 3, 7}
    assert resample(source, 50, seed=1) == resample(source, 50, seed=1) != resample(source, 50, seed=2)


def test_resample_needs_gaps_and_a_valid_n():
    one = small_trace().requests[:1]
    with pytest.raises(ValueError, match="at least 2"):
        resample(Trace(one), 10)
    with pytest.raises(ValueError, match="n"):
        resample(small_trace(), 0)
    assert [r.arrival for r in resample(small_trace(), 1)] == [0]


def test_resample_makes_a_100k_trace_shaped_like_azure_conv():
    path = TRACES / "AzureLLMInferenceTrace_conv.csv"
    if not path.exists():
        pytest.skip(f"real traces not present at {TRACES}")
    from sim.trace.importers import import_azure

    source = import_azure(path.read_text()).trace
    trace = resample(source, 100_000, seed=0)
    assert len(trace) == 100_000 and trace.requests[-1].name == "r100000"
    assert {r.prompt for r in trace} <= {r.prompt for r in source}
    # 19,365 one-second gaps averaging 0.18 s, so 100,000 requests span about 18,000 ticks.
    assert 17_000 <= trace.requests[-1].arrival <= 19_500
