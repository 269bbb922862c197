"""Home: continuous batching in a few sentences, a live picture of the worked example, links to every page."""
import streamlit as st

from ui import home
from ui.boot import through_app
from ui.i18n import t

through_app()

st.title(t("home_title"))
st.markdown(home.intro())

runs = home.seed_runs()
st.plotly_chart(home.gantts(runs), key="home_gantts")
for policy, (_, metrics) in runs.items():
    st.caption(home.caption(policy, metrics))
st.markdown(home.after(runs))

st.subheader(t("home_pages"))
home.links()
