"""What a page keeps in the session: its state dataclass under one key, widget values kept across reruns and page
switches (`kept`), and a Run button's asked run (`run_button`, `ask`)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

WIDGET = "w_"  # a kept value's widget has the key WIDGET + the value's key
ASKED = "asked_"  # a run asked for (by its button, or by a callback: an example) under ASKED + the button's key

State = TypeVar("State")


def page_state(key: str, make: Callable[[], State]) -> State:
    """The page's state under session key `key`, made by `make` on a first visit."""
    if key not in st.session_state:
        st.session_state[key] = make()
    return st.session_state[key]


def kept(widget, label: str, key: str, current: object, **kwargs) -> object:
    """`widget` (st.radio, container.number_input...) under the key WIDGET + `key`, showing the kept value `current`
    when it is drawn afresh (Streamlit drops a widget's state when its page is left); a widget whose state was set
    (a scenario was loaded) shows that. The caller keeps the value it returns."""
    wkey = WIDGET + key
    if wkey not in st.session_state:
        if isinstance(current, list):  # (a multiselect: its chosen options)
            kwargs["default"] = list(current)
        elif "options" in kwargs:
            options = list(kwargs["options"])
            kwargs["index"] = options.index(current) if current in options else 0
        else:
            kwargs["value"] = current
    return widget(label, key=wkey, **kwargs)


def ask(key: str) -> None:
    """Ask for the run of the Run button `key` (its click, or a callback that loads an example and runs it)."""
    st.session_state[ASKED + key] = True


def run_button(place, label: str, key: str, **kwargs) -> bool:
    """The Run button `key` in `place` (st or a column); whether its run was asked for since the last rerun."""
    place.button(label, key=key, on_click=ask, args=(key,), **kwargs)
    return bool(st.session_state.pop(ASKED + key, False))


def holds_edits(editor: str) -> bool:
    """Whether the data editor under widget key `editor` holds edits of the table it was given."""
    state = st.session_state.get(editor) or {}
    return any(state.get(part) for part in ("edited_rows", "added_rows", "deleted_rows"))


def columns_changed(holder, editor: str, look: tuple) -> bool:
    """Whether the data editor `editor` (its widget key) holds edits and is drawn with other columns than at the last
    run: `look` is what its columns are drawn from (their headers' language, presenter mode's widths, the group of
    them shown), kept in `holder.look` (the page's state). The browser's grid starts afresh when its columns change,
    and its pending edits would be lost: the caller then makes the table as edited the one it starts from."""
    seen, holder.look = holder.look, look
    return seen is not None and seen != look and holds_edits(editor)
