"""Worked example: the seed's trace under static and continuous batching, told tick by tick from time 0."""
import streamlit as st

from sim.core.config import Config, Policy
from sim.trace.trace import SEED_BUDGET
from ui import lab_state, story
from ui.boot import through_app
from ui.charts import budget_chart, gantt
from ui.i18n import t
from ui.runs import run, seed_trace

through_app()

POLICIES = ("static", "continuous")

st.title(t("ex_title"))
st.markdown(t("ex_intro"))

trace = seed_trace()
config = Config(SEED_BUDGET)
runs = [story.Run(policy, *run(trace, config, policy)) for policy in POLICIES]
end = max(r.end for r in runs)
story.init()
first, back, play, forward, speed = st.columns([1, 1, 3, 1, 6], vertical_alignment="bottom")
first.button("⇤", on_click=story.step, args=(-end, end), help=t("ex_start"), key="ex_first")
back.button("◀", on_click=story.step, args=(-1, end), help=t("ex_back"), key="ex_back")
playing = st.session_state[story.PLAYING]
play.button(t("ex_pause") if playing else t("ex_play"), type="primary", on_click=story.toggle_play, args=(end,),
            help=t("ex_play_help"), key="ex_play", width="stretch")
forward.button("▶", on_click=story.step, args=(1, end), help=t("ex_forward"), key="ex_forward")
speed.select_slider(t("ex_speed"), story.SPEEDS, key=story.SPEED, format_func=lambda s: f"{s:g}")


def show(now: int, key: str) -> None:
    """The story at time `now`: both runs' pictures, their sentences, and the figures known by then. `key` tells
    one drawing of the elements from the next while playing."""
    # Side by side, so that both pictures at the same time and their latest sentences fit on one screen.
    for column, r in zip(st.columns(2), runs):
        title = t(f"policy_{r.policy}")
        column.plotly_chart(gantt(r.schedule, title, x_max=end, reveal=now), key=f"ex_gantt_{r.policy}{key}")
        column.markdown(t("ex_narration", tick=now))
        earlier, recent = story.narration(r, now)
        if earlier:
            column.expander(t("ex_earlier")).markdown(earlier)
        column.markdown(recent)
    for column, r in zip(st.columns(2), runs):
        title = t("budget_title", policy=t(f"policy_{r.policy}"))
        column.plotly_chart(budget_chart(r.schedule, title, x_max=end, reveal=now),
                            key=f"ex_budget_{r.policy}{key}")
    st.subheader(t("ex_overall"))
    st.dataframe(story.overall_table(runs, now), hide_index=True, key=f"ex_overall{key}")
    st.info(t("ex_takeaway") if now >= end else t("ex_takeaway_pending"))
    st.subheader(t("ex_per_request"))
    st.caption(t("ex_legend", pending=story.PENDING))
    st.dataframe(story.request_table(runs, now), hide_index=True, key=f"ex_requests{key}")


if st.session_state[story.PLAYING]:
    # Playing is one long run of the page: it draws each tick in place and sleeps until the next. Any click
    # (Pause, a step, the speed) ends this run and starts the page again with that click.
    clock, story_box = st.empty(), st.empty()
    for now in story.playing(end):
        clock.progress(now / end, text=t("ex_playing_at", tick=now, end=end))
        with story_box.container():
            show(now, f"_{now}")
    st.rerun()  # the end: the page again, paused, with its Play button and slider
else:
    story.clock_value()
    st.slider(t("ex_slider"), 0, end, key=story.CLOCK, on_change=story.moved_clock, help=t("ex_slider_help"))
    show(st.session_state[story.TICK], "")
    st.page_link("pages/costs.py", label=t("ex_costs_link"), icon="💸")
    if st.button(t("ex_open_lab"), key="ex_open", on_click=lab_state.load,
                 args=(trace, config, *map(Policy.named, POLICIES))):
        st.switch_page("pages/trace_lab.py")
