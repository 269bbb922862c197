"""Where the lab's trace comes from: presets, the seeded generator and uploads of real traces.

Buttons act through callbacks, which run before the page: the new trace is in place when it draws."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from sim.trace.generate import Fixed, LogNormal, Uniform, generate
from sim.trace.importers import FORMATS, ImportOptions, import_trace
from sim.trace.trace import MAX_TOKENS, Trace, TraceError

from . import lab_state
from .i18n import t
from .presets import PRESETS
from .problems import problem_table
from .text import md_escape

MAX_REQUESTS = 20_000  # larger traces go through the command line (python -m sim run)
MAX_UPLOAD_MB = 20
ERROR = "source_error"  # (message, problems) of the last failed generate or import


def _load_preset() -> None:
    preset = PRESETS[st.session_state["preset_choice"]]
    lab_state.load(preset.build(), preset.config, preset.policy_a, preset.policy_b)


def presets_tab() -> None:
    choice = st.selectbox(t("preset_pick"), list(PRESETS), format_func=lambda k: t(f"preset_{k}"),
                          key="preset_choice")
    st.caption(t(f"preset_{choice}_note"))
    st.button(t("preset_load"), key="preset_load", on_click=_load_preset)


def _length(prefix: str, which: str):
    s = st.session_state
    kind = s[f"{prefix}_{which}_kind"]
    if kind == "fixed":
        return Fixed(int(s[f"{prefix}_{which}_v"]))
    if kind == "uniform":
        return Uniform(int(s[f"{prefix}_{which}_lo"]), int(s[f"{prefix}_{which}_hi"]))
    return LogNormal(float(s[f"{prefix}_{which}_m"]), float(s[f"{prefix}_{which}_s"]))


def _generate(prefix: str, on_trace: Callable[[Trace], None]) -> None:
    s = st.session_state
    try:
        trace = generate(int(s[f"{prefix}_n"]), float(s[f"{prefix}_rate"]), _length(prefix, "prompt"),
                         _length(prefix, "output"), float(s[f"{prefix}_burstiness"]), int(s[f"{prefix}_seed"]))
    except ValueError as error:
        s[ERROR] = (t("gen_bad", reason=md_escape(error)), ())
        return
    on_trace(trace)


def generator_tab(prefix: str = "gen", on_trace: Callable[[Trace], None] = lab_state.set_trace,
                  n: int = 60, rate: float = 0.5, prompt: tuple[int, int] = (1, 8),
                  output: tuple[int, int] = (1, 12)) -> None:
    """The seeded generator's form (widget keys start with `prefix`); its button hands the trace to `on_trace`."""
    g1, g2, g3 = st.columns(3)
    g1.number_input(t("gen_n"), 1, MAX_REQUESTS, n, key=f"{prefix}_n", help=t("gen_n_help"))
    g2.number_input(t("gen_rate"), 0.001, 1000.0, rate, step=0.1, format="%.3f", key=f"{prefix}_rate",
                    help=t("gen_rate_help"))
    g3.number_input(t("gen_burstiness"), 0.01, 100.0, 1.0, step=0.1, key=f"{prefix}_burstiness",
                    help=t("gen_burstiness_help"))
    for column, which, (low, high) in ((g1, "prompt", prompt), (g2, "output", output)):
        with column:
            kind = st.selectbox(t(f"gen_{which}"), ("uniform", "fixed", "lognormal"),
                                format_func=lambda k: t(f"dist_{k}"), key=f"{prefix}_{which}_kind")
            if kind == "fixed":
                st.number_input(t("dist_value"), 1, MAX_TOKENS, high, key=f"{prefix}_{which}_v")
            elif kind == "uniform":
                st.number_input(t("dist_low"), 1, MAX_TOKENS, low, key=f"{prefix}_{which}_lo")
                st.number_input(t("dist_high"), 1, MAX_TOKENS, high, key=f"{prefix}_{which}_hi")
            else:
                st.number_input(t("dist_median"), 1.0, float(MAX_TOKENS), float(high), key=f"{prefix}_{which}_m")
                st.number_input(t("dist_sigma"), 0.0, 3.0, 0.8, step=0.1, key=f"{prefix}_{which}_s")
    g3.number_input(t("gen_seed"), 0, 2**31 - 1, 0, key=f"{prefix}_seed", help=t("gen_seed_help"))
    g3.button(t("gen_make"), key=f"{prefix}_make", type="primary", on_click=_generate, args=(prefix, on_trace))


def _import(prefix: str, on_trace: Callable[[Trace], None]) -> None:
    s = st.session_state
    file = s.get(f"{prefix}_file")
    if file is None:
        return
    if file.size > MAX_UPLOAD_MB * 2**20:
        s[ERROR] = (t("up_too_big", mb=MAX_UPLOAD_MB), ())
        return
    try:
        options = ImportOptions(float(s[f"{prefix}_ms"]), float(s[f"{prefix}_scale"]),
                                float(s[f"{prefix}_start"]) or None, float(s[f"{prefix}_end"]) or None,
                                int(s[f"{prefix}_limit"]))
        result = import_trace(file.getvalue(), s[f"{prefix}_fmt"], options)
    except TraceError as error:
        s[ERROR] = (t("up_bad"), error.problems)
        return
    except ValueError as error:
        s[ERROR] = (md_escape(error), ())
        return
    if len(result.trace) > MAX_REQUESTS:
        s[ERROR] = (t("lab_too_many", n=len(result.trace), limit=MAX_REQUESTS), ())
        return
    on_trace(result.trace)
    s[f"{prefix}_report"] = str(result.report)


def upload_tab(prefix: str = "up", on_trace: Callable[[Trace], None] = lab_state.set_trace,
               ms_per_tick: float = 1000.0, limit: int = 500) -> None:
    """Upload and import a native or real trace (widget keys start with `prefix`); the trace goes to
    `on_trace`."""
    st.file_uploader(t("up_file"), type=["csv", "json", "jsonl", "txt"], key=f"{prefix}_file",
                     max_upload_size=MAX_UPLOAD_MB, help=t("up_help", mb=MAX_UPLOAD_MB))
    u1, u2, u3, u4 = st.columns(4)
    u1.selectbox(t("up_format"), ("auto", *FORMATS), format_func=lambda k: t(f"fmt_{k}"), key=f"{prefix}_fmt")
    u2.number_input(t("up_ms_per_tick"), 0.001, 3.6e6, ms_per_tick, key=f"{prefix}_ms")
    u3.number_input(t("up_token_scale"), 0.0001, 1000.0, 1.0, format="%.4f", key=f"{prefix}_scale")
    u4.number_input(t("up_limit"), 1, MAX_REQUESTS, limit, key=f"{prefix}_limit")
    w1, w2 = st.columns(2)
    w1.number_input(t("up_start_s"), 0.0, None, 0.0, key=f"{prefix}_start")
    w2.number_input(t("up_end_s"), 0.0, None, 0.0, key=f"{prefix}_end", help=t("up_end_help"))
    st.button(t("up_import"), key=f"{prefix}_import", type="primary", on_click=_import, args=(prefix, on_trace),
              disabled=st.session_state.get(f"{prefix}_file") is None)
    if st.session_state.get(f"{prefix}_report"):
        st.info(t("up_report", report=md_escape(st.session_state[f"{prefix}_report"])))


def show_source_error() -> None:
    """The last generate or import failure, once, with its problems table."""
    message, problems = st.session_state.pop(ERROR, (None, ()))
    if message:
        st.error(message)
        if problems:
            st.dataframe(problem_table(problems), hide_index=True, key="source_problems")
