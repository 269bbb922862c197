"""The figures, written as plain dicts and shown unvalidated (for speed), hold to plotly's schema: each one,
passed through plotly's validation, is accepted and comes out the same."""
import json

import plotly.graph_objects as go
import plotly.io
import pytest

from sim.core.config import Config, Policy
from sim.core.engine import simulate
from sim.report.sweep import Entry, knees, sweep
from sim.trace.generate import Uniform, generate
from sim.trace.trace import validate
from ui import charts

ROWS = [{"name": "A", "arrival": 0, "prompt": 4, "output": 5}, {"name": "<b>B</b>", "arrival": 0, "prompt": 2,
                                                                 "output": 6, "cancel_at": 4},
        {"name": "C", "arrival": 3, "prompt": 3, "output": 4}, {"name": "D", "arrival": 1, "prompt": 2, "output": 9}]
RICH = simulate(validate(ROWS), Config(8, kv_blocks=4, block_size=2, swap_cost=1),
                Policy(kv_admission="overcommit", preempt="swap", graph_buckets=(1, 2, 4), chunk_size=2))
STATIC = simulate(validate(ROWS), Config(8), "static")
LONG = simulate(generate(400, rate=0.2, prompt=Uniform(1, 8), output=Uniform(1, 40), seed=1), Config(8), "continuous")


def sweep_rows():
    trace = generate(40, rate=0.5, prompt=Uniform(1, 8), output=Uniform(1, 8), seed=0)
    entries = [Entry("static", Config(8), Policy("static")), Entry("continuous", Config(8), Policy())]
    return sweep(trace, entries, "rate", [0.5, 1.0, 2.0], workers=1)


FIGURES = {
    "gantt": lambda: charts.gantt(RICH, "rich", x_max=RICH.makespan),
    "gantt sampled": lambda: charts.gantt(LONG, "long"),
    "budget": lambda: charts.budget_chart(RICH, "budget"),
    "budget static": lambda: charts.budget_chart(STATIC, "budget"),
    "budget long": lambda: charts.budget_chart(LONG, "many ticks"),
    "load": lambda: charts.load_chart(LONG, "load"),
    "kv": lambda: charts.kv_chart(RICH, "kv", x_max=20),
    "anatomy": lambda: charts.request_anatomy(STATIC, 2),
    "sweep": lambda: charts.sweep_chart((rows := sweep_rows()), ("attainment",), "t", "x", "y",
                                        knees(rows, "attainment", 0.5), target=0.9, scale=100),
}


@pytest.mark.parametrize("name", FIGURES)
def test_every_figure_passes_plotly_validation_unchanged(name):
    figure = FIGURES[name]()
    shown = json.loads(plotly.io.to_json(figure, validate=False))
    validated = json.loads(plotly.io.to_json(go.Figure(figure.to_dict()), validate=False))  # raises on a bad key
    assert shown["data"] == validated["data"]
    assert {k: v for k, v in shown["layout"].items() if k != "template"} == \
        {k: v for k, v in validated["layout"].items() if k != "template"}
    assert shown["data"] and all(trace["type"] in ("bar", "scatter") for trace in shown["data"])
