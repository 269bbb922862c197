"""Tenant quotas: a tenant's token-work an iteration within its share of the budget."""
from sim.core.config import Config
from tests.scheduler_kit import emitted, per_tick, run, segs

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
