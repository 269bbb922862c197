"""The real-model page's many servers: the page's Policy 2 served by a fleet of the model's engines
(gpu_demo.fleet), replicas behind a router or prefill split from decode, drawn as the Many servers page draws a
simulated fleet (ui.fleet), with each replica's figures and every KV copy timed."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from gpu_demo.fleet import FleetRun, run_fleet
from gpu_demo.model import GPT
from sim.core.cluster import ROUTERS
from sim.core.config import Config, Policy
from sim.report.export import csv_text
from sim.trace.trace import Trace

from .fleet import Fleet, fleet_from, fleet_gantt
from .i18n import t
from .numbers import duration, number, share
from .real_model import REDRAW, FleetSettings, model_lock
from .tables import policy_title, show_table

LAYOUTS = ("split", "replicas")
ROUTER_CHOICES = ROUTERS[:4]  # (random teaches nothing round-robin does not)
MAX_ENGINES = 4  # of a kind: each replica is a KV pool of the shared model's, run in turn by one process


@dataclass(frozen=True, slots=True)
class FleetShown:
    """A fleet run on the model, as shown: the run, its fleet as drawn, and what it served."""
    run: FleetRun
    fleet: Fleet
    settings: FleetSettings
    policy: Policy
    trace: Trace


def run_on_model(model: GPT, trace: Trace, prompts: list[bytes], config: Config, policy: Policy,
                 settings: FleetSettings, arrival_unit: str) -> FleetShown:
    """Serve the trace on the fleet, under the model lock, with a progress bar (raises what run_fleet raises:
    ConfigError, TraceError). A split makes each first token on its prefill replica, whatever the page's first
    token mode (the form says so)."""
    lock = model_lock()
    if not lock.acquire(blocking=False):
        with st.spinner(t("rm_waiting")):
            lock.acquire()
    try:
        bar, last = st.progress(0.0, text=t("rmf_running")), [0.0]

        def on_iteration(made: float) -> None:
            now = time.perf_counter()
            if now - last[0] >= REDRAW:
                last[0] = now
                bar.progress(min(1.0, made), text=t("rmf_running"))

        if settings.layout == "split":  # (its prefill replica makes the first token: the form says so)
            config = replace(config, first_token="prefill")
        ran = run_fleet(model, trace, prompts, config, policy, settings.routing(), settings.split(), arrival_unit,
                        on_iteration=on_iteration)
        bar.empty()
    finally:
        lock.release()
    return FleetShown(ran, fleet_from("rmf", ran.run, [r.output for r in trace.requests], config.slo), settings,
                      policy, trace)


def replicas_table(fleet: Fleet) -> pd.DataFrame:
    """A row a replica: its role, requests, makespan, TTFT p50 (a decode replica's: to the second token, said under
    the table), and its KV peak."""
    rows = []
    for k, (role, (schedule, metrics, _)) in enumerate(zip(fleet.roles, fleet.parts)):
        rows.append({t("rmf_col_replica"): t(f"fleet_panel_{role}", index=number(k)),
                     t("rmf_col_requests"): number(len(schedule.requests)),
                     t("rmf_col_makespan"): duration(metrics.makespan),
                     t("rmf_col_ttft"): duration(metrics.percentiles["ttft"][50]),
                     t("rmf_col_kv_peak"): "—" if metrics.kv_peak is None else number(metrics.kv_peak)})
    return pd.DataFrame(rows)


COPY_COLUMNS = ("request", "copy", "blocks", "start_ms", "ms")


def copies(shown: FleetShown) -> list[list]:
    """Every KV copy of a split, timed (COPY_COLUMNS): whose, which way ("send": out of its prefill replica's pool,
    "receive": into its decode replica's), how many blocks, when on its replica's clock and how long it took, ms."""
    names = [r.name for r in shown.trace.requests]
    return [[names[c.request], c.direction, c.blocks, c.start, c.ms] for c in shown.run.copies]


def copies_table(rows: list[list]) -> pd.DataFrame:
    """The copies as the page shows them: named in the page's language, figures rounded with their units."""
    return pd.DataFrame([{t("col_name"): name, t("rmf_col_copy"): t(f"rmf_copy_{direction}"),
                          t("rmf_col_blocks"): number(blocks), t("rmf_col_at"): duration(start),
                          t("rmf_col_took"): duration(ms)} for name, direction, blocks, start, ms in rows])


def show(shown: FleetShown) -> None:
    """What the fleet did: the figures over every request, the Gantt chart of each replica (and the transfers),
    each replica's row, and every copy with its time."""
    ran, fleet, settings = shown.run, shown.fleet, shown.settings
    m = fleet.metrics
    split = settings.layout == "split"
    st.caption(t("rmf_ran_split" if split else "rmf_ran_replicas", policy=policy_title(shown.policy),
                 prefill=settings.prefill, decode=settings.decode, replicas=settings.replicas,
                 router=t(f"router_{settings.router}"), device=ran.device, dtype=ran.dtype))
    # two cards a row: a quarter of a 1024 px page (129 px) cut "3,601 tokens/s" and "4.73 毫秒" to "…", and on a
    # projector every value
    cards = st.columns(2) * 2
    cards[0].metric(t("fleet_ttft_p50"), duration(m.percentiles["ttft"][50]))
    cards[1].metric(t("rmf_tpot_p50"), duration(m.percentiles["tpot"][50]))
    cards[2].metric(t("rmf_throughput"), number(m.throughput * 1000) + " " + t("rmf_tokens_s"))
    copied = sum(c.ms for c in ran.copies)
    cards[3].metric(t("rmf_copies"), duration(copied) if split else "—",
                    help=t("rmf_copies_help"))
    title = t("rmf_gantt", engines=settings.engines())
    st.plotly_chart(fleet_gantt(fleet, title), key="rmf_gantt")
    show_table(replicas_table(fleet), "rmf_replicas")
    if split:
        st.caption(t("rmf_ttft_decode"))
        rows = copies(shown)
        table = copies_table(rows)
        wait = max((r.queue_time for _, metrics, _ in fleet.parts[settings.prefill:] for r in metrics.requests),
                   default=0)
        st.markdown(t("rmf_copies_story", n=number(len(table) // 2), total=duration(copied),
                      share=share(copied / sum(r.iteration_seconds * 1000 for r in ran.replicas)),
                      wait=duration(wait)))
        show_table(table, "rmf_copies")  # (at most ten rows high; fewer: as tall as they are)
        st.download_button(t("rmf_download"), csv_text(list(COPY_COLUMNS), rows),
                           "kv-copies.csv", "text/csv", key="rmf_dl_copies")
    st.caption(t("rmf_clocks"))
