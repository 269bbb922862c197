"""Metrics guide: what each metric means, its formula, drawn on a request of the worked example."""
import streamlit as st

from sim.core.config import Config
from sim.trace.trace import SEED_BUDGET
from ui.boot import through_app
from ui.charts import request_anatomy
from ui.i18n import t
from ui.numbers import number
from ui.runs import run, seed_trace
from ui.tables import metric_label, shown

through_app()

METRICS = ("queue_time", "ttft", "tpot", "throughput", "goodput", "makespan", "padding_waste", "utilization")

st.title(t("guide_title"))
st.markdown(t("guide_intro"))

trace = seed_trace()
c1, c2 = st.columns(2)
policy = c1.radio(t("guide_policy"), ("static", "continuous"), format_func=lambda k: t(f"policy_{k}"),
                  horizontal=True, key="guide_policy")
name = c2.radio(t("guide_request"), [r.name for r in trace], horizontal=True, key="guide_request")
schedule, metrics = run(trace, Config(SEED_BUDGET), policy)
index = [r.name for r in trace].index(name)
st.plotly_chart(request_anatomy(schedule, index, x_max=max(run(trace, Config(SEED_BUDGET), p)[0].makespan
                                                          for p in ("static", "continuous"))), key="guide_anatomy")
r = metrics.requests[index]
values = {"queue_time": r.queue_time, "ttft": r.ttft, "tpot": r.tpot, "throughput": metrics.throughput,
          "goodput": metrics.goodput_requests, "makespan": metrics.makespan, "padding_waste": metrics.padding_waste,
          "utilization": metrics.utilization}

for metric in METRICS:
    with st.container(border=True):
        left, right = st.columns([3, 1])
        left.markdown(f"#### {metric_label(metric)}")
        left.markdown(t(f"guide_{metric}_def"))
        left.latex(t(f"guide_{metric}_formula"))
        left.caption(t(f"guide_{metric}_includes"))
        right.metric(t("guide_here", name=name if metric in ("queue_time", "ttft", "tpot") else t(f"policy_{policy}")),
                     number(shown(metric, values[metric])))  # shares in %, as the heading says

st.subheader(t("guide_fair_title"))
st.markdown(t("guide_fair"))

st.subheader(t("guide_hood_title"))
st.markdown(t("guide_hood"))
