"""Plan a fleet: which real GPUs, and how many, serve a trace within its SLO (ui/planner.py, sim.report.plan)."""
from functools import partial

import streamlit as st

from sim.core.hardware import GPUS, MODELS
from sim.report.plan import PlanError
from sim.trace.trace import TraceError, write_csv
from ui import lab_state, planner, presenter
from ui.boot import through_app
from ui.i18n import t
from ui.numbers import number
from ui.policy_form import grid
from ui.session import kept, run_button
from ui.tables import show_table

through_app()
lab_state.init()
state = planner.state()

st.title(t("pl_title"))
with presenter.options(t("presenter_options")):  # on a projector, folded: the chart of the plan on the first screen
    st.markdown(t("pl_intro"))
    st.header(t("pl_trace"), divider="gray")
    state.source = kept(st.radio, t("pl_source"), "pl_source", state.source, horizontal=True,
                        options=("generated", "lab"), format_func=lambda k: t(f"pl_source_{k}"))
    trace = None
    if state.source == "generated":
        g1, g2, g3, g4, g5, g6 = grid(6, 6)  # (on a projector two rows of three: every label whole)
        state.requests = kept(g1.number_input, t("pl_requests"), "pl_requests", state.requests, min_value=1,
                              max_value=20000, step=100)
        state.rate = kept(g2.number_input, t("pl_rate"), "pl_rate", state.rate, min_value=0.01, max_value=1000.0,
                          step=1.0)
        lengths = {}
        for place, name, index, most in ((g3, "prompt", 0, 32000), (g4, "prompt", 1, 32000), (g5, "output", 0, 8000),
                                         (g6, "output", 1, 8000)):
            lengths[name, index] = kept(place.number_input, t(f"pl_{name}_{index}"), f"pl_{name}_{index}",
                                        getattr(state, name)[index], min_value=1, max_value=most, step=50)
        state.prompt = lengths["prompt", 0], lengths["prompt", 1]
        state.output = lengths["output", 0], lengths["output", 1]
        if state.prompt[0] > state.prompt[1] or state.output[0] > state.output[1]:
            st.error(t("pl_lengths_order"))
            st.stop()
        trace = state.trace()
    else:
        try:
            trace = lab_state.current_trace()
        except TraceError:
            st.error(t("sw_lab_bad"))
    if trace is not None:
        span_s = max(r.arrival for r in trace) / 1000
        st.caption(t("pl_trace_summary", n=number(len(trace)), span=number(span_s),
                     prompt=number(sum(r.prompt for r in trace) / len(trace)),
                     output=number(sum(r.output for r in trace) / len(trace))))
        st.download_button(t("dl_trace_csv"), partial(write_csv, trace), "plan-trace.csv", "text/csv",
                           key="pl_dl_trace")

    st.header(t("pl_fleet"), divider="gray")
    m1, m2 = st.columns([1, 2], vertical_alignment="center")
    state.model = kept(m1.selectbox, t("cfg_model"), "pl_model", state.model, options=list(MODELS))
    m2.caption(planner.model_caption(state.model))
    # (a multiselect shows its choices on one line, cut where the box ends: each gets the room for all of them)
    state.gpus = kept(st.multiselect, t("pl_gpus_label"), "pl_gpus", state.gpus, options=list(GPUS),
                      placeholder=t("pl_pick"))
    r1, r2 = st.columns(2)  # (two a row: every label whole at 1024 px)
    state.tps = kept(r1.multiselect, t("cfg_tp"), "pl_tps", state.tps, options=list(planner.TPS),
                     placeholder=t("pl_pick"))
    state.budget = kept(r2.selectbox, t("pl_budget"), "pl_budget", state.budget, options=list(planner.BUDGETS),
                        format_func=number)
    state.splits = kept(st.multiselect, t("pl_splits"), "pl_splits", state.splits, options=list(planner.SPLITS),
                        placeholder=t("pl_splits_none"), help=t("pl_splits_help"))
    r3, r4 = st.columns(2, vertical_alignment="center")
    state.replicas = kept(r3.slider, t("pl_replicas"), "pl_replicas", state.replicas, min_value=1, max_value=32)
    state.priced = kept(r4.toggle, t("pl_priced"), "pl_priced", state.priced, help=t("pl_priced_help"))
    if state.priced and state.gpus:
        for column, gpu in zip(st.columns(len(state.gpus)), state.gpus):
            state.prices[gpu] = kept(column.number_input, t("pl_price", gpu=gpu), f"pl_price_{gpu}",
                                     state.prices.get(gpu, 2.0), min_value=0.01, max_value=1000.0, step=0.1)

    st.header(t("pl_slo"), divider="gray")
    s1, s2, s3 = st.columns(3, vertical_alignment="bottom")
    state.slo_ttft = kept(s1.number_input, t("cfg_slo_ttft", unit=t("unit_ms")), "pl_ttft", state.slo_ttft,
                          min_value=0.0, max_value=1e7, step=100.0, help=t("cfg_slo_help"))
    state.slo_tpot = kept(s2.number_input, t("cfg_slo_tpot", unit=t("unit_ms")), "pl_tpot", state.slo_tpot,
                          min_value=0.0, max_value=1e6, step=5.0, help=t("cfg_slo_help"))
    state.target = kept(s3.slider, t("sw_target"), "pl_target", state.target, min_value=50, max_value=100, step=5,
                        format="%d%%", help=t("sw_target_help"))

problems = []
if not state.gpus:
    problems.append(t("pl_no_gpu"))
if not state.tps:
    problems.append(t("pl_no_tp"))
for problem in problems:
    st.error(problem)
ready = trace is not None and not problems
asked = run_button(st, t("pl_run"), "pl_run", type="primary", disabled=not ready)
if ready:
    ask, config = state.ask(), state.config()
    key = planner.digest(trace, ask, config)
    if asked or state.shown is None:
        bar = st.progress(0.0, text=t("pl_running", n=0))
        try:
            state.shown = key, planner.plan(trace, ask, config, lambda n: bar.progress(min(1.0, n / 24),
                                                                                       t("pl_running", n=n)))
        except PlanError as error:
            st.error(t("pl_bad", reason=str(error)))
        bar.empty()
    elif state.shown[0] != key:
        st.warning(t("pl_stale"))
if state.shown is None:
    st.info(t("pl_press_run"))
    st.stop()

found = state.shown[1]
st.header(t("pl_answer_title"), divider="gray")
if not presenter.on():  # (on a projector the picture first, the answer told under it)
    st.markdown(planner.answer(found))
st.plotly_chart(planner.chart(found), key="pl_chart", config={"displaylogo": False})
if presenter.on():
    st.markdown(planner.answer(found))
st.caption(t("pl_chart_caption"))
for label, why in found.unfit.items():
    st.warning(t("pl_unfit", family=label, why=why))
shown = planner.table(found)
show_table(shown, "pl_table", planner.fleet_column(shown), height="content")  # (every row)
st.download_button(t("pl_download"), partial(planner.plan_csv, found), "plan.csv", "text/csv", key="pl_dl")
st.info(t("pl_honest"), icon="⚖️")
