"""Where the lab's trace comes from: presets, the seeded generator and uploads of real traces.

Buttons act through callbacks, which run before the page: the new trace is in place when it draws."""
from __future__ import annotations

import streamlit as st

from sim.generate import Fixed, LogNormal, Uniform, generate
from sim.importers import FORMATS, ImportOptions, import_trace
from sim.trace import MAX_TOKENS, TraceError

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


def _length(which: str):
    s = st.session_state
    kind = s[f"gen_{which}_kind"]
    if kind == "fixed":
        return Fixed(int(s[f"gen_{which}_v"]))
    if kind == "uniform":
        return Uniform(int(s[f"gen_{which}_lo"]), int(s[f"gen_{which}_hi"]))
    return LogNormal(float(s[f"gen_{which}_m"]), float(s[f"gen_{which}_s"]))


def _generate() -> None:
    s = st.session_state
    try:
        trace = generate(int(s["gen_n"]), float(s["gen_rate"]), _length("prompt"), _length("output"),
                         float(s["gen_burstiness"]), int(s["gen_seed"]))
    except ValueError as error:
        s[ERROR] = (t("gen_bad", reason=md_escape(error)), ())
        return
    lab_state.set_trace(trace)


def generator_tab() -> None:
    g1, g2, g3 = st.columns(3)
    g1.number_input(t("gen_n"), 1, MAX_REQUESTS, 60, key="gen_n", help=t("gen_n_help"))
    g2.number_input(t("gen_rate"), 0.001, 1000.0, 0.5, step=0.1, format="%.3f", key="gen_rate",
                    help=t("gen_rate_help"))
    g3.number_input(t("gen_burstiness"), 0.01, 100.0, 1.0, step=0.1, key="gen_burstiness",
                    help=t("gen_burstiness_help"))
    for column, which, low, high in ((g1, "prompt", 1, 8), (g2, "output", 1, 12)):
        with column:
            kind = st.selectbox(t(f"gen_{which}"), ("uniform", "fixed", "lognormal"),
                                format_func=lambda k: t(f"dist_{k}"), key=f"gen_{which}_kind")
            if kind == "fixed":
                st.number_input(t("dist_value"), 1, MAX_TOKENS, high, key=f"gen_{which}_v")
            elif kind == "uniform":
                st.number_input(t("dist_low"), 1, MAX_TOKENS, low, key=f"gen_{which}_lo")
                st.number_input(t("dist_high"), 1, MAX_TOKENS, high, key=f"gen_{which}_hi")
            else:
                st.number_input(t("dist_median"), 1.0, float(MAX_TOKENS), float(high), key=f"gen_{which}_m")
                st.number_input(t("dist_sigma"), 0.0, 3.0, 0.8, step=0.1, key=f"gen_{which}_s")
    g3.number_input(t("gen_seed"), 0, 2**31 - 1, 0, key="gen_seed", help=t("gen_seed_help"))
    g3.button(t("gen_make"), key="gen_make", type="primary", on_click=_generate)


def _import() -> None:
    s = st.session_state
    file = s.get("up_file")
    if file is None:
        return
    if file.size > MAX_UPLOAD_MB * 2**20:
        s[ERROR] = (t("up_too_big", mb=MAX_UPLOAD_MB), ())
        return
    try:
        options = ImportOptions(float(s["up_ms"]), float(s["up_scale"]), float(s["up_start"]) or None,
                                float(s["up_end"]) or None, int(s["up_limit"]))
        result = import_trace(file.getvalue(), s["up_fmt"], options)
    except TraceError as error:
        s[ERROR] = (t("up_bad"), error.problems)
        return
    except ValueError as error:
        s[ERROR] = (md_escape(error), ())
        return
    if len(result.trace) > MAX_REQUESTS:
        s[ERROR] = (t("lab_too_many", n=len(result.trace), limit=MAX_REQUESTS), ())
        return
    lab_state.set_trace(result.trace)
    s["up_report"] = str(result.report)


def upload_tab() -> None:
    st.file_uploader(t("up_file"), type=["csv", "json", "jsonl", "txt"], key="up_file",
                     help=t("up_help", mb=MAX_UPLOAD_MB))
    u1, u2, u3, u4 = st.columns(4)
    u1.selectbox(t("up_format"), ("auto", *FORMATS), format_func=lambda k: t(f"fmt_{k}"), key="up_fmt")
    u2.number_input(t("up_ms_per_tick"), 0.001, 3.6e6, 1000.0, key="up_ms")
    u3.number_input(t("up_token_scale"), 0.0001, 1000.0, 1.0, format="%.4f", key="up_scale")
    u4.number_input(t("up_limit"), 1, MAX_REQUESTS, 500, key="up_limit")
    w1, w2 = st.columns(2)
    w1.number_input(t("up_start_s"), 0.0, None, 0.0, key="up_start")
    w2.number_input(t("up_end_s"), 0.0, None, 0.0, key="up_end", help=t("up_end_help"))
    st.button(t("up_import"), key="up_import", type="primary", on_click=_import,
              disabled=st.session_state.get("up_file") is None)
    if st.session_state.get("up_report"):
        st.info(t("up_report", report=md_escape(st.session_state["up_report"])))


def show_source_error() -> None:
    """The last generate or import failure, once, with its problems table."""
    message, problems = st.session_state.pop(ERROR, (None, ()))
    if message:
        st.error(message)
        if problems:
            st.dataframe(problem_table(problems), hide_index=True, key="source_problems")
