"""Makes every page run inside app.py's navigation, even when it is the first page a fresh server serves."""
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def through_app() -> None:
    """Until app.py has run once, Streamlit serves a deep link (a shared /trace_lab?s=... link, say) the old
    way, running the file under pages/ on its own, without app.py's navigation, language switch or state.
    The first page to notice switches that mode off and reruns, so app.py runs and picks the same page."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
