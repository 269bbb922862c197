"""CUDA-graph buckets: decode batches padded up to a captured size."""
import pytest

from sim.core.config import Config
from sim.report.metrics import compute
from tests.conftest import SEED_ROWS
from tests.scheduler_kit import emitted, per_tick, run

GRAPH_ROWS = [("A", 0, 1, 4), ("B", 0, 1, 3), ("C", 0, 1, 1), ("D", 1, 1, 1)]


@pytest.mark.parametrize(("buckets", "padding"), [
    # decoders a tick: t1 3 (+ D's prefill: not padded), t2 3 (A, B, D), t3 2 (A, B), t4 1 (A).
    ((2, 4), {0: 0, 1: 0, 2: 1, 3: 0, 4: 1}),
    ((2,), {0: 0, 1: 0, 2: 0, 3: 0, 4: 1}),  # 3 decoders is above the largest bucket: not padded
])
def test_graph_padding_on_continuous(buckets, padding):
    schedule = run(GRAPH_ROWS, Config(8), graph_buckets=buckets)
    assert per_tick(schedule, "decode_tokens") == {0: 0, 1: 3, 2: 3, 3: 2, 4: 1}
    assert per_tick(schedule, "graph_padding") == padding
    assert compute(schedule).graph_padding == sum(padding.values())


def test_graph_padding_on_static():
    # The seed's static timeline: batch {A, B} prefills at t0 and decodes t1..t5 (B's finished slot is padding
    # from t3, still a slot of the 2-wide batch), padded to bucket 4: 2 a tick; C alone prefills at t6 and
    # decodes t7..t10: 3 a tick. Prefill ticks are not padded.
    schedule = run(SEED_ROWS, Config(8), batching="static", graph_buckets=(4,))
    expected = {0: 0, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 0, 7: 3, 8: 3, 9: 3, 10: 3}
    assert per_tick(schedule, "graph_padding") == expected
    assert compute(schedule).graph_padding == 22
    assert emitted(schedule) == {"A": [2, 3, 4, 5, 6], "B": [2, 3], "C": [8, 9, 10, 11]}
