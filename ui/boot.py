"""Makes every page run inside classroom.py's navigation, even when it is the first page a fresh server serves."""
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

RAN_APP = "ran_app"  # set by classroom.py just before it runs the page, taken by the page


def uses_navigation() -> None:
    """A project with a pages/ folder is served the old way (each file under pages/ run on its own, for a deep
    link such as a shared /trace_lab?s=...) until some session's run calls st.navigation. Said at the start,
    before any session, every run goes through classroom.py."""
    PagesManager.uses_pages_directory = False


def through_app() -> None:
    """A page run without classroom.py (a server not started by app.py, before its first navigation) has no
    navigation, language switch or state: switch the old way off and rerun, so classroom.py picks the same page.
    Asked per session: several may have started the old way at once."""
    if not st.session_state.pop(RAN_APP, False):
        uses_navigation()
        st.rerun()
