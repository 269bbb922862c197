"""The trace lab's scenario in the session: kept across reruns and page switches, loaded from presets,
uploads, the worked example and share links."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from sim.config import SLO, Config
from sim.trace import REQUIRED, SEED_CSV, Trace, read_csv

BASE = "lab_trace"  # the table the editor starts from
CURRENT = "lab_current"  # the table as edited: what runs
EDITOR = "trace"  # the data editor's widget key (its state holds the edits since BASE was set)
WIDGET = "w_"  # widgets show a setting under WIDGET + its key and copy their value back
SETTINGS = {"lab_budget": 8, "lab_max_seqs": 0, "lab_first_token": "decode", "lab_slo_ttft": 0.0,
            "lab_slo_tpot": 0.0, "lab_slo_e2e": 0.0, "lab_policy_a": "static", "lab_policy_b": "continuous"}


def frame(trace: Trace) -> pd.DataFrame:
    """The editor's table of a trace: the required columns and any optional column it uses."""
    rows = trace.rows()
    return pd.DataFrame(rows, columns=list(rows[0]) if rows else list(REQUIRED))


def init() -> None:
    """Defaults for a new session; a returning page finds the edited table, not the widget's lost edits."""
    for key, value in SETTINGS.items():
        st.session_state.setdefault(key, value)
    if BASE not in st.session_state:
        set_trace(read_csv(SEED_CSV))
    elif EDITOR not in st.session_state:
        # The editor's state is dropped when its page is left: start again from what it had become.
        st.session_state[BASE] = st.session_state[CURRENT]


def set_trace(trace: Trace) -> None:
    table = frame(trace)
    st.session_state[BASE] = table
    st.session_state[CURRENT] = table
    st.session_state.pop(EDITOR, None)


def set_config(config: Config, policy_a: str, policy_b: str) -> None:
    values = {"lab_budget": config.token_budget, "lab_max_seqs": config.max_seqs or 0,
              "lab_first_token": config.first_token, "lab_slo_ttft": config.slo.ttft or 0.0,
              "lab_slo_tpot": config.slo.tpot or 0.0, "lab_slo_e2e": config.slo.e2e or 0.0,
              "lab_policy_a": policy_a, "lab_policy_b": policy_b}
    for key, value in values.items():
        st.session_state[key] = value
        st.session_state.pop(WIDGET + key, None)  # so the widget shows the new value


def load(trace: Trace, config: Config, policy_a: str, policy_b: str) -> None:
    """Make this the lab's scenario (the worked example's "open in the lab" button)."""
    set_trace(trace)
    set_config(config, policy_a, policy_b)


def config() -> Config:
    """The budgets in the form (raises ConfigError naming a bad field)."""
    s = st.session_state
    slo = SLO(s["lab_slo_ttft"] or None, s["lab_slo_tpot"] or None, s["lab_slo_e2e"] or None)
    return Config(int(s["lab_budget"]), int(s["lab_max_seqs"]) or None, s["lab_first_token"], slo)


def policies() -> tuple[str, str]:
    return st.session_state["lab_policy_a"], st.session_state["lab_policy_b"]


def persisted(widget, label: str, key: str, **kwargs):
    """`widget` showing the setting `key`; its value is copied back so it survives page switches."""
    current = st.session_state[key]
    if "options" in kwargs:
        kwargs["index"] = list(kwargs["options"]).index(current) if current in kwargs["options"] else 0
    else:
        kwargs["value"] = current
    value = widget(label, key=WIDGET + key, **kwargs)
    st.session_state[key] = value
    return value

