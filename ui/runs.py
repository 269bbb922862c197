"""Simulations for the pages: cached per trace, budgets and policy, so reruns and other users reuse them."""
from __future__ import annotations

import hashlib

import plotly.graph_objects as go
import streamlit as st

from sim.core.config import Config
from sim.core.engine import simulate
from sim.core.schedule import Schedule
from sim.report.metrics import Metrics, compute
from sim.trace.trace import SEED_BUDGET, SEED_CSV, Trace, read_csv, write_csv

from . import presenter, story
from .i18n import language
from .story_figure import story_figure as draw_story


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


@st.cache_resource(max_entries=8, show_spinner=False)
def _story(lang: str, presenting: bool) -> go.Figure:
    """The story's figure (its words are `lang`'s, its sizes presenter mode's: the keys of the cache). Streamlit
    copies a figure before sending it, so one object serves every session."""
    trace = seed_trace()
    return draw_story([story.Run(policy, *run(trace, Config(SEED_BUDGET), policy))
                       for policy in ("static", "continuous")])


def story_figure() -> go.Figure:
    """The worked example's story in this session's language and mode."""
    return _story(language(), presenter.on())
