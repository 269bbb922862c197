"""The batching classroom's script, run for every session: navigation over the pages, the language and
presenter switches and the about box. The server (app.py) imports the heavy libraries before it runs it for anyone."""
import streamlit as st

import ui.preload  # noqa: F401  (done already under app.py; under another server, each run waits for it)
from ui import presenter
from ui.boot import RAN_APP
from ui.i18n import language_switch, t

st.set_page_config(page_title="The batching classroom · 批处理课堂", page_icon="🧮", layout="wide")
language_switch()
presenter.switch()
presenter.style()

PAGES = {
    "home": st.Page("pages/home.py", title=t("nav_home"), icon="🏠", default=True),
    "example": st.Page("pages/worked_example.py", title=t("nav_example"), icon="🧮"),
    "costs": st.Page("pages/costs.py", title=t("nav_costs"), icon="💸"),
    "lab": st.Page("pages/trace_lab.py", title=t("nav_lab"), icon="🧪"),
    "capacity": st.Page("pages/capacity_lab.py", title=t("nav_capacity"), icon="📈"),
    "fleet": st.Page("pages/many_servers.py", title=t("nav_fleet"), icon="🗄️"),
    "planner": st.Page("pages/planner.py", title=t("nav_planner"), icon="🧭"),
    "real": st.Page("pages/real_model.py", title=t("nav_real"), icon="🤖"),
    "guide": st.Page("pages/metrics_guide.py", title=t("nav_guide"), icon="📏"),
}
page = st.navigation(list(PAGES.values()))
with st.sidebar.expander(t("about_title")):
    st.markdown(t("about_text"))
st.session_state[RAN_APP] = True
with presenter.page():
    page.run()
