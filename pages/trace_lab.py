"""Trace lab: edit, generate or upload a trace, set the budgets, and compare two policies on it."""
from functools import partial

import streamlit as st

from sim.core.config import ConfigError
from sim.trace.trace import PROMPT_TEXT, TEXT_COLUMNS, TraceError, csv_table, write_csv, write_json
from ui import chat, lab_results, lab_state, presenter
from ui.boot import through_app
from ui.i18n import t
from ui.policy_form import grid, hardware_form, places, policy_form
from ui.problems import config_error, show_problems
from ui.runs import runs_or_stop
from ui.scenario import QUERY_KEY, Scenario, ScenarioError, encode
from ui.session import run_button
from ui.tables import sized_columns
from ui.trace_sources import MAX_REQUESTS, generator_tab, presets_tab, show_source_error, upload_tab

AUTO_RUN = 300  # up to this many requests every change re-runs at once; beyond, the Run button does

through_app()
lab_state.init()

if lab_state.open_link(st.query_params.get(QUERY_KEY)):
    st.toast(t("link_loaded"), icon="🔗")
if lab_state.state().link_error:
    st.error(t("link_bad", reason=t(f"link_err_{lab_state.state().link_error}")), icon="🔗")
    st.button(t("link_dismiss"), key="link_dismiss", on_click=lab_state.dismiss_link_error)

st.title(t("lab_title"))
st.markdown(t("lab_intro"))

trace_section = presenter.section(t("lab_trace"))  # folded away on a projector, with the budgets and policies
with trace_section:
    presets, generator, upload = st.tabs([t("tab_presets"), t("tab_generator"), t("tab_upload")])
    lab = lab_state.state()
    with presets:
        presets_tab(lab)
    with generator:
        generator_tab("gen", lab.generator, lab_state.set_trace)
    with upload:
        upload_tab("up", lab.upload, lab_state.set_trace)
    show_source_error()

    base = lab_state.editor_table()
    # No limits in the editor itself: it would clamp or drop a bad value without a word. Whatever is typed
    # stays in the table and reaches the same validation as an upload, which names its row, column and reason.
    edited = st.data_editor(
        base, key=lab_state.editor_key(), num_rows="dynamic", width="stretch",
        height=presenter.px(min(420, 38 + 35 * (len(base) + 1))),
        column_config=sized_columns(base, {
            column: (st.column_config.TextColumn if column in TEXT_COLUMNS else st.column_config.NumberColumn)(
                t(f"col_{column}"), help=t(f"help_{column}"), width="medium" if column in PROMPT_TEXT else None)
            for column in ("name", "arrival", "prompt", "output", *PROMPT_TEXT, "read_rate", "disconnect_at",
                           "hash_ids")}))
lab_state.state().current = edited

trace, problems = None, ()
if len(edited) > MAX_REQUESTS:
    st.error(t("lab_too_many", n=len(edited), limit=MAX_REQUESTS))
else:
    try:
        trace = lab_state.current_trace(edited)
    except TraceError as error:
        problems = error.problems
if problems:
    st.error(t("lab_bad_rows", n=len({p.row for p in problems})))
    show_problems(problems, "lab_problems")
elif trace is not None and trace.reordered:
    st.info(t("lab_sorted"))
with trace_section:
    d1, d2, d3 = st.columns(3)
    if trace is not None:
        d1.download_button(t("dl_trace_csv"), partial(write_csv, trace), "trace.csv", "text/csv", key="dl_trace_csv")
        d2.download_button(t("dl_trace_json"), partial(write_json, trace), "trace.json", "application/json",
                           key="dl_trace_json")
    else:  # what was typed, problems and all, so nothing is lost
        d1.download_button(t("dl_typed_csv"), partial(csv_table, list(edited.columns), lab_state.typed(edited)),
                           "trace-draft.csv", "text/csv", key="dl_typed_csv")
    d3.caption(t("lab_count", n=len(edited)))
    # Drawn only while open: it tokenizes the messages at every rerun.
    chat_panel = st.expander(t("chat_title"), key="lab_chat", on_change="rerun")
    if chat_panel.open:
        with chat_panel:
            chat.panel()

settings, setting = lab_state.settings(), lab_state.setting
with presenter.section(t("lab_budgets")):
    for place, name in zip(grid(2, 2), ("token_budget", "max_seqs")):
        setting(place, name)
    setting(st, "first_token")  # (a row of its own: beside two inputs its choices wrapped into a narrow column)
    unit = t("unit_tick" if settings.cost_kind == "ticks" else "unit_ms")
    for place, name in zip(grid(3, 3), ("slo_ttft", "slo_tpot", "slo_e2e")):
        setting(place, name, unit=unit)
    with st.expander(t("cfg_hardware"), expanded=bool(settings.kv_blocks) or settings.cost_kind != "ticks"):
        hardware_form()
    with st.expander(t("moe_settings"), expanded=bool(settings.moe_experts)):
        st.caption(t("moe_simulated_only"))
        for place, name in zip(grid(4, 4), ("moe_experts", "moe_top_k", "moe_skew", "moe_devices")):
            setting(place, name)
        for place, name in zip(grid(3, 3), ("moe_c_expert", "moe_c_a2a", "moe_seed")):
            setting(place, name)
        st.caption(t("moe_formula_ticks" if settings.cost_kind == "ticks" else "moe_formula"))
    with st.expander(t("stream_settings"), expanded=bool(settings.read_rate)):
        st.caption(t("stream_about"))
        setting(st.columns(2)[0], "read_rate")
    for place, side in zip(places(), "ab"):
        with place:
            policy_form(settings, side, "lab", settings.token_budget)

config = None
try:
    config = lab_state.config()
except ConfigError as error:
    st.error(config_error(error, unit=unit))
if trace is not None and config is not None and (problem := lab_state.policy_problem(trace, config,
                                                                                  lab_state.policies())):
    side, error = problem
    st.error(t("cfg_policy_bad", policy=t(f"cfg_policy_{'ab'[side]}"), problem=config_error(error, unit=unit)))
    config = None
over_budget = (lab_state.prompts_over_budget(trace, config, lab_state.policies())
               if trace is not None and config is not None else ())
if over_budget:
    st.error(t("lab_over_budget"))
    show_problems(over_budget, "lab_over_budget")
    trace = None

st.header(t("lab_results"), divider="gray")
scenario = Scenario(trace, config, *lab_state.policies()) if trace is not None and config is not None else None
asked = run_button(st, t("lab_run"), "lab_run", type="primary", disabled=scenario is None)
shown = lab_state.shown_run(scenario, asked, AUTO_RUN)
if shown is None:
    st.info(t("lab_press_run") if scenario is not None else t("lab_fix_first"))
else:
    if shown != scenario:
        st.warning(t("lab_stale"))
    if lab_state.busy_waits(shown, asked):
        st.warning(t("run_busy_waits"))
    else:
        with st.spinner(t("lab_running")):
            runs = runs_or_stop(shown.trace, shown.config, (shown.policy_a, shown.policy_b),
                                partial(lab_state.stopped_busy, shown))
        if runs is not None:
            lab_results.show(runs, (shown.policy_a, shown.policy_b))

# The share link: this scenario in the address bar, and to copy.
if scenario is not None:
    try:
        code = encode(scenario)
    except ScenarioError:
        st.caption(t("link_too_large"))
    else:
        st.query_params[QUERY_KEY] = lab_state.state().link = code
        # Drawn only while open: the code block's highlighter is a large script every fresh browser would
        # otherwise load on the lab's first view, even with the link folded away.
        share = st.expander(t("link_title"), key="lab_share", on_change="rerun")
        if share.open:
            share.code(f"{st.context.url or ''}?{QUERY_KEY}={code}", language=None, wrap_lines=True)
