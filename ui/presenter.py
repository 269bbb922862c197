"""Presenter mode, for a projector: larger fonts in text, tables and charts, and each page's options folded away."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar

import streamlit as st

from .i18n import t

STATE_KEY = "presenter"
MIN_FONT_PX = 18  # what reads from the back of a classroom
ROOT_PX = 21  # the root font size in presenter mode (Streamlit's own is 16)

# Streamlit sizes its text in rem, and so does the data grid: it draws its canvas at 0.875rem of the root's
# font size, read when the grid is first drawn. A root of 21 px puts that small text (tables, captions, widget
# labels) at 18.4 px and the body at 21 px; the rules after it hold each kind of text to 18 px in any case.
# The page's own margins shrink, the room going to the charts and tables. The rules hang on the switch itself
# being on, so the browser applies them the moment it is clicked, before the rerun that draws the page afresh
# (page()) reaches it: the grids drawn then read the larger size. (One rule holds in either mode: a link in a
# page wraps its label over as many lines as it takes, where Streamlit would cut it at the line's end.)
ON = f":root:has(.st-key-w_{STATE_KEY} input:checked)"  # the switch's own widget key (see switch())
OFF = f":root:has(.st-key-w_{STATE_KEY} input:not(:checked))"
# The page as the other mode drew it is hidden the moment the switch turns, until the rerun replaces it, so that
# its charts are not drawn again at the new sizes first (What it costs: 13 s to 8 s for the switch in headless
# Chromium). In presenter mode the page is in the container keyed PAGE_KEY (page()); in plain mode its elements
# are the main block's own (its columns and containers stay: a rule that told them from the presenter container,
# with :has(), made each of Plotly's text measurements restyle the page, and the switch three times as slow).
PAGE_KEY = "presenter_page"
MAIN = '[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"]'
CSS = f"""<style>
{ON} {{ font-size: {ROOT_PX}px; }}
{ON} [data-testid="stMarkdownContainer"] :is(p, li, td, th), {ON} [data-testid="stCaptionContainer"],
{ON} [data-testid="stWidgetLabel"] p, {ON} [data-testid="stTable"] :is(td, th) {{
  font-size: max(1em, {MIN_FONT_PX}px);
}}
{ON} [data-testid="stMetricValue"] {{ font-size: max(2.25rem, {MIN_FONT_PX}px); }}
{ON} :is([data-testid="stMetricLabel"], [data-testid="stDownloadButton"], [data-testid="stButton"]) p {{
  white-space: normal; overflow: visible; text-overflow: clip;
}}
{ON} [data-testid="stMainBlockContainer"] {{ padding: 4rem 1.5rem 4rem; }}
{ON} {MAIN} > [data-testid="stElementContainer"], {OFF} .st-key-{PAGE_KEY} {{ display: none; }}
[data-testid="stMain"] [data-testid="stPageLink-NavLink"] :is(span, div, p) {{
  white-space: normal; overflow: visible; text-overflow: clip;
}}
</style>"""


_PRESENTING: ContextVar[bool | None] = ContextVar("presenting", default=None)


def on() -> bool:
    held = _PRESENTING.get()
    return bool(st.session_state.get(STATE_KEY, False)) if held is None else held


@contextmanager
def presenting(mode: bool) -> Iterator[None]:
    """Charts made in this block have `mode`'s sizes, whatever a session holds (none does at the server's
    start)."""
    token = _PRESENTING.set(mode)
    try:
        yield
    finally:
        _PRESENTING.reset(token)


def switch() -> None:
    """The sidebar's presenter switch. Like the language, the choice lives in its own session key, so it
    survives reruns in which the toggle is not drawn."""
    st.session_state[STATE_KEY] = st.sidebar.toggle(t("presenter_switch"), value=on(), key="w_" + STATE_KEY,
                                                    help=t("presenter_help"))


def style() -> None:
    """The larger fonts' rules, which apply while the switch is on. Sent on every run, mode on or off: the
    switch, clicked, must find them in the browser already (a style-only st.html takes no room on the page)."""
    st.html(CSS)


def page():
    """Where the page is drawn: one level down in presenter mode, so that turning the mode on or off draws each
    element afresh (a data grid reads its font size only when it is first drawn)."""
    return st.container(key=PAGE_KEY) if on() else nullcontext()


def options(label: str):
    """The container of a page's options: folded away in presenter mode, plain otherwise."""
    return st.expander(label, expanded=False) if on() else st.container()


def section(title: str):
    """A section of options under its heading: in presenter mode, folded away under the heading itself."""
    if on():
        return st.expander(title, expanded=False)
    st.header(title, divider="gray")
    return st.container()


PAGE_PX = {False: 562, True: 659}  # the page's width in a 1024 px window: plain, and in presenter mode
OPTIONS_INSET_PX = 42  # what an expander's padding takes from it in presenter mode (measured in Chromium: 617 px)


def page_px() -> int:
    """The page's width in a 1024 px window (the narrowest the app is made for), in this mode."""
    return PAGE_PX[on()]


def options_px() -> int:
    """The width inside `options()` in a 1024 px window, in this mode: the page's, less an expander's padding in
    presenter mode."""
    return page_px() - (OPTIONS_INSET_PX if on() else 0)


def px(size: int) -> int:
    """A height in px, made for rows of Streamlit's 16 px root, grown with the root in presenter mode."""
    return round(size * ROOT_PX / 16) if on() else size


def font(size: float) -> float:
    """The Plotly font size to use for `size`: at least MIN_FONT_PX in presenter mode."""
    return max(size, MIN_FONT_PX) if on() else size
