"""The What it costs page's lessons, made in one cached call a language and mode: their simulations take about a
second and are the same for every visitor, so the server makes both languages' at its start (ui/warm.py)."""
from __future__ import annotations

import streamlit as st

from sim.core.schedule import Schedule

from . import costs, prefix_lesson, stream_lesson


@st.cache_data(show_spinner=False)
def lessons(lang: str, presenting: bool) -> tuple[list[costs.Lesson], Schedule]:
    """Every lesson, and the worked example's schedule in ms. The text and charts are made as the caller's session
    has them: in its language `lang`, with presenter mode's sizes if `presenting` (both part of the cache key)."""
    interference = costs.interference()
    return [costs.interference_lesson(interference), costs.jitter_lesson(costs.jitter()),
            costs.hol_lesson(costs.hol()), costs.kv_lesson(costs.kv_pressure()),
            costs.work_lesson(costs.scheduler_work()), costs.moe_lesson(costs.moe_run()),
            stream_lesson.stream_lesson(stream_lesson.stream_runs()),
            prefix_lesson.lpm_lesson(prefix_lesson.lpm_runs())], interference[0].schedule
