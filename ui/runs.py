"""Simulations for the pages: cached per trace, budgets and policy, so reruns and other users reuse them."""
from __future__ import annotations

import hashlib

import streamlit as st

from sim.core.config import Config
from sim.core.engine import simulate
from sim.core.schedule import Schedule
from sim.report.metrics import Metrics, compute
from sim.trace.trace import SEED_CSV, Trace, read_csv, write_csv


def seed_trace() -> Trace:
    return read_csv(SEED_CSV)


def trace_key(trace: Trace) -> str:
    """A short fingerprint of a trace's content, the cache key of its runs."""
    return hashlib.sha256(write_csv(trace).encode()).hexdigest()[:24]


@st.cache_data(max_entries=64, show_spinner=False)
def _run(key: str, _trace: Trace, config: Config, policy: str) -> tuple[Schedule, Metrics]:
    schedule = simulate(_trace, config, policy)
    return schedule, compute(schedule)


def run(trace: Trace, config: Config, policy: str) -> tuple[Schedule, Metrics]:
    """The schedule and metrics of `trace` under `policy` (the trace is keyed by its content)."""
    return _run(trace_key(trace), trace, config, policy)
