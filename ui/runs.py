"""Simulations for the pages: cached per trace, budgets and policy, so reruns and other users reuse them."""
from __future__ import annotations

import hashlib
import math
import time

import plotly.graph_objects as go
import streamlit as st

from sim.core.config import Config, Policy
from sim.core.engine import RunStopped, simulate
from sim.core.schedule import Schedule
from sim.report.metrics import Metrics, compute
from sim.trace.trace import SEED_BUDGET, SEED_CSV, Trace, read_csv, write_csv

from . import presenter, story
from .i18n import language, t
from .numbers import number, quantity
from .story_figure import story_figure as draw_story


def seed_trace() -> Trace:
    return read_csv(SEED_CSV)


def trace_key(trace: Trace) -> str:
    """A short fingerprint of a trace's content, the cache key of its runs."""
    return hashlib.sha256(write_csv(trace).encode()).hexdigest()[:24]


# The CPU time one run (the lab's, a sweep point's) may take on the server a class shares. A run of 20,000 requests
# takes 1-2 s under most options (released streams: 0.9-1.6 s at 4,000, so several at 20,000); a short trace
# whose iterations cannot merge grows without end (64 outputs of 200,000 tokens under speculation: 53 s and
# 2.8 GB through the CLI; stopped here at 15 s, 0.86 GB).
CPU_LIMIT_S = 15.0
# The wait on the clock the lab's two runs may take together however busy the server is: a run's CPU time is its
# share of one process's interpreter, and under a class's load 15 s of it took 57 s (40 protocol sessions) and
# 302 s (a heavier load).
WALL_LIMIT_S = 60.0


@st.cache_data(max_entries=64, show_spinner=False)
def _run(key: str, _trace: Trace, config: Config, policy: str | Policy,
         _until: float = math.inf) -> tuple[Schedule, Metrics] | RunStopped:
    """The run, or where it was stopped by its CPU time: that is kept too, so that a rerun of the page (any widget)
    does not spend the limit again on the same inputs. `_until`: the time on the clock (time.monotonic) by which
    it stops all the same (not part of the cache's key). A stop by the clock (a busy server) is raised, so not
    kept: another try, when the server is quieter, may finish."""
    wall = None if _until == math.inf else max(0.0, _until - time.monotonic())
    try:
        schedule = simulate(_trace, config, policy, cpu_limit=CPU_LIMIT_S, wall_limit=wall)
    except RunStopped as stop:
        if stop.computed is not None:
            raise
        return stop
    return schedule, compute(schedule)


def run(trace: Trace, config: Config, policy: str | Policy, until: float = math.inf) -> tuple[Schedule, Metrics]:
    """The schedule and metrics of `trace` under `policy` (the trace is keyed by its content). Raises RunStopped
    past CPU_LIMIT_S, or past `until` on the clock (time.monotonic)."""
    ran = _run(trace_key(trace), trace, config, policy, until)
    if isinstance(ran, RunStopped):
        raise ran
    return ran


def runs_or_stop(trace: Trace, config: Config, policies: tuple[Policy, Policy],
                 on_busy=lambda: None) -> list[tuple[Schedule, Metrics]] | None:
    """The lab's runs of its two policies; None, once an error has said which run went past the CPU limit (or,
    both together, past WALL_LIMIT_S on the clock: then `on_busy` is called), how far it came and what to do
    instead (the inputs stay as they were)."""
    runs, started = [], time.monotonic()
    for k, policy in enumerate(policies):
        try:
            runs.append(run(trace, config, policy, started + WALL_LIMIT_S))
        except RunStopped as stop:
            said = dict(policy=t(f"cfg_policy_{'ab'[k]}"), time=quantity(stop.now, config.cost.unit),
                        done=f"{stop.finished:,}", total=f"{stop.total:,}")
            if stop.computed is None:
                st.error(t("run_stopped", seconds=number(stop.seconds), **said))
            else:  # (the page's wait, both runs')
                st.error(t("run_busy", seconds=number(time.monotonic() - started), computed=number(stop.computed),
                           limit=number(CPU_LIMIT_S), **said))
                on_busy()
            return None
    return runs


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
