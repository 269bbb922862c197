"""The seed's example with every new option off gives the seed's figures."""
import pytest

from sim.core.config import SLO, STATIC_UNSUPPORTED, Config, Policy
from sim.core.engine import simulate
from sim.report.metrics import compute
from tests.conftest import SEED_ROWS, make_trace

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
