"""The trace lab's scenario in the session: kept across reruns and page switches, loaded from presets,
uploads, the worked example and share links."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from sim.config import SLO, Config, CostModel, Policy
from sim.trace import REQUIRED, SEED_CSV, TEXT_COLUMNS, Trace, TraceError, check_budget, read_csv, validate

from .scenario import ScenarioError, decode

BASE = "lab_trace"  # the table the editor starts from
CURRENT = "lab_current"  # the table as edited: what runs
EDITOR = "trace"  # the data editor's widget key (its state holds the edits since BASE was set)
WIDGET = "w_"  # widgets show a setting under WIDGET + its key and copy their value back
POLICY_KEYS = {"a": "lab_policy_a", "b": "lab_policy_b"}
_COST = CostModel()
SETTINGS = {"lab_budget": 8, "lab_max_seqs": 0, "lab_first_token": "decode", "lab_slo_ttft": 0.0,
            "lab_slo_tpot": 0.0, "lab_slo_e2e": 0.0, "lab_kv_blocks": 0, "lab_block_size": 4, "lab_swap_cost": 2,
            "lab_cost_kind": "ticks", "lab_c0": _COST.c0, "lab_c_prefill": _COST.c_prefill,
            "lab_c_decode": _COST.c_decode, "lab_c_attn": _COST.c_attn,
            "lab_policy_a": Policy(batching="static"), "lab_policy_b": Policy()}


def frame(trace: Trace) -> pd.DataFrame:
    """The editor's table of a trace: the required columns and any optional column it uses. Numbers are kept
    as floats, so that the editor keeps what is typed (a whole-number column would round 2.5 without a word)
    and validation can name it."""
    rows = trace.rows()
    table = pd.DataFrame(rows, columns=list(rows[0]) if rows else list(REQUIRED))
    return table.astype({c: "float64" for c in table.columns if c not in TEXT_COLUMNS})


def typed(table: pd.DataFrame) -> list[list[object]]:
    """The editor's cells as typed, for a download: empty cells empty, whole numbers without a '.0'."""
    return [[None if pd.isna(cell) else int(cell) if isinstance(cell, float) and cell.is_integer() else cell
             for cell in row] for row in table.astype(object).values.tolist()]


def init() -> None:
    """Defaults for a new session; a returning page finds the edited table, not the widget's lost edits."""
    for key, value in SETTINGS.items():
        st.session_state.setdefault(key, value)
    if BASE not in st.session_state:
        set_trace(read_csv(SEED_CSV))
    elif EDITOR not in st.session_state:
        # The editor's state is dropped when its page is left: start again from what it had become.
        st.session_state[BASE] = st.session_state[CURRENT]


def current_trace(table: pd.DataFrame | None = None) -> Trace:
    """The lab's table as edited (or `table`), validated: raises TraceError naming every bad row."""
    table = st.session_state[CURRENT] if table is None else table
    return validate(table.to_dict("records"), list(table.columns))


def set_trace(trace: Trace) -> None:
    table = frame(trace)
    st.session_state[BASE] = table
    st.session_state[CURRENT] = table
    st.session_state.pop(EDITOR, None)


def set_config(config: Config, policy_a: Policy, policy_b: Policy) -> None:
    """Put a scenario's budgets and policies in the forms (their widgets then show the new values)."""
    cost, slo = config.cost, config.slo
    values = {"lab_budget": config.token_budget, "lab_max_seqs": config.max_seqs or 0,
              "lab_first_token": config.first_token, "lab_slo_ttft": slo.ttft or 0.0, "lab_slo_tpot": slo.tpot or 0.0,
              "lab_slo_e2e": slo.e2e or 0.0, "lab_kv_blocks": config.kv_blocks or 0,
              "lab_block_size": config.block_size, "lab_swap_cost": config.swap_cost, "lab_cost_kind": cost.kind,
              "lab_c0": cost.c0, "lab_c_prefill": cost.c_prefill, "lab_c_decode": cost.c_decode,
              "lab_c_attn": cost.c_attn, "lab_policy_a": policy_a, "lab_policy_b": policy_b}
    for key, value in values.items():
        st.session_state[key] = value
        if key not in POLICY_KEYS.values():
            st.session_state[WIDGET + key] = value  # the widget shows it (Streamlit sends it to the page)
    for key in POLICY_KEYS.values():
        for name, value in policy_widget_values(values[key]).items():
            st.session_state[f"{WIDGET}{key}_{name}"] = value


def load(trace: Trace, config: Config, policy_a: Policy, policy_b: Policy) -> None:
    """Make this the lab's scenario (presets, the worked example's "open in the lab" button, links)."""
    set_trace(trace)
    set_config(config, policy_a, policy_b)


def config() -> Config:
    """The budgets, cache and cost model in the form (raises ConfigError naming a bad field)."""
    s = st.session_state
    slo = SLO(s["lab_slo_ttft"] or None, s["lab_slo_tpot"] or None, s["lab_slo_e2e"] or None)
    cost = CostModel(s["lab_cost_kind"], float(s["lab_c0"]), float(s["lab_c_prefill"]), float(s["lab_c_decode"]),
                     float(s["lab_c_attn"]))
    return Config(int(s["lab_budget"]), int(s["lab_max_seqs"]) or None, s["lab_first_token"], slo,
                  int(s["lab_kv_blocks"]) or None, int(s["lab_block_size"]), int(s["lab_swap_cost"]), cost)


def policies() -> tuple[Policy, Policy]:
    return st.session_state["lab_policy_a"], st.session_state["lab_policy_b"]


def persisted(widget, label: str, key: str, **kwargs):
    """`widget` showing the setting `key`; its value is copied back so it survives page switches. A widget
    whose state was set (a scenario was loaded) shows that; one created afresh starts from the setting."""
    wkey = WIDGET + key
    if wkey not in st.session_state:
        current = st.session_state[key]
        if "options" in kwargs:
            kwargs["index"] = list(kwargs["options"]).index(current) if current in kwargs["options"] else 0
        else:
            kwargs["value"] = current
    value = widget(label, key=wkey, **kwargs)
    st.session_state[key] = value
    return value


def policy_widget_values(policy: Policy) -> dict[str, object]:
    """What each widget of the policy form shows for `policy` (lists as the text the user types)."""
    return {"batching": policy.batching, "order": policy.order, "sjf_key": policy.sjf_key,
            "aging_rate": float(policy.aging_rate), "preemptive_priority": policy.preemptive_priority,
            "tenant_quotas": ", ".join(f"{tenant}={share:g}" for tenant, share in policy.tenant_quotas),
            "timeout": policy.timeout or 0, "chunk_size": policy.chunk_size or 0, "mixing": policy.mixing,
            "kv_admission": policy.kv_admission, "preempt": policy.preempt, "victim": policy.victim,
            "graph_buckets": ", ".join(map(str, policy.graph_buckets)), "spec_tokens": policy.spec_tokens,
            "spec_accept": float(policy.spec_accept), "seed": policy.seed}


LINK = "lab_link"  # the share link last restored (or written), so that a rerun does not restore it again
LINK_ERROR = "lab_link_error"  # why the last link could not be opened (a ScenarioError code)
RAN = "lab_ran"  # the scenario whose results are shown


def open_link(link: str | None) -> bool:
    """A share link restores its scenario once (True when it just did); a bad one leaves the scenario as it
    was and keeps why, under LINK_ERROR."""
    if not link or link == st.session_state.get(LINK):
        return False
    st.session_state[LINK] = link
    try:
        shared = decode(link)
    except ScenarioError as error:
        st.session_state[LINK_ERROR] = error.code
        return False
    load(shared.trace, shared.config, shared.policy_a, shared.policy_b)
    return True


def prompts_over_budget(trace: Trace, config: Config, chosen: tuple[Policy, Policy]) -> tuple:
    """The problems of prompts larger than the token budget, when a policy has no chunked prefill to admit
    them piece by piece (the rule sim.trace.check_budget holds the scheduler to); empty if none."""
    if all(p.chunk_size is not None for p in chosen):
        return ()
    try:
        check_budget(trace, config.token_budget)
    except TraceError as error:
        return error.problems
    return ()


def shown_run(scenario, asked: bool, auto_run: int):
    """The scenario whose results the page shows: the current one when it is small enough to run at every
    change or its run was asked for, else the last one run (the page says it is stale), else None."""
    if scenario is not None and (len(scenario.trace) <= auto_run or asked):
        st.session_state[RAN] = scenario
    return st.session_state.get(RAN)
