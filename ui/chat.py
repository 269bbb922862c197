"""The trace lab's chat panel: messages typed or taken from a request, a chat template and a tokenizer; the
templated text, its tokens under the tiny model's bytes and under the classroom BPE side by side, and the count
put into the lab's trace as a request's prompt, where it enters admission and the prefill budget."""
from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from sim.trace.chat import (
    BYTES,
    TEMPLATES,
    TOKENIZERS,
    Message,
    MessagesError,
    apply_template,
    bpe,
    conversation,
    count,
    parse_messages,
    piece_text,
    tokens,
)
from sim.trace.trace import PROMPT_TEXT, Problem

from . import lab_state
from .i18n import t
from .problems import problem_text
from .session import WIDGET, kept
from .text import md_escape

TYPED = lab_state.TYPED
SHOWN_TOKENS = 300  # chips drawn a tokenizer; a long text shows its count and its first tokens
COLOURS = ("blue", "orange", "green", "violet", "red", "gray")  # neighbouring tokens differ in colour
VISIBLE = {" ": "␣", "\n": "↵", "\t": "→", "\r": "␍"}  # whitespace a chip would otherwise hide
MAX_ROWS = 500  # rows offered as a source (a long trace's first ones)
NEW_OUTPUT = 8  # output tokens of a request the panel adds (edit it in the table)


def _cell(value: object) -> str:
    """A table cell as text: empty for a missing one (NaN in the editor's table)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def row_messages(table: pd.DataFrame, position: int) -> tuple[Message, ...]:
    """What a row of the lab's table says in words: its messages, or its system message and text. Raises
    MessagesError when its messages cannot be read."""
    row = table.iloc[position]
    raw = _cell(row.get("messages"))
    return conversation(_cell(row.get("text")) or None, _cell(row.get("system")) or None,
                        parse_messages(raw) if raw else None)


def _rows_in_words(table: pd.DataFrame) -> list[int]:
    """Positions of the rows that give their prompt in words (a text, a system message or messages), the first
    MAX_ROWS of them."""
    said = pd.Series(False, index=table.index)
    for column in (c for c in PROMPT_TEXT if c in table.columns):
        said |= table[column].map(_cell).astype(bool)
    return [i for i, yes in enumerate(said) if yes][:MAX_ROWS]


def _name(table: pd.DataFrame, position: int) -> str:
    return _cell(table.iloc[position]["name"])


def chips(pieces: list[bytes]) -> str:
    """Markdown of tokens as coloured chips: each piece's text escaped (user text is never markdown), its
    whitespace made visible, and a cut character shown as its bytes in hex."""
    shown = []
    for i, piece in enumerate(pieces[:SHOWN_TOKENS]):
        text = "".join(VISIBLE.get(c, c) for c in piece_text(piece))
        shown.append(f":{COLOURS[i % len(COLOURS)]}-background[{md_escape(text)}]")
    return " ".join(shown)


def _messages_source(table: pd.DataFrame) -> tuple[int, tuple[Message, ...] | None]:
    """The source chosen and its messages (None, after saying why, when a row's messages cannot be read)."""
    rows, chat = _rows_in_words(table), lab_state.state().chat
    if chat.source not in (TYPED, *rows):  # its row was deleted or lost its text
        chat.source = TYPED
        st.session_state.pop(WIDGET + "chat_source", None)
    source = chat.source = kept(st.selectbox, t("chat_source"), "chat_source", chat.source, options=[TYPED, *rows],
                                help=t("chat_source_help"), format_func=lambda i: t("chat_source_typed")
                                if i == TYPED else t("chat_source_row", name=_name(table, i)))
    if source == TYPED:
        if chat.system is None:
            chat.system, chat.user = t("chat_example_system"), t("chat_example_user")
        left, right = st.columns(2)
        with left:  # kept outside the widgets' state: what was typed survives a page switch or a folded panel
            system = chat.system = kept(st.text_area, t("chat_system"), "chat_system", chat.system,
                                        help=t("chat_system_help"), height=100)
        with right:
            user = chat.user = kept(st.text_area, t("chat_user"), "chat_user", chat.user, height=100)
        return source, conversation(user.strip() or None, system.strip() or None)
    try:
        return source, row_messages(table, source)
    except MessagesError as error:
        reason = problem_text(Problem(error.code, params=error.params))
        st.warning(t("chat_row_bad", name=md_escape(_name(table, source)), reason=md_escape(reason)))
        return source, None


def panel() -> None:
    """The chat panel, drawn inside the lab's expander."""
    st.markdown(t("chat_intro"))
    table = lab_state.state().current
    source, messages = _messages_source(table)
    chat = lab_state.state().chat
    c1, c2 = st.columns(2)
    with c1:
        template = chat.template = kept(st.selectbox, t("chat_template"), "chat_template", chat.template,
                                        options=list(TEMPLATES), format_func=lambda k: t(f"chat_tpl_{k}"),
                                        help=t("chat_template_help"))
    with c2:
        chosen = chat.tokenizer = kept(st.radio, t("chat_tokenizer"), "chat_tokenizer", chat.tokenizer,
                                       options=TOKENIZERS, horizontal=True, format_func=lambda k: t(f"chat_tok_{k}"),
                                       help=t("chat_tokenizer_help"))
    if not messages:
        if messages is not None:
            st.info(t("chat_empty"))
        return
    text = apply_template(template, messages)
    st.markdown(t("chat_templated", chars=f"{len(text):,}"))
    st.code(text, language=None, wrap_lines=True)
    counts = _token_columns(text)
    _use_button(table, source, messages, counts[chosen])
    st.caption(t("chat_leaves_out"))


def _token_columns(text: str) -> dict[str, int]:
    """Both tokenizers side by side: count, chips and what each is; returns the counts."""
    counts = {name: count(name, text) for name in TOKENIZERS}
    for column, name in zip(st.columns(len(TOKENIZERS)), TOKENIZERS):
        pieces = tokens(name, text)
        column.metric(t(f"chat_tok_{name}"), t("chat_tokens", n=f"{counts[name]:,}"))
        column.caption(t("chat_bytes_note") if name == BYTES else t("chat_bpe_note", vocab=f"{len(bpe(name).vocab):,}"))
        column.markdown(chips(pieces))
        if len(pieces) > SHOWN_TOKENS:
            column.caption(t("chat_shown_first", shown=SHOWN_TOKENS, n=f"{len(pieces):,}"))
    subword = next(name for name in TOKENIZERS if name != BYTES)
    st.markdown(t("chat_ratio", bytes=f"{counts[BYTES]:,}", bpe=f"{counts[subword]:,}",
                  ratio=f"{counts[BYTES] / counts[subword]:.1f}"))
    foreign = "".join(c for c in text if not c.isascii())
    if foreign:
        st.info(t("chat_fallback", chars=f"{len(foreign):,}", bytes=f"{count(BYTES, foreign):,}",
                  bpe=f"{count(subword, foreign):,}"))
    return counts


def _use_button(table: pd.DataFrame, source: int, messages: tuple[Message, ...], prompt: int) -> None:
    if source == TYPED:
        label = t("chat_add", n=f"{prompt:,}")
    else:
        label = t("chat_use", n=f"{prompt:,}", name=_name(table, source))
    st.button(label, key="chat_use", type="primary", help=t("chat_use_help"), on_click=_use,
              args=(source, messages, prompt))


def _use(source: int, messages: tuple[Message, ...], prompt: int) -> None:
    """Put the count into the lab's table, kept as typed otherwise: as the prompt of the chosen row, or of a
    new request that carries the typed messages. The editor then starts from that table."""
    table = lab_state.state().current.copy()
    if source == TYPED:
        names = set(table["name"].map(_cell))  # the editor's table always has the required columns
        name = next(f"chat{k}" for k in range(1, len(names) + 2) if f"chat{k}" not in names)
        said = dict(messages)  # role -> content: a typed conversation has at most one of each
        arrivals = pd.to_numeric(table["arrival"], errors="coerce")
        last = arrivals.max() if arrivals.notna().any() else 0.0  # arriving last keeps the rows in order
        row = {"name": name, "arrival": float(last), "prompt": float(prompt), "output": float(NEW_OUTPUT),
               "text": said.get("user"), "system": said.get("system")}
        table = pd.concat([table, pd.DataFrame([row])], ignore_index=True)
        st.toast(t("chat_added", name=name, n=f"{prompt:,}"))
    else:
        table.iloc[source, table.columns.get_loc("prompt")] = float(prompt)
        st.toast(t("chat_used", name=_name(table, source), n=f"{prompt:,}"))
    lab_state.set_table(table)
