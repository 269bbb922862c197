"""Translation helper: every text shown to users, in Chinese and English, chosen in the sidebar."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import streamlit as st

from .strings import STRINGS

LANGUAGES = {"zh": "中文", "en": "English"}
STATE_KEY = "lang"
# The language of text made outside any session: the server's warm-up (ui/warm.py) fills each language's caches.
_SPEAKING: ContextVar[str | None] = ContextVar("speaking", default=None)


def browser_language() -> str:
    """Chinese for a browser whose language is Chinese, else English."""
    return "zh" if (st.context.locale or "").lower().startswith("zh") else "en"


def language() -> str:
    value = _SPEAKING.get() or st.session_state.get(STATE_KEY)
    return value if value in LANGUAGES else "en"


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Text made in this block is in `lang`, whatever a session holds (none does at the server's start)."""
    token = _SPEAKING.set(lang)
    try:
        yield
    finally:
        _SPEAKING.reset(token)


def t(key: str, **params: object) -> str:
    """The text of `key` in the chosen language, with `params` filled in."""
    entry = STRINGS[key]
    text = entry.get(language()) or entry["en"]
    return text.format(**params) if params else text


def language_switch() -> None:
    """The sidebar's language switch; the first visit follows the browser's language. The choice lives in
    its own session key, so it survives reruns in which the radio is not drawn."""
    if STATE_KEY not in st.session_state:
        st.session_state[STATE_KEY] = browser_language()
    codes = list(LANGUAGES)
    st.session_state[STATE_KEY] = st.sidebar.radio(
        "语言 / Language", codes, index=codes.index(language()), format_func=LANGUAGES.get, key="w_" + STATE_KEY,
        horizontal=True)
