"""The What it costs page's lessons, made in one cached call a language and mode. Their simulations take about a
second and are the same in every language, so they are cached apart, once a server: the server makes them, and both
languages' lessons, at its start (ui/warm.py), so the one figure measured on the machine (lesson 5's planning time)
is the same on every visit."""
from __future__ import annotations

import streamlit as st

from . import costs, prefix_lesson, presenter, stream_lesson
from .i18n import t
from .tables import show_table

KEYS = ("interference", "jitter", "hol", "kv", "work", "moe", "stream", "lpm")  # the lessons, in the page's order


@st.cache_data(show_spinner=False)
def runs(hardware: str = "teaching") -> dict[str, object]:
    """Every lesson's simulations, by lesson; lessons 2-5 on the teaching GPU or the real one (costs.HARDWARE)."""
    return {"interference": costs.interference(), "ticks": costs.example_ticks(), "jitter": costs.jitter(hardware),
            "hol": costs.hol(hardware), "kv": costs.kv_pressure(hardware),
            "work": costs.scheduler_work(hardware=hardware), "moe": costs.moe_run(),
            "stream": stream_lesson.stream_runs(), "lpm": prefix_lesson.lpm_runs()}


@st.cache_data(show_spinner=False)
def lessons(lang: str, presenting: bool, hardware: str = "teaching") -> list[costs.Lesson]:
    """Every lesson. The text and charts are made as the caller's session has them: in its language `lang`, with
    presenter mode's sizes if `presenting`, lessons 2-5 on `hardware` (all three part of the cache key)."""
    made = runs(hardware)
    return [costs.interference_lesson(made["interference"], made["ticks"]), costs.jitter_lesson(made["jitter"]),
            costs.hol_lesson(made["hol"]), costs.kv_lesson(made["kv"]), costs.work_lesson(made["work"]),
            costs.moe_lesson(made["moe"]), stream_lesson.stream_lesson(made["stream"]),
            prefix_lesson.lpm_lesson(made["lpm"])]


def topics() -> str:
    """What the lessons are about, one phrase a lesson, in a list: the home page's link to them."""
    return t("list_sep").join(t(f"cost_{key}_topic") for key in KEYS)


def show(told: list[costs.Lesson], page: str, download: str) -> None:
    """A page's lessons, numbered: each one's heading (`{page}_{key}_title`), its story and charts (on a projector
    the picture first, the story told over it; on a screen the story leads to the picture), its table and the
    table's download (labelled `download`)."""
    for number, lesson in enumerate(told, start=1):
        st.header(f"{number}. {t(f'{page}_{lesson.key}_title')}", divider="gray")
        first, *more = lesson.charts
        shown = [first, lesson.story, *more] if presenter.on() else [lesson.story, first, *more]
        for index, part in enumerate(shown):
            if isinstance(part, str):
                st.markdown(part)
            else:
                st.plotly_chart(part, key=f"{page}_chart_{lesson.key}_{index}", config={"displaylogo": False})
        show_table(lesson.table, f"{page}_table_{lesson.key}")
        st.download_button(download, lesson.table.to_csv(index=False), f"{page}-{lesson.key}.csv", "text/csv",
                           key=f"{page}_dl_{lesson.key}")
