"""Worked example: the seed's trace under static and continuous batching, told tick by tick from time 0, played by
the browser."""
import streamlit as st

from sim.core.config import Config, Policy
from sim.trace.trace import SEED_BUDGET
from ui import lab_state, story
from ui.boot import through_app
from ui.i18n import t
from ui.runs import seed_trace, story_figure

through_app()

st.title(t("ex_title"))
st.markdown(t("ex_lead"))
# Computed once a language and mode for every visitor; the browser plays its frames (no rerun while it plays).
st.plotly_chart(story_figure(), key="ex_story", config={"displayModeBar": False})
with st.expander(t("ex_how")):
    st.markdown(t("ex_intro", pending=story.PENDING))
st.page_link("pages/costs.py", label=t("ex_costs_link"), icon="💸")
if st.button(t("ex_open_lab"), key="ex_open", on_click=lab_state.load,
             args=(seed_trace(), Config(SEED_BUDGET), *map(Policy.named, ("static", "continuous")))):
    st.switch_page("pages/trace_lab.py")
