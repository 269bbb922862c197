"""The linear cost model: iteration times in ms from the tokens and sequences."""
from sim.core.config import Config, CostModel
from sim.report.metrics import compute
from tests.scheduler_kit import emitted, run, segs


def test_linear_cost_model():
    # ms = 2 + 0.5 x prefill tokens + 1 x decoding sequences (no attention term).
    # [0, 4): A prefills 4 (2 + 2). B arrives at 3 and waits. [4, 8): A decodes, B prefills 2 (2 + 1 + 1).
    # [8, 12): both decode (2 + 2). C arrives at 20 on an idle server: [20, 22.5) prefill 1, [22.5, 25.5) decode.
    cost = CostModel("linear", c0=2.0, c_prefill=0.5, c_decode=1.0, c_attn=0.0)
    schedule = run([("A", 0, 4, 2), ("B", 3, 2, 1), ("C", 20, 1, 1)], Config(8, cost=cost))
    assert [(s.start, s.end) for s in schedule.steps] == [(0, 4), (4, 8), (8, 12), (20, 22.5), (22.5, 25.5)]
    assert segs(schedule, "A") == [("prefill", 0, 4, 4), ("decode", 4, 12, 2)]
    assert segs(schedule, "B") == [("queued", 3, 4, 0), ("prefill", 4, 8, 2), ("decode", 8, 12, 1)]
    assert emitted(schedule) == {"A": [8, 12], "B": [12], "C": [25.5]}
    metrics = compute(schedule)
    assert (metrics.unit, metrics.makespan) == ("ms", 25.5)
    assert [r.ttft for r in metrics.requests] == [8, 9, 5.5]
