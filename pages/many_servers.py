"""Many servers: a fleet of the one engine behind a router, and prefill split from decode; each lesson's story,
charts and table from its runs (ui/fleet.py)."""
import streamlit as st

from ui import fleet, presenter
from ui.boot import through_app
from ui.i18n import language, t
from ui.lessons import show

through_app()

st.title(t("fleet_title"))
with presenter.options(t("fleet_about")):
    st.markdown(t("fleet_intro"))
with st.spinner(t("fleet_running")):
    told = fleet.lessons(language(), presenter.on())
show(told, "fleet", t("fleet_download"))
st.header(t("fleet_hidden_title"), divider="gray")
st.markdown(t("fleet_hidden"))
