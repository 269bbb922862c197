"""The capacity lab's side of Streamlit: the policies table, the sweep run once per input for every user
(worker processes shared by the server, results cached), and the result tables."""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool

import pandas as pd
import streamlit as st

from sim.config import KV_ADMISSION, ORDERS, POLICIES, PREEMPT, SLO, Config, ConfigError, Policy
from sim.sweep import Entry, sweep, worker_pool
from sim.trace import Trace

from .i18n import t

MAX_POLICIES = 4
MAX_WORK = 3_000_000  # requests simulated in one sweep (points x policies x requests): about half a minute
CACHED = 32  # sweeps kept for every user
COLUMNS = ("label", "batching", "order", "token_budget", "max_seqs", "chunk_size", "kv_blocks", "kv_admission",
           "preempt")
NUMBERS = ("token_budget", "max_seqs", "chunk_size", "kv_blocks")


def default_policies(budget: int = 8) -> pd.DataFrame:
    rows = [("static", "static", "fcfs-skip", budget, 0, 0, 0, "reserve", "recompute"),
            ("continuous", "continuous", "fcfs-skip", budget, 0, 0, 0, "reserve", "recompute"),
            ("continuous + chunked prefill", "continuous", "fcfs-skip", budget, 0, max(1, budget // 2), 0, "reserve",
             "recompute")]
    # Numbers as floats: the editor then keeps a typed 2.5 for `entries` to name (a whole-number column rounds it).
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype({c: "float64" for c in NUMBERS})


def fitting_budget(trace: Trace) -> int:
    """The default budget (8, the seed's), doubled until the trace's largest prompt fits in one tick."""
    budget, largest = 8, max((r.prompt for r in trace), default=1)
    while budget < largest:
        budget *= 2
    return budget


def adopt(trace: Trace, key: str, policies_key: str, now_key: str, editor_key: str) -> None:
    """Make `trace` the swept trace; when the policies are still the defaults, size their budgets to it (a
    real trace's prompts are thousands of tokens, the defaults' budget is the seed's 8)."""
    state = st.session_state
    state[key] = trace
    current = state.get(now_key, state.get(policies_key))
    budget = fitting_budget(trace)
    if current is not None and current.equals(default_policies()) and budget != 8:
        state[policies_key] = state[now_key] = default_policies(budget)
        state.pop(editor_key, None)
        st.toast(t("sw_budget_fitted", budget=f"{budget:,}"), icon="📏")


def policies_editor(key: str, table: pd.DataFrame) -> pd.DataFrame:
    """The policies table. Its number columns have no limits: the editor would clamp or drop a bad value
    without a word; `entries` names it instead."""
    choices = {"batching": POLICIES, "order": ORDERS, "kv_admission": KV_ADMISSION, "preempt": PREEMPT}
    config = {"label": st.column_config.TextColumn(t("sw_col_label"), max_chars=60),
              "token_budget": st.column_config.NumberColumn(t("cfg_budget")),
              "max_seqs": st.column_config.NumberColumn(t("sw_col_max_seqs")),
              "chunk_size": st.column_config.NumberColumn(t("sw_col_chunk")),
              "kv_blocks": st.column_config.NumberColumn(t("sw_col_kv_blocks"))}
    for column, options in choices.items():
        config[column] = st.column_config.SelectboxColumn(t(f"sw_col_{column}"), options=options, required=True)
    return st.data_editor(table, key=key, num_rows="dynamic", hide_index=True, width="stretch",
                          column_config=config)


def _whole(row: dict, column: str) -> int | float | None:
    """A number cell: empty or 0 is None (no limit, off); a whole number an int; anything else as typed, for
    Config to refuse by name."""
    value = row.get(column)
    if value is None or pd.isna(value) or value == 0:
        return None
    return int(value) if float(value).is_integer() else value


def entries(table: pd.DataFrame, first_token: str, slo: SLO) -> tuple[list[Entry], list[str]]:
    """The table's policies as sweep entries, or the problems found, each naming its row."""
    out, problems, seen = [], [], set()
    rows = [r for r in table.to_dict("records") if any(pd.notna(v) and v != "" for v in r.values())]
    if not 1 <= len(rows) <= MAX_POLICIES:
        problems.append(t("sw_policy_count", most=MAX_POLICIES))
    for number, row in enumerate(rows, start=1):
        label = "" if pd.isna(row.get("label")) else str(row["label"]).strip()  # a cleared cell is NaN
        if not label or label in seen:
            problems.append(t("sw_policy_label", row=number))
            continue
        seen.add(label)
        try:
            config = Config(_whole(row, "token_budget") or 0, _whole(row, "max_seqs"), first_token, slo,
                            _whole(row, "kv_blocks"))
            policy = Policy(str(row.get("batching")), str(row.get("order")), chunk_size=_whole(row, "chunk_size"),
                            kv_admission=str(row.get("kv_admission")), preempt=str(row.get("preempt")))
        except (ConfigError, TypeError, ValueError) as error:
            problems.append(t("sw_policy_bad", row=number, label=label, reason=str(error)))
            continue
        out.append(Entry(label, config, policy))
    return out, problems


@st.cache_resource
def _shared() -> tuple[OrderedDict, threading.Lock, list[Executor | None]]:
    """One results cache, its lock and one pool of worker processes for every user of this server."""
    return OrderedDict(), threading.Lock(), [None]


def _digest(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def run_sweep(trace: Trace, chosen: list[Entry], parameter: str, values: list,
              progress: Callable[[int, int], None]) -> list[dict]:
    """The sweep's rows, from the cache when anyone ran the same inputs; else computed in the shared worker
    processes (the web server's own thread only waits), or in this process if the pool cannot start."""
    cache, lock, pool = _shared()
    key = _digest(trace.requests, chosen, parameter, values)
    with lock:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        if pool[0] is None:
            pool[0] = worker_pool()
    try:
        rows = sweep(trace, chosen, parameter, values, progress=progress, pool=pool[0])
    except (BrokenProcessPool, OSError):
        with lock:
            pool[0] = None
        rows = sweep(trace, chosen, parameter, values, workers=1, progress=progress)
    with lock:
        cache[key] = rows
        while len(cache) > CACHED:
            cache.popitem(last=False)
    return rows


def results_table(rows: list[dict], parameter: str) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame["attainment"] = (frame["attainment"] * 100).round(1)
    names = {"policy": t("sw_col_label"), "value": t(f"sw_param_{parameter}"), "goodput": t("sw_goodput"),
             "goodput_requests": t("sw_goodput_requests"), "attainment": t("sw_attainment_pct"),
             "throughput": t("sw_throughput"), "finished": t("sw_finished"), "makespan": "makespan",
             "error": t("sw_error")}
    return frame.rename(columns=names)
