"""Agreement with the seed's own reference simulator (../shared/reference) on hundreds of random traces."""
import importlib.util
import random

import pytest

from sim.core.config import Config
from sim.core.engine import simulate
from sim.report.metrics import compute
from tests.conftest import make_trace, shared_path


@pytest.fixture(scope="module")
def seed():
    path = shared_path("reference", "seed_simulator.py")
    spec = importlib.util.spec_from_file_location("seed_simulator", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_trace(rng: random.Random, budget: int, most: int):
    n = rng.randint(1, most)
    arrivals = sorted(rng.randint(0, 20) for _ in range(n))
    return [(f"r{i}", a, rng.randint(1, budget), rng.randint(1, 12)) for i, a in enumerate(arrivals)]


def compare(seed, policy, rows, budget):
    seed.CAPACITY = budget
    reqs = [seed.Request(*row) for row in rows]
    run = seed.static_batching if policy == "static" else seed.continuous_batching
    seed_reqs, seed_metrics = run(reqs)
    schedule = simulate(make_trace(*rows), Config(token_budget=budget), policy)
    ours = compute(schedule)
    assert ours.makespan == seed_metrics["makespan"]
    assert ours.padding_waste == seed_metrics["padding_waste"]
    assert ours.throughput == pytest.approx(seed_metrics["throughput"])
    assert schedule.emitted() == [r.emitted for r in seed_reqs]
    for r in ours.requests:
        assert r.ttft == seed_metrics["ttft"][r.name]
        assert r.tpot == pytest.approx(seed_metrics["tpot"][r.name])
        assert r.completion == seed_metrics["completion"][r.name]


def test_continuous_matches_reference(seed):
    rng = random.Random(2024)
    for _ in range(250):
        budget = rng.randint(1, 16)
        compare(seed, "continuous", random_trace(rng, budget, 25), budget)


def test_static_matches_reference_where_its_batches_fit_the_budget(seed):
    """The seed's static batches every ready request and so may exceed the budget; with at most `budget`
    requests in a trace no batch can, and there the two must agree exactly."""
    rng = random.Random(7)
    for _ in range(250):
        budget = rng.randint(1, 16)
        compare(seed, "static", random_trace(rng, budget, budget), budget)
