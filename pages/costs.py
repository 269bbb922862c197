"""What it costs: the price of continuous batching, one lesson a cost, each measured in milliseconds."""
import streamlit as st

from ui import costs, presenter
from ui.boot import through_app
from ui.i18n import language, t
from ui.lessons import lessons, show

through_app()

st.title(t("cost_title"))
with presenter.options(t("cost_about")):  # on a projector, folded: the first lesson's picture on the first screen
    st.markdown(t("cost_intro", ms=costs.MS_PER_TICK))
st.page_link("pages/worked_example.py", label=t("cost_back"), icon="🧮")
with st.spinner(t("cost_running")):
    told = lessons(language(), presenter.on())
show(told, "cost", t("cost_download"))
st.header(t("cost_hidden_title"), divider="gray")
st.markdown(t("cost_hidden"))
