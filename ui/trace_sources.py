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
from .problems import show_problems
from .session import WIDGET, kept
from .source_forms import GeneratorForm, UploadForm
from .text import md_escape

MAX_REQUESTS = 20_000  # larger traces go through the command line (python -m sim run)
MAX_UPLOAD_MB = 20
ERROR = "source_error"  # (message, problems) of the last failed generate or import
PRESET = "preset_choice"  # the preset picked (its widget's key after session.WIDGET)


def _value(prefix: str, form, name: str) -> object:
    """A form's field as its widget holds it now: a button's callback runs before the widgets are drawn again,
    so a value typed just before the click is in the widget's state, not yet in the form."""
    return st.session_state.get(WIDGET + f"{prefix}_{name}", getattr(form, name))


def _widget(widget, label: str, prefix: str, form, name: str, **kwargs) -> object:
    """`widget` showing the form's field `name` under the key `prefix`_`name`, kept in the form (session.kept)."""
    value = kept(widget, label, f"{prefix}_{name}", getattr(form, name), **kwargs)
    setattr(form, name, value)
    return value


def _load_preset(state: lab_state.LabState) -> None:
    preset = PRESETS[st.session_state.get(WIDGET + PRESET, state.preset)]
    lab_state.load(preset.build(), preset.config, preset.policy_a, preset.policy_b)


def presets_tab(state: lab_state.LabState) -> None:
    """The lab's presets: one picked (kept in the lab's state) and loaded whole by its button."""
    choice = state.preset = kept(st.selectbox, t("preset_pick"), PRESET, state.preset, options=list(PRESETS),
                                 format_func=lambda k: t(f"preset_{k}"))
    st.caption(t(f"preset_{choice}_note"))
    st.button(t("preset_load"), key="preset_load", on_click=_load_preset, args=(state,))


def _length(prefix: str, form: GeneratorForm, which: str):
    kind = _value(prefix, form, f"{which}_kind")
    if kind == "fixed":
        return Fixed(int(_value(prefix, form, f"{which}_v")))
    if kind == "uniform":
        return Uniform(int(_value(prefix, form, f"{which}_lo")), int(_value(prefix, form, f"{which}_hi")))
    return LogNormal(float(_value(prefix, form, f"{which}_m")), float(_value(prefix, form, f"{which}_s")))


def _generate(prefix: str, form: GeneratorForm, on_trace: Callable[[Trace], None]) -> None:
    try:
        trace = generate(int(_value(prefix, form, "n")), float(_value(prefix, form, "rate")),
                         _length(prefix, form, "prompt"), _length(prefix, form, "output"),
                         float(_value(prefix, form, "burstiness")), int(_value(prefix, form, "seed")))
    except ValueError as error:
        st.session_state[ERROR] = (t("gen_bad", reason=md_escape(error)), ())
        return
    on_trace(trace)


def generator_tab(prefix: str, form: GeneratorForm, on_trace: Callable[[Trace], None]) -> None:
    """The seeded generator's form (widget keys start with `prefix`, values kept in `form`); its button hands the
    trace to `on_trace`."""
    g1, g2, g3 = st.columns(3, vertical_alignment="bottom")  # (their labels may wrap to different heights)
    _widget(g1.number_input, t("gen_n"), prefix, form, "n", min_value=1, max_value=MAX_REQUESTS, help=t("gen_n_help"))
    _widget(g2.number_input, t("gen_rate"), prefix, form, "rate", min_value=0.001, max_value=1000.0, step=0.1,
            format="%.3f", help=t("gen_rate_help"))
    _widget(g3.number_input, t("gen_burstiness"), prefix, form, "burstiness", min_value=0.01, max_value=100.0,
            step=0.1, help=t("gen_burstiness_help"))
    # Then each length's distribution and its bounds down its half of the row (a distribution's name, "lognormal
    # (long tail)", needs it in a 1024 px window), and the seed and the button under them.
    (g1, g2), (seed, make) = st.columns(2), st.columns(3, vertical_alignment="bottom")[:2]
    for column, which in ((g1, "prompt"), (g2, "output")):
        with column:
            kind = _widget(st.selectbox, t(f"gen_{which}"), prefix, form, f"{which}_kind",
                           options=("uniform", "fixed", "lognormal"), format_func=lambda k: t(f"dist_{k}"))
            if kind == "fixed":
                _widget(st.number_input, t("dist_value"), prefix, form, f"{which}_v", min_value=1, max_value=MAX_TOKENS)
            elif kind == "uniform":
                _widget(st.number_input, t("dist_low"), prefix, form, f"{which}_lo", min_value=1, max_value=MAX_TOKENS)
                _widget(st.number_input, t("dist_high"), prefix, form, f"{which}_hi", min_value=1,
                        max_value=MAX_TOKENS)
            else:
                _widget(st.number_input, t("dist_median"), prefix, form, f"{which}_m", min_value=1.0,
                        max_value=float(MAX_TOKENS))
                _widget(st.number_input, t("dist_sigma"), prefix, form, f"{which}_s", min_value=0.0, max_value=3.0,
                        step=0.1)
    _widget(seed.number_input, t("gen_seed"), prefix, form, "seed", min_value=0, max_value=2**31 - 1,
            help=t("gen_seed_help"))
    make.button(t("gen_make"), key=f"{prefix}_make", type="primary", on_click=_generate, args=(prefix, form, on_trace))


def _import(prefix: str, form: UploadForm, on_trace: Callable[[Trace], None]) -> None:
    s = st.session_state
    file = s.get(f"{prefix}_file")
    if file is None:
        return
    if file.size > MAX_UPLOAD_MB * 2**20:
        s[ERROR] = (t("up_too_big", mb=MAX_UPLOAD_MB), ())
        return
    try:
        start, end = (float(_value(prefix, form, name)) or None for name in ("start", "end"))
        options = ImportOptions(float(_value(prefix, form, "ms")), float(_value(prefix, form, "scale")), start, end,
                                int(_value(prefix, form, "limit")), MAX_REQUESTS)
        result = import_trace(file.getvalue(), _value(prefix, form, "fmt"), options)
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
    form.report = str(result.report)


def upload_tab(prefix: str, form: UploadForm, on_trace: Callable[[Trace], None]) -> None:
    """Upload and import a native or real trace (widget keys start with `prefix`, the import options kept in
    `form`); the trace goes to `on_trace`. (The file itself is not kept: a browser sends it again.)"""
    st.file_uploader(t("up_file"), type=["csv", "json", "jsonl", "txt"], key=f"{prefix}_file",
                     max_upload_size=MAX_UPLOAD_MB, help=t("up_help", mb=MAX_UPLOAD_MB))
    u1, u2, u3, u4 = st.columns(4)
    _widget(u1.selectbox, t("up_format"), prefix, form, "fmt", options=("auto", *FORMATS),
            format_func=lambda k: t(f"fmt_{k}"))
    _widget(u2.number_input, t("up_ms_per_tick"), prefix, form, "ms", min_value=0.001, max_value=3.6e6)
    _widget(u3.number_input, t("up_token_scale"), prefix, form, "scale", min_value=0.0001, max_value=1000.0,
            format="%.4f")
    _widget(u4.number_input, t("up_limit"), prefix, form, "limit", min_value=1, max_value=MAX_REQUESTS)
    w1, w2 = st.columns(2)
    _widget(w1.number_input, t("up_start_s"), prefix, form, "start", min_value=0.0, max_value=None)
    _widget(w2.number_input, t("up_end_s"), prefix, form, "end", min_value=0.0, max_value=None,
            help=t("up_end_help"))
    st.button(t("up_import"), key=f"{prefix}_import", type="primary", on_click=_import,
              args=(prefix, form, on_trace), disabled=st.session_state.get(f"{prefix}_file") is None)
    if form.report:
        st.info(t("up_report", report=md_escape(form.report)))


def show_source_error() -> None:
    """The last generate or import failure, once, with its problems table."""
    message, problems = st.session_state.pop(ERROR, (None, ()))
    if message:
        st.error(message)
        if problems:
            show_problems(problems, "source_problems")
