"""The What it costs page's lessons, made in one cached call a language and mode. Their simulations take about a
second and are the same in every language, so they are cached apart, once; the server makes both languages'
lessons at its start (ui/warm.py)."""
from __future__ import annotations

import streamlit as st

from sim.core.schedule import Schedule

from . import costs, prefix_lesson, stream_lesson


@st.cache_data(show_spinner=False)
def runs() -> dict[str, object]:
    """Every lesson's simulations, by lesson."""
    return {"interference": costs.interference(), "jitter": costs.jitter(), "hol": costs.hol(),
            "kv": costs.kv_pressure(), "work": costs.scheduler_work(), "moe": costs.moe_run(),
            "stream": stream_lesson.stream_runs(), "lpm": prefix_lesson.lpm_runs()}


@st.cache_data(show_spinner=False)
def lessons(lang: str, presenting: bool) -> tuple[list[costs.Lesson], Schedule]:
    """Every lesson, and the worked example's schedule in ms. The text and charts are made as the caller's session
    has them: in its language `lang`, with presenter mode's sizes if `presenting` (both part of the cache key)."""
    made = runs()
    return [costs.interference_lesson(made["interference"]), costs.jitter_lesson(made["jitter"]),
            costs.hol_lesson(made["hol"]), costs.kv_lesson(made["kv"]), costs.work_lesson(made["work"]),
            costs.moe_lesson(made["moe"]), stream_lesson.stream_lesson(made["stream"]),
            prefix_lesson.lpm_lesson(made["lpm"])], made["interference"][0].schedule
