"""Static batching: padded batches, the KV cache, and the options it rejects."""
import pytest

from sim.core.config import Config, ConfigError, Policy
from sim.report.metrics import compute
from tests.conftest import SEED_ROWS
from tests.scheduler_kit import emitted, per_tick, run, segs


def test_static_prefill_over_several_ticks():
    # budget 4: prompts 3 and 2 padded to 3: 6 positions, ceil(6 / 4) = 2 prefill ticks (5 real + 1 padding).
    # t2: both decode (A done); t3: B decodes, A's slot is padding.
    schedule = run([("A", 0, 3, 1), ("B", 0, 2, 2)], Config(4), batching="static")
    assert segs(schedule, "A") == [("prefill", 0, 2, 3), ("decode", 2, 3, 1), ("padding", 3, 4, 1)]
    assert segs(schedule, "B") == [("prefill", 0, 2, 2), ("decode", 2, 4, 2)]
    prefill, padding = per_tick(schedule, "prefill_tokens"), per_tick(schedule, "padding_tokens")
    assert prefill[0] + prefill[1] == 5 and padding[0] + padding[1] == 1
    assert (prefill[2], padding[2], prefill[3], padding[3]) == (0, 0, 0, 1)
    assert compute(schedule).padding_waste == 2


def test_static_batch_limited_by_the_kv_cache():
    # 3 blocks of 3: A reserves all it will hold, ceil((4 + 5 - 1) / 3) = 3, so B cannot join and A runs alone
    # (t0 prefill, t1..t5). At 6 B (1 block) and C (2 blocks) form the next batch: prompts 2, 3 padded to 3
    # (1 padding), decode t7, t8 together, then C alone t9, t10 with B's slot as padding.
    schedule = run(SEED_ROWS, Config(8, kv_blocks=3, block_size=3), batching="static")
    assert segs(schedule, "A") == [("prefill", 0, 1, 4), ("decode", 1, 6, 5)]
    assert segs(schedule, "B") == [("queued", 0, 6, 0), ("prefill", 6, 7, 2), ("decode", 7, 9, 2),
                                   ("padding", 9, 11, 2)]
    assert segs(schedule, "C") == [("queued", 3, 6, 0), ("prefill", 6, 7, 3), ("decode", 7, 11, 4)]
    assert emitted(schedule) == {"A": [2, 3, 4, 5, 6], "B": [8, 9], "C": [8, 9, 10, 11]}
    assert set(per_tick(schedule, "kv_blocks").values()) == {3}
    assert compute(schedule).padding_waste == 3


@pytest.mark.parametrize("option", [dict(chunk_size=4), dict(mixing="prefill-first"),
                                    dict(kv_admission="overcommit"), dict(spec_tokens=1),
                                    dict(tenant_quotas=(("a", 0.5),)), dict(preemptive_priority=True)])
def test_static_rejects_continuous_only_options(option):
    with pytest.raises(ConfigError):
        Policy(batching="static", **option)
