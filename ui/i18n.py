"""Translation helper: every text shown to users, in Chinese and English, chosen in the sidebar."""
from __future__ import annotations

import re
import string
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
    lang = language()
    entry = STRINGS[key]
    text = entry.get(lang) or entry["en"]
    if not params:
        return text
    return fill_chinese(text, params) if lang == "zh" else text.format(**params)


def sentences(parts: list[str]) -> str:
    """Sentences one after the other: a space between them in English; none in Chinese, where each ends with its
    full stop (。)."""
    return ("" if language() == "zh" else " ").join(parts)


_HAN = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"  # Chinese characters and full-width punctuation
_OPEN, _CLOSE = "\x02", "\x03"  # (around a text value while it is filled in)
_SPACE_BEFORE = re.compile(f"(?<=[{_HAN}]) (?=(?:\\*\\*)?{_OPEN}[{_HAN}])")  # (a value in bold too)
_SPACE_AFTER = re.compile(f"([{_HAN}]{_CLOSE}(?:\\*\\*)?) (?=[{_HAN}])")


def fill_chinese(text: str, params: dict[str, object]) -> str:
    """`text.format(**params)` for Chinese text: the space a template keeps between a value and a Chinese
    character ("{policy} 的拐点", made for a name such as "vLLM"), the value in bold or not, goes when the value
    itself begins or ends there with a Chinese character ("连续批处理的拐点", not "连续批处理 的拐点")."""
    shaped = {name for _, name, spec, conversion in string.Formatter().parse(text) if spec or conversion}
    marked = {name: f"{_OPEN}{value}{_CLOSE}" if isinstance(value, str) and value and name not in shaped else value
              for name, value in params.items()}  # (a value with a format spec is filled as it is: no marks)
    filled = _SPACE_AFTER.sub(r"\1", _SPACE_BEFORE.sub("", text.format(**marked)))
    return filled.replace(_OPEN, "").replace(_CLOSE, "")


def language_switch() -> None:
    """The sidebar's language switch; the first visit follows the browser's language. The choice lives in
    its own session key, so it survives reruns in which the radio is not drawn."""
    if STATE_KEY not in st.session_state:
        st.session_state[STATE_KEY] = browser_language()
    codes = list(LANGUAGES)
    st.session_state[STATE_KEY] = st.sidebar.radio(
        "语言 / Language", codes, index=codes.index(language()), format_func=LANGUAGES.get, key="w_" + STATE_KEY,
        horizontal=True)
