"""Real model: a tiny transformer with a paged KV cache, served by the same schedulers, measured."""
import streamlit as st

from sim.core.config import ConfigError
from sim.core.profile import profile_cost
from sim.report.metrics import compute
from sim.trace.chat import TEMPLATES
from sim.trace.trace import TraceError
from ui import cost_profile, lab_results, lab_state, model_fleet, presenter
from ui.boot import through_app
from ui.charts import gantt, side_by_side
from ui.i18n import t
from ui.numbers import number, share, signed
from ui.policy_form import places, policy_form
from ui.problems import config_error, show_problems, trace_error_text
from ui.real_model import (
    DISCONNECT_AFTER,
    DTYPES,
    MAX_REQUESTS,
    SHARED_SYSTEM,
    SLOW_READER,
    SOURCES,
    STREAM_CREDITS,
    FleetSettings,
    bpe_counts,
    choose_scenario,
    compare,
    comparison_table,
    default_device,
    init_state,
    model_card,
    prepare,
    presets,
    requests_table,
    run_both,
    run_config,
    shared_model,
    show_options,
    threads_words,
    void_limit,
)
from ui.session import kept, run_button
from ui.tables import policy_name, policy_title, show_table
from ui.text import md_escape

through_app()
lab_state.init()
state = init_state()

st.title(t("rm_title"))
card = model_card()
device = default_device()
st.markdown(t("rm_intro", params=card.get("parameters", 0), loss=card.get("validation_loss", "?")))
c1, settings = st.columns([1, 2])
c1.metric(t("rm_device"), device.upper(), help=t("rm_device_help"))
with settings, presenter.options(t("presenter_options")):
    c2, c3 = st.columns(2)
    dtype = state.dtype = kept(c2.radio, t("rm_dtype"), "rm_dtype", state.dtype, options=DTYPES, horizontal=True,
                               help=t("rm_dtype_help"))
    arrival_unit = state.arrivals = kept(c3.radio, t("rm_arrivals"), "rm_arrivals", state.arrivals,
                                         options=("tick", "ms"), horizontal=True,
                                         format_func=lambda k: t(f"rm_arrivals_{k}"), help=t("rm_arrivals_help"))
try:
    model = shared_model(device, dtype)
except ConfigError as error:
    st.error(t("rm_no_model", reason=config_error(error)))
    st.stop()

st.header(t("rm_trace"), divider="gray")
with presenter.options(t("presenter_options")):
    source = state.source = kept(st.radio, t("rm_source"), "rm_source", state.source, options=SOURCES,
                                 horizontal=True, on_change=choose_scenario, format_func=lambda k: t(f"rm_source_{k}"))
    if source in ("slow_reader", "disconnect", "shared_prompt"):
        st.caption(t(f"rm_scenario_{source}", rate=f"{SLOW_READER * 1000:g}", credits=STREAM_CREDITS,
                     after=DISCONNECT_AFTER, system=md_escape(SHARED_SYSTEM)))
    s1, s2 = st.columns(2)
    seed = state.prompt_seed = kept(s1.number_input, t("rm_prompt_seed"), "rm_prompt_seed", state.prompt_seed,
                                    min_value=0, max_value=10**6, help=t("rm_prompt_seed_help"))
    template = state.template = kept(s2.selectbox, t("rm_template"), "rm_template", state.template,
                                     options=list(TEMPLATES), format_func=lambda k: t(f"chat_tpl_{k}"),
                                     help=t("rm_template_help"))
try:
    raw = lab_state.current_trace() if source == "lab" else presets()[source]
    if len(raw) > MAX_REQUESTS:
        st.error(t("rm_too_many", n=len(raw), limit=MAX_REQUESTS))
        st.stop()
    trace, prompts = prepare(raw, model.config.context, int(seed), template, lab_state.config().prefix_block)
except TraceError as error:
    st.error(t("rm_bad_trace"))
    show_problems(error.problems, "rm_problems")
    st.stop()
if source == "lab" and trace is not raw:
    st.info(t("rm_scaled", context=model.config.context))
compared = bpe_counts(prompts)  # for comparison only: the model reads bytes
show_table(requests_table(trace, prompts, compared), "rm_table", {  # (the text last and of a set width)
    t("rm_prompt_text"): st.column_config.TextColumn(width="medium"),
    t("rm_bpe_tokens"): st.column_config.NumberColumn(help=t("rm_bpe_tokens_help"))}, height=240)
with st.expander(t("rm_prefilled")):
    st.caption(t("rm_prefilled_note"))
    for request, prompt, bpe in zip(trace, prompts, compared):
        st.caption(t("rm_prefilled_one", name=md_escape(request.name), bytes=len(prompt), bpe=bpe))
        st.code(prompt.decode("utf-8", errors="replace"), language=None, wrap_lines=True)

st.header(t("lab_budgets"), divider="gray")
with presenter.options(t("presenter_options")):
    # (the labels wrap to different heights in a narrow window: the inputs line up at the bottom)
    b1, b2, b3 = st.columns(3, vertical_alignment="bottom")
    budget = state.budget = kept(b1.number_input, t("cfg_budget"), "rm_budget", state.budget, min_value=1,
                                 max_value=100_000, help=t("cfg_budget_help"))
    max_seqs = state.max_seqs = kept(b2.number_input, t("cfg_max_seqs"), "rm_max_seqs", state.max_seqs, min_value=0,
                                     max_value=1024, help=t("cfg_max_seqs_help"))
    kv_blocks = state.kv_blocks = kept(b3.number_input, t("rm_kv_blocks"), "rm_kv_blocks", state.kv_blocks,
                                       min_value=0, max_value=100_000, help=t("rm_kv_blocks_help"))
    first = state.first = kept(st.radio, t("cfg_first_token"), "rm_first", state.first, options=("decode", "prefill"),
                               horizontal=True, format_func=lambda k: t(f"first_{k}"), help=t("cfg_first_token_help"))
    for place, side in zip(places(), "ab"):
        with place:
            policy_form(state, side, "rm", budget, simulated_only=False)
policies = (state.policy_a, state.policy_b)

st.header(t("lab_results"), divider="gray")
buttons = st.container(horizontal=True)  # each button as wide as its label
if run_button(buttons, t("rm_run"), "rm_run", type="primary"):
    stop = buttons.empty()  # shown while the run goes, and gone when it ends
    stop.button(t("rm_stop"), key="rm_stop", help=t("rm_stop_help"))  # any click reruns the page: the run stops
    try:
        config = run_config(budget, max_seqs, first, kv_blocks)
        state.shown = run_both(model, trace, prompts, config, policies, arrival_unit)
    except TraceError as error:
        st.error(t("rm_cannot_run", reason=trace_error_text(error)))
    except ConfigError as error:
        st.error(t("rm_cannot_run", reason=config_error(error, {"kv_blocks": t("rm_kv_blocks")})))
    stop.empty()
shown = state.shown
if shown is None:
    st.info(t("rm_press_run"))
else:
    results, ran, ran_trace, ran_unit = shown.results, shown.policies, shown.trace, shown.arrival_unit
    runs = [(r.schedule, compute(r.schedule)) for r in results]
    st.caption(t("rm_measured_note", device=results[0].device, dtype=results[0].dtype) + " "
               + threads_words(shown.threads))
    cards = st.columns(4)
    for index, (column, r) in enumerate(zip(cards, results)):
        column.metric(t("rm_tokens_per_s", label=policy_name(index, short=True)), number(r.tokens_per_second),
                      help=t("rm_overhead", share=share(r.overhead_share)))
    lab_results.show(runs, ran, measured=True, page="rm")
    show_options(results, ran, [r.name for r in results[0].schedule.requests])
    st.subheader(t("rm_prediction"))
    found = cost_profile.document(shown.profile)
    st.markdown(t("rm_prediction_intro"))
    if shown.profiled:
        st.info(t("rm_profiled_now", path=md_escape(str(shown.profile)), seconds=found.get("seconds", "?")))
    st.caption(cost_profile.about(found, own=True) + " " + cost_profile.formula(profile_cost(found)))
    for index, (label, r, (schedule, _), policy, calibration) in enumerate(
            zip("AB", results, runs, ran, shown.calibrations)):
        figures, about, predicted = compare(r, ran_trace, policy, ran_unit, shown.profile, calibration)
        title = f"{policy_name(index)} · {policy_title(policy)}"
        st.caption(t("rm_calibration", label=policy_name(index), scale=f"{calibration.scale:.2f}",
                     shapes=calibration.shapes, seconds=f"{calibration.seconds:.1f}"))
        if about["void"]:  # the measured run alone: a predicted chart beside it would be misread
            st.warning(t("rm_void", label=policy_name(index), drift=signed(about["drift_percent"]) + "%",
                         limit=share(void_limit())), icon="⚠️")
            st.plotly_chart(gantt(schedule, t("rm_gantt_measured", title=title)), key=f"rm_gantt_measured_{label}")
        else:
            x_max = max(schedule.makespan, predicted.makespan)
            # side by side, or one above the other on a projector (as the lab's)
            beside, keys = not presenter.on(), ("measured", "predicted")
            spots = st.columns(2) if beside else (st.container(), st.container())
            drawn = [gantt(shown_schedule, t(f"rm_gantt_{key}", title=title), x_max=x_max, columns=2 if beside else 1)
                     for shown_schedule, key in zip((schedule, predicted), keys)]
            for place, chart, key in zip(spots, side_by_side(drawn) if beside else drawn, keys):
                place.plotly_chart(chart, key=f"rm_gantt_{key}_{label}")
            st.caption(t("rm_iteration_error", label=policy_name(index), stray=about["iteration_error_percent"]))
        show_table(comparison_table(figures, schedule.unit, about["void"]), f"rm_prediction_{label}")
    with st.expander(t("rm_outputs")):
        for request, text in zip(results[1].schedule.requests, results[1].outputs):
            st.text(request.name)
            st.code(text.decode("utf-8", errors="replace"), language=None)

st.header(t("rmf_title"), divider="gray")
st.markdown(t("rmf_intro"))
with presenter.options(t("presenter_options")):
    f = state.fleet
    layout = kept(st.radio, t("rmf_layout"), "rm_fleet_layout", f.layout, options=model_fleet.LAYOUTS,
                  horizontal=True, format_func=lambda k: t(f"rmf_layout_{k}"))
    replicas, router, prefill, decode, latency, per_block = (f.replicas, f.router, f.prefill, f.decode, f.latency,
                                                             f.per_block)
    if layout == "split":
        f1, f2, f3, f4 = st.columns(4)
        prefill = kept(f1.number_input, t("rmf_prefill"), "rm_fleet_prefill", f.prefill, min_value=1,
                       max_value=model_fleet.MAX_ENGINES, help=t("rmf_prefill_help"))
        decode = kept(f2.number_input, t("rmf_decode"), "rm_fleet_decode", f.decode, min_value=1,
                      max_value=model_fleet.MAX_ENGINES, help=t("rmf_decode_help"))
        latency = kept(f3.number_input, t("rmf_latency"), "rm_fleet_latency", f.latency, min_value=0.0,
                       max_value=1000.0, step=0.5, help=t("rmf_latency_help"))
        per_block = kept(f4.number_input, t("rmf_per_block"), "rm_fleet_per_block", f.per_block, min_value=0.0,
                         max_value=100.0, step=0.1, help=t("rmf_per_block_help"))
        st.caption(t("rmf_split_first"))
    else:
        f1, f2 = st.columns(2)
        replicas = kept(f1.number_input, t("rmf_replicas"), "rm_fleet_replicas", f.replicas, min_value=2,
                        max_value=model_fleet.MAX_ENGINES, help=t("rmf_replicas_help"))
        router = kept(f2.selectbox, t("rmf_router"), "rm_fleet_router", f.router, options=model_fleet.ROUTER_CHOICES,
                      format_func=lambda k: t(f"router_{k}"), help=t("rmf_router_help"))
    state.fleet = FleetSettings(layout, int(replicas), router, int(prefill), int(decode), float(latency),
                                float(per_block))
if run_button(st, t("rmf_run"), "rmf_run", type="primary"):
    try:
        config = run_config(budget, max_seqs, first, kv_blocks)
        state.fleet_shown = model_fleet.run_on_model(model, trace, prompts, config, policies[1], state.fleet,
                                                     arrival_unit)
    except TraceError as error:
        st.error(t("rm_cannot_run", reason=trace_error_text(error)))
    except ConfigError as error:
        st.error(t("rm_cannot_run", reason=config_error(error, {"kv_blocks": t("rm_kv_blocks")})))
if state.fleet_shown is None:
    st.info(t("rmf_press_run"))
else:
    model_fleet.show(state.fleet_shown)
