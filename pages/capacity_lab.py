"""Capacity lab: two to four policies swept over one parameter; goodput, SLO attainment and the knee."""
from functools import partial

import streamlit as st

from sim.core.config import CostModel
from sim.core.hardware import GPUS, MODELS
from sim.report.sweep import MAX_POINTS, knees, sweep_csv
from sim.trace.trace import TraceError, write_csv
from ui import capacity, cost_profile, lab_state, presenter
from ui.boot import through_app
from ui.charts import sweep_chart
from ui.i18n import t
from ui.numbers import number
from ui.policy_form import roofline_words
from ui.problems import show_problems
from ui.session import kept, run_button
from ui.tables import show_table
from ui.text import md_escape
from ui.trace_sources import generator_tab, show_source_error, upload_tab

through_app()
lab_state.init()
state = capacity.init_state()

st.title(t("sw_title"))
st.markdown(t("sw_intro"))
# On a projector the trace, the policies and the sweep fold away: the Run button, what is wrong, the knees and the
# charts stay in view.
with presenter.options(t("presenter_options")):
    st.info(t("sw_default_note"), icon="🎯")

    st.header(t("sw_trace"), divider="gray")
    with st.container(horizontal=True):
        st.button(t("sw_prefix_example"), icon="🧩", key="sw_prefix_example", on_click=capacity.load_prefix_example,
                  help=t("sw_prefix_example_help"))
        st.button(t("sw_split_example"), icon="🔀", key="sw_split_example", on_click=capacity.load_split_example,
                  help=t("sw_split_example_help"))
    source = state.source = kept(st.radio, t("sw_source"), "sw_source", state.source, horizontal=True,
                                 options=("generated", "upload", "lab"), format_func=lambda k: t(f"sw_source_{k}"))
    trace = None
    if source == "generated":
        with st.expander(t("sw_generator")):
            generator_tab("sw_gen", state.generator, capacity.generated)
        trace = state.generated
    elif source == "upload":
        upload_tab("sw_up", state.upload, capacity.adopt)
        trace = state.uploaded
        if trace is None:
            st.info(t("sw_upload_first"))
    else:
        try:
            trace = lab_state.current_trace()
        except TraceError as error:
            st.error(t("sw_lab_bad"))
            show_problems(error.problems, "sw_lab_problems")
    show_source_error()
    if trace is not None:
        st.caption(t("sw_trace_summary", n=number(len(trace)), span=number(max(r.arrival for r in trace)),
                     rate=number(capacity.base_rate(trace)), prompt=number(capacity.mean_prompt(trace)),
                     output=number(sum(r.output for r in trace) / len(trace))))
        st.download_button(t("dl_trace_csv"), partial(write_csv, trace), "sweep-trace.csv", "text/csv",
                           key="sw_dl_trace")

    st.header(t("sw_policies"), divider="gray")
    st.markdown(t("sw_policies_intro"))
    edited = state.policies_now = capacity.policies_editor(capacity.POLICIES_EDITOR)
    cost_kind = state.cost = kept(st.radio, t("cfg_cost"), "sw_cost", state.cost,
                                  options=("ticks", "profile", "roofline"), format_func=lambda k: t(f"cost_{k}"),
                                  help=t("sw_cost_help"), horizontal=True)
    cost = cost_profile.shipped_cost() if cost_kind == "profile" else None
    if cost_kind == "profile":
        if cost is None:
            st.error(t("cost_profile_missing", path=str(cost_profile.SHIPPED)))
        else:
            st.caption(t("sw_cost_profile_note") + " " + cost_profile.about(cost_profile.document()))
    elif cost_kind == "roofline":
        g1, g2, g3 = st.columns(3)
        state.hardware = kept(g1.selectbox, t("cfg_gpu"), "sw_hardware", state.hardware, options=list(GPUS))
        state.model = kept(g2.selectbox, t("cfg_model"), "sw_model", state.model, options=list(MODELS))
        state.tp = kept(g3.number_input, t("cfg_tp"), "sw_tp", state.tp, min_value=1, max_value=64)
        cost = CostModel("roofline", hardware=state.hardware, model=state.model, tp=state.tp)
        st.caption(t("sw_cost_roofline_note") + " " + roofline_words(cost))
    unit = t("unit_ms" if cost is not None else "unit_tick")
    state.first = kept(st.radio, t("cfg_first_token"), "sw_first", state.first, options=("decode", "prefill"),
                       format_func=lambda k: t(f"first_{k}"), help=t("cfg_first_token_help"), horizontal=True)
    # (the SLOs' labels wrap to different heights in a narrow window: their inputs line up at the bottom)
    s1, s2, s3, s4 = st.columns(4, vertical_alignment="bottom")
    for column, name in ((s1, "slo_ttft"), (s2, "slo_tpot"), (s3, "slo_e2e")):
        setattr(state, name, kept(column.number_input, t(f"cfg_{name}", unit=unit), f"sw_{name}", getattr(state, name),
                                  min_value=0.0, max_value=1e9, step=1.0, help=t("cfg_slo_help")))
    state.target = kept(s4.slider, t("sw_target"), "sw_target", state.target, min_value=50, max_value=100, step=5,
                        format="%d%%", help=t("sw_target_help"))
    chosen, problems = capacity.entries(edited, state.first, state.slo(), cost,
                                        capacity.prefix_block(lab_state.settings().prefix_block))
    if cost_kind == "profile" and cost is None:
        problems.append(t("cost_profile_missing", path=md_escape(str(cost_profile.SHIPPED))))

    st.header(t("sw_sweep"), divider="gray")
    if presenter.on():  # (on a projector the parameter's longer names need a row of their own)
        p1, (p2, p3, p4) = st.container(), st.columns(3)
    else:
        p1, p2, p3, p4 = st.columns([2, 1, 1, 1])
    parameter = state.parameter = kept(p1.selectbox, t("sw_parameter"), "sw_parameter", state.parameter,
                                       options=list(capacity.RANGES), format_func=lambda k: t(f"sw_param_{k}"),
                                       help=t("sw_parameter_help"))
    bounds = {"min_value": 1, "max_value": 10**6, "step": 1} if parameter != "rate" else \
        {"min_value": 0.01, "max_value": 1e6, "step": 0.25}
    low = state.low[parameter] = kept(p2.number_input, t("sw_low"), f"sw_low_{parameter}", state.low[parameter],
                                      **bounds)
    high = state.high[parameter] = kept(p3.number_input, t("sw_high"), f"sw_high_{parameter}",
                                        state.high[parameter], **bounds)
    points = state.points[parameter] = kept(p4.number_input, t("sw_points"), f"sw_points_{parameter}",
                                            state.points[parameter], min_value=2, max_value=MAX_POINTS)
    values = capacity.sweep_values(parameter, low, high, points, trace, chosen, problems)
for problem in problems:  # outside the folded options, what stops the sweep stays in view (markdown: what the
    st.error(problem)        # problems quote is escaped)
ready = trace is not None and values is not None and not problems
asked = run_button(st, t("sw_run"), capacity.RUN, type="primary", disabled=not ready)
if ready and (asked or state.result is None):
    capacity.run_shown(state, trace, chosen, parameter, values)

result = state.result
if result is None:
    st.info(t("sw_press_run"))
    st.stop()
rows, swept, goal, base_rate = result.rows, result.parameter, result.goal, result.base_rate
if ready and result.stale(trace, chosen, parameter, values):
    st.warning(t("sw_stale"))
found = knees(rows, swept, goal)
failed = [r for r in rows if r["error"]]
if failed:
    st.warning(t("sw_failed", n=len(failed)) + "\n\n" + "\n".join(
        f"- {md_escape(r['policy'])} @ {r['value']}: {capacity.point_error(result, r)}"
        for r in capacity.failed_listed(rows))
        + ("\n\n" + t("sw_stopped_why") if any(r.get("stopped") for r in failed) else ""))

x_title = t(f"sw_param_{swept}") + (t("sw_rate_axis", rate=f"{base_rate:.3g}") if swept == "rate" else "")
unit = t(f"unit_{result.unit}")
charts = [(("attainment",), t("sw_chart_attainment"), "%",
           {"knees": found, "target": goal, "scale": 100, "knee_labels": capacity.knee_labels(rows, found, swept),
            "knee_text": "sw_best_split_label" if swept == "prefill_replicas" else "sw_knee_label"}),
          (("goodput",), t("sw_chart_goodput", unit=unit), t("sw_per_unit", unit=unit), {}),
          (("ttft_p50", "ttft_p90", "ttft_p99"), t("sw_chart_ttft"), unit, {"log_axis": True}),
          (("throughput",), t("sw_chart_throughput", unit=unit), t("sw_tokens_per_unit", unit=unit), {}),
          (("idle_waiting",), t("sw_chart_idle"), "%", {"scale": 100})]
tpot = ("tpot_p50", "tpot_p90", "tpot_p99")
tpot_everywhere = capacity.single(rows, tpot)
if tpot_everywhere is None:
    charts.insert(3, (tpot, t("sw_chart_tpot"), unit, {"log_axis": True}))
for index, (metric, title, y_title, options) in enumerate(charts):
    st.plotly_chart(sweep_chart(rows, metric, title, x_title, y_title, **options), key=f"sw_chart_{metric[0]}",
                    config={"displaylogo": False})
    if index == 0:  # the knees, in words, under the chart that marks them
        st.subheader(t("sw_knees"))
        st.markdown("\n".join(capacity.knee_sentences(rows, found, swept, goal, base_rate)))
if tpot_everywhere is not None:
    st.info(t("sw_tpot_flat", value=f"{tpot_everywhere:g}", unit=unit), icon="📏")

st.subheader(t("sw_why"))
st.markdown("\n".join(f"- {line}" for line in capacity.surprises(rows, result.chosen, swept, result.prompt_mean))
            or t("sw_why_none"))

st.subheader(t("sw_table"))
results, idle_left = capacity.results_table(rows, swept, result.unit)
show_table(results, "sw_results", capacity.results_columns(results))
if idle_left:
    st.caption(t("sw_idle_left"))
st.download_button(t("sw_download"), partial(sweep_csv, rows), "sweep.csv", "text/csv", key="sw_dl_results")
