"""Home's picture of the worked example and its words: every figure read from the two runs, in the one form."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from sim.core.config import Config
from sim.core.schedule import Schedule
from sim.report.metrics import Metrics
from sim.trace.trace import SEED_BUDGET

from . import panels
from .i18n import t
from .lessons import topics
from .numbers import number, quantity, share
from .runs import run, seed_trace

POLICIES = ("static", "continuous")
PAGES = (("worked_example", "🧮"), ("costs", "💸"), ("trace_lab", "🧪"), ("capacity_lab", "📈"),
         ("many_servers", "🗄️"), ("planner", "🧭"), ("real_model", "🤖"), ("metrics_guide", "📏"))


def seed_runs() -> dict[str, tuple[Schedule, Metrics]]:
    """The seed trace under static and continuous batching (cached: ui/runs.py)."""
    trace = seed_trace()
    return {policy: run(trace, Config(SEED_BUDGET), policy) for policy in POLICIES}


def intro() -> str:
    """The page's opening, naming the seed's requests as (arrival, prompt, output) and its budget."""
    requests = t("list_sep").join(f"{r.name}=({number(r.arrival)},{number(r.prompt)},{number(r.output)})"
                                  for r in seed_trace())
    return t("home_intro", requests=requests, budget=number(SEED_BUDGET))


def gantts(runs: dict[str, tuple[Schedule, Metrics]]) -> go.Figure:
    """Both runs' Gantt charts, one above the other on one time axis."""
    return panels.gantts([(t(f"policy_{policy}"), schedule) for policy, (schedule, _) in runs.items()],
                         t("home_gantt"))


def caption(policy: str, metrics: Metrics) -> str:
    return t("home_caption", policy=t(f"policy_{policy}"), makespan=quantity(metrics.makespan, "tick"),
             waste=number(metrics.padding_waste), throughput=number(metrics.throughput))


def after(runs: dict[str, tuple[Schedule, Metrics]]) -> str:
    """What continuous batching did better, in the runs' figures."""
    static, continuous = (metrics for _, metrics in runs.values())
    c_static, c = (next(r for r in m.requests if r.name == "C") for m in (static, continuous))
    return t("home_after", arrival=number(c.arrival), sooner=quantity(c_static.ttft - c.ttft, "tick"),
             end=number(continuous.makespan), end_static=number(static.makespan),
             more=share(continuous.throughput / static.throughput - 1), throughput=number(continuous.throughput),
             throughput_static=number(static.throughput))


def links() -> None:
    """A link to every other page, each saying what the page holds (the cost page: every lesson)."""
    with st.container(key="home_links"):
        for page, icon in PAGES:
            label = t("home_link_costs", topics=topics()) if page == "costs" else t(f"home_link_{page}")
            st.page_link(f"pages/{page}.py", label=label, icon=icon)
