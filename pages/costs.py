"""What it costs: the price of continuous batching, one lesson a cost, each measured in milliseconds."""
import streamlit as st

from ui import costs, presenter
from ui.boot import through_app
from ui.i18n import language, t
from ui.lessons import lessons, show
from ui.numbers import number, share
from ui.policy_form import roofline_words
from ui.session import kept

through_app()

st.title(t("cost_title"))
with presenter.options(t("cost_about")):  # on a projector, folded: the first lesson's picture on the first screen
    st.markdown(t("cost_intro", ms=costs.MS_PER_TICK))
st.page_link("pages/worked_example.py", label=t("cost_back"), icon="🧮")
page = costs.state()
hardware = page.hardware = kept(st.radio, t("cost_hardware"), "cost_hardware", page.hardware, options=costs.HARDWARE,
                                horizontal=True, format_func=lambda k: t(f"cost_hardware_{k}"))
if hardware == "real":
    st.caption(t("cost_hardware_note", blocks=number(costs.kv_cache_blocks("real")),
                 utilization=share(costs.REAL_UTILIZATION)) + " " + roofline_words(costs.REAL_GPU))
with st.spinner(t("cost_running")):
    told = lessons(language(), presenter.on(), hardware)
show(told, "cost", t("cost_download"))
st.header(t("cost_hidden_title"), divider="gray")
st.markdown(t("cost_hidden"))
