"""The Many servers page's lessons: a fleet of the one engine (sim.core.cluster), each figure from its runs.

1. Which replica? Chats whose every turn repeats the conversation so far, on 4 replicas with a prefix cache:
   prefix-affinity sends a turn where its conversation is cached, round-robin and least-requests scatter them. Then
   one system prompt shared by every request: every replica soon caches it, and affinity's pile on the first one
   (until its load cap) is a hot spot.
2. Split prefill from decode (DistServe): 4 engines side by side against 2 prefill and 2 decode engines, on long
   prompts under a tight TPOT SLO; goodput against the arrival rate, and a slow link that costs the split its lead.
Each has a Gantt chart of a small run, a panel a replica (and the KV transfers between them). Every time is in ms
under a linear latency model; every figure is written by ui.numbers.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st

from sim.core.cluster import (
    BALANCE_ABS,
    BALANCE_REL,
    ClusterRun,
    Routing,
    Split,
    SplitRun,
    simulate_cluster,
    simulate_split,
)
from sim.core.config import COST_PRESETS, SLO, Config, CostModel, Policy
from sim.report.metrics import Metrics, cluster_metrics, split_metrics
from sim.trace.generate import poisson
from sim.trace.trace import Trace, validate

from . import charts, panels
from .costs import Lesson, figure_table
from .i18n import t
from .numbers import duration, number, share

REPLICAS, BLOCK = 4, 16
USERS = 24  # lesson 1's chatting users
ROUTERS = ("round-robin", "least-requests", "prefix-affinity")
# Lesson 1: a small GPU's coefficients; a cache of 1,200 blocks of 16 tokens a replica.
ROUTING_CONFIG = Config(4096, 32, kv_blocks=1200, block_size=BLOCK, prefix_block=BLOCK, cost=COST_PRESETS["small-gpu"])
CACHED = Policy(kv_admission="overcommit", prefix_cache=True)
# Lesson 2: prefill dear against decode (long prompts on a large GPU): 0.1 ms a prompt token, 0.1 ms a decoding
# sequence, 5 ms an iteration; first tokens from the prefill (disaggregation samples them there).
SPLIT_COST = CostModel("linear", c0=5.0, c_prefill=0.1, c_decode=0.1, c_attn=0.0005)
SLO_TTFT, SLO_TPOT = 1500, 25  # ms
SPLIT_CONFIG = Config(4096, 64, first_token="prefill", block_size=BLOCK, cost=SPLIT_COST,
                      slo=SLO(ttft=SLO_TTFT, tpot=SLO_TPOT))
RATES = (4, 8, 12, 16, 20, 24, 28)  # requests a second
FAST, SLOW = (1.0, 0.2), (20.0, 10.0)  # a KV transfer: ms, and ms a block
TARGET = 0.9  # the attainment a knee keeps
SPLIT_REQUESTS = 300
PROMPTS = (256, 512, 1024, 2048)  # lesson 2's prompt lengths, drawn evenly


@dataclass(frozen=True, slots=True)
class Fleet:
    """One fleet's run: each replica's (Schedule, Metrics, emitted times) in order (prefill replicas first), the
    combined metrics, the role of each replica, and the disaggregated run (None: replicas side by side)."""
    key: str  # the translation key of its label
    parts: list
    metrics: Metrics
    roles: tuple[str, ...]
    split: SplitRun | None = None


def fleet_from(key: str, run: ClusterRun | SplitRun, outputs: list[int], slo: SLO) -> Fleet:
    """A fleet's run as the page draws it (`outputs`: each request's output tokens in the trace, `slo` its
    config's): simulated here, or measured on the model (gpu_demo.fleet)."""
    if isinstance(run, SplitRun):
        prefill, decode, metrics, _ = split_metrics(run, outputs, slo)
        return Fleet(key, prefill + decode, metrics, ("prefill",) * len(prefill) + ("decode",) * len(decode), run)
    parts, metrics = cluster_metrics(run)
    return Fleet(key, parts, metrics, ("mixed",) * len(parts))


def run_fleet(key: str, trace: Trace, config: Config, policy: Policy, routing: Routing) -> Fleet:
    return fleet_from(key, simulate_cluster(trace, config, policy, routing), [r.output for r in trace.requests],
                      config.slo)


def run_split(key: str, trace: Trace, config: Config, policy: Policy, split: Split, router: str) -> Fleet:
    return fleet_from(key, simulate_split(trace, config, policy, split, router), [r.output for r in trace.requests],
                      config.slo)


# -- lesson 1: which replica -----------------------------------------------------------------------------------------
def chats_trace(hot: bool = False, users: int = USERS, turns: int = 5, seed: int = 1, spread: int = 2000) -> Trace:
    """Users' conversations, the first turns within `spread` ms, each turn 0.8-1.6 s after the last, 20-60 tokens
    out. A turn's prompt is the
    conversation so far, 256 tokens a turn (its hash_ids: the user's blocks, one a 16 tokens). `hot`: instead,
    every request is one shared system prompt of 512 tokens and 64 of its own."""
    rng, events, rows = random.Random(seed), [], []
    for user in range(users):
        start = rng.randint(0, spread)
        events += [(start + turn * rng.randint(800, 1600), user, turn) for turn in range(turns)]
    for at, user, turn in sorted(events):
        if hot:
            blocks = [7_000_000 + j for j in range(32)] + [1_000_000 * (user + 1) + 1000 * turn + j for j in range(4)]
        else:
            blocks = [1_000_000 * (user + 1) + j for j in range(16 * (turn + 1))]
        rows.append({"name": f"u{user:02d}t{turn}", "arrival": at, "prompt": BLOCK * len(blocks),
                     "output": rng.randint(20, 60), "hash_ids": blocks})
    return validate(rows)


def routing_runs() -> dict[str, list[Fleet]]:
    """Each router on the chats, and on one hot system prompt (40 users)."""
    out = {}
    for workload, trace in (("chats", chats_trace()), ("hot", chats_trace(hot=True, users=40))):
        out[workload] = [run_fleet(f"router_{router}", trace, ROUTING_CONFIG, CACHED, Routing(REPLICAS, router))
                         for router in ROUTERS]
    small = chats_trace(users=3, turns=3, seed=4, spread=300)
    out["small"] = [run_fleet(f"router_{router}", small, ROUTING_CONFIG, CACHED, Routing(3, router))
                    for router in ("round-robin", "prefix-affinity")]
    return out


def busiest(fleet: Fleet) -> float:
    """The busiest replica's requests over an even share."""
    counts = [len(schedule.requests) for schedule, _, _ in fleet.parts]
    return max(counts) / (sum(counts) / len(counts))


def routing_lesson(runs: dict[str, list[Fleet]]) -> Lesson:
    chats, hot = runs["chats"], runs["hot"]
    rr, _, affinity = chats
    hot_lr, hot_affinity = hot[1], hot[2]
    figures = {"replicas": number(REPLICAS), "users": number(USERS), "hit_rr": share(rr.metrics.prefix_hit_rate),
               "hit_affinity": share(affinity.metrics.prefix_hit_rate),
               "ttft_rr": duration(rr.metrics.percentiles["ttft"][50]),
               "ttft_affinity": duration(affinity.metrics.percentiles["ttft"][50]),
               "hot_p99_lr": duration(hot_lr.metrics.percentiles["ttft"][99]),
               "hot_p99_affinity": duration(hot_affinity.metrics.percentiles["ttft"][99]),
               "hot_busiest": f"{busiest(hot_affinity):.1f}", "hot_hit": share(hot_affinity.metrics.prefix_hit_rate),
               "cap_abs": number(BALANCE_ABS), "cap_rel": f"{BALANCE_REL:g}"}
    names = [t(f.key) for f in chats]

    def ttft_bars(fleets: list[Fleet], title: str, named: str) -> go.Figure:
        series = [(t(f"fleet_ttft_p{q}"), [f.metrics.percentiles["ttft"][q] / 1000 for f in fleets],
                   [duration(f.metrics.percentiles["ttft"][q]) for f in fleets]) for q in (50, 99)]
        return charts.bars_chart(names, series, title, named, t("fleet_ttft_axis", unit=t("unit_s")))

    first = ttft_bars(chats, t("fleet_routing_chart"), t("fleet_routing_named", **figures))
    second = ttft_bars(hot, t("fleet_hot_chart"), t("fleet_hot_named", **figures))
    small = runs["small"]
    end = max(schedule.makespan for f in small for schedule, _, _ in f.parts)  # (one time axis: compared)
    pictures = [fleet_gantt(f, t("fleet_gantt_routing", router=t(f.key)), end) for f in small]
    rows = {"fleet_col_hit_rate": lambda i: share(chats[i].metrics.prefix_hit_rate),
            "fleet_col_ttft_p50": lambda i: duration(chats[i].metrics.percentiles["ttft"][50]),
            "fleet_col_ttft_p99": lambda i: duration(chats[i].metrics.percentiles["ttft"][99]),
            "fleet_col_hot_ttft_p99": lambda i: duration(hot[i].metrics.percentiles["ttft"][99]),
            "fleet_col_hot_busiest": lambda i: f"{busiest(hot[i]):.1f}×"}
    table = figure_table(rows, [(t(f"{f.key}_short"), i) for i, f in enumerate(chats)])
    return Lesson("routing", t("fleet_routing_story", **figures), (first, second, *pictures), table)


# -- lesson 2: split prefill from decode ---------------------------------------------------------------------------
def split_trace(rate: float, n: int = SPLIT_REQUESTS, seed: int = 1) -> Trace:
    """Poisson arrivals at `rate` a second (ms); prompts of 256-2,048 tokens, 32-128 out."""
    rng = random.Random(seed)
    arrivals = poisson(n, rate / 1000, random.Random(f"{seed}:arrival"))
    return validate([{"name": f"r{i:03d}", "arrival": at, "prompt": rng.choice(PROMPTS),
                      "output": rng.randint(32, 128)} for i, at in enumerate(arrivals)])


def split_variants(trace: Trace, config: Config = SPLIT_CONFIG) -> list[Fleet]:
    """4 engines side by side (least-requests), 2 + 2 split over a fast link, and over a slow one."""
    half = REPLICAS // 2
    return [run_fleet("fleet_colocated", trace, config, Policy(), Routing(REPLICAS, "least-requests")),
            run_split("fleet_split_fast", trace, config, Policy(), Split(half, half, *FAST), "least-requests"),
            run_split("fleet_split_slow", trace, config, Policy(), Split(half, half, *SLOW), "least-requests")]


@dataclass(frozen=True)
class SweepPoint:
    """A variant's figures at one rate of the split lesson's sweep: its label's key and its metrics. Its
    schedules are not kept: the lesson reads only the figures, and the cache (runs) is unpickled at every read,
    which took 1.0-1.4 s with the sweep's schedules in it (29 of its 31 MB) and takes 0.1 s without them."""
    key: str
    metrics: Metrics


def split_runs() -> dict[str, object]:
    """Goodput against the rate for each variant (every rate the same seed's arrivals), and a small run drawn."""
    sweep = {rate: [SweepPoint(f.key, f.metrics) for f in split_variants(split_trace(rate))] for rate in RATES}
    small = run_split("fleet_split_fast", split_trace(8, n=6, seed=3), SPLIT_CONFIG, Policy(), Split(1, 1, 5.0, 0.5),
                      "round-robin")
    return {"sweep": sweep, "small": small}


def knee(sweep: dict[float, list[SweepPoint]], index: int) -> float | None:
    """The highest rate whose attainment keeps TARGET (None: none does)."""
    kept = [rate for rate, fleets in sweep.items() if fleets[index].metrics.slo_attainment >= TARGET]
    return max(kept) if kept else None


def split_lesson(runs: dict[str, object]) -> Lesson:
    sweep = runs["sweep"]
    variants = sweep[RATES[0]]
    knees = [knee(sweep, i) for i in range(len(variants))]
    at = knees[1] or RATES[-1]  # the rate the table reads: the split's knee
    rate_text = lambda rate: t("fleet_no_knee") if rate is None else t("fleet_rate", rate=number(rate))  # noqa: E731
    figures = {"replicas": number(REPLICAS), "half": number(REPLICAS // 2), "tpot": duration(SLO_TPOT),
               "ttft": duration(SLO_TTFT), "target": share(TARGET), "knee_colocated": rate_text(knees[0]),
               "knee_fast": rate_text(knees[1]), "knee_slow": rate_text(knees[2]), "at": number(at),
               "slow": duration(SLOW[0]), "slow_block": duration(SLOW[1]), "fast": duration(FAST[0]),
               "fast_block": duration(FAST[1]),
               "tpot_colocated": duration(sweep[at][0].metrics.percentiles["tpot"][90]),
               "tpot_fast": duration(sweep[at][1].metrics.percentiles["tpot"][90]),
               "ttft_colocated": duration(sweep[at][0].metrics.percentiles["ttft"][90]),
               "ttft_fast": duration(sweep[at][1].metrics.percentiles["ttft"][90]),
               "shortest": number(PROMPTS[0]), "longest": number(PROMPTS[-1]), "block": number(BLOCK),
               "stall": duration(SPLIT_COST.c_prefill * PROMPTS[-1]), "blocks": number(PROMPTS[-1] // BLOCK),
               "slow_total": duration(SLOW[0] + SLOW[1] * (PROMPTS[-1] // BLOCK)),
               "slow_verdict": t("fleet_slow_none") if knees[2] is None else t("fleet_slow_knee",
                                                                               knee=rate_text(knees[2]))}
    series = [(t(v.key), [float(rate) for rate in RATES], [sweep[rate][i].metrics.goodput * 1000 for rate in RATES])
              for i, v in enumerate(variants)]
    chart = charts.series_chart(series, t("fleet_split_chart"), t("fleet_split_named", **figures),
                                t("fleet_rate_axis"), t("fleet_goodput_axis"))
    picture = fleet_gantt(runs["small"], t("fleet_gantt_split"))
    rows = {"fleet_col_knee": lambda i: rate_text(knees[i]),
            "fleet_col_tpot_p90": lambda i: duration(sweep[at][i].metrics.percentiles["tpot"][90]),
            "fleet_col_ttft_p90": lambda i: duration(sweep[at][i].metrics.percentiles["ttft"][90]),
            "fleet_col_attainment": lambda i: share(sweep[at][i].metrics.slo_attainment)}
    table = figure_table(rows, [(t(f"{v.key}_short"), i) for i, v in enumerate(variants)])
    table = table.rename(columns={t("cost_col_figure"): t("fleet_col_figure_at", rate=number(at))})
    return Lesson("split", t("fleet_split_story", **figures), (chart, picture), table)


# -- the Gantt chart of a fleet ------------------------------------------------------------------------------------
def fleet_gantt(fleet: Fleet, title: str, x_max: float | None = None) -> go.Figure:
    """A panel a replica, its requests' lanes in it (named by role), and with a split the KV transfers between the
    prefill and the decode replicas, a bar a request from its first token to its blocks' landing; on a time axis to
    `x_max` (else its last makespan)."""
    runs = [(t(f"fleet_panel_{role}", index=number(k)), schedule)
            for k, (role, (schedule, _, _)) in enumerate(zip(fleet.roles, fleet.parts))]
    transfers = None
    if fleet.split is not None:
        run = fleet.split
        moved = [(trace_name(run, j), transfer) for j, transfer in enumerate(run.transfers) if transfer is not None]
        transfers = panels.transfers_panel(t("fleet_panel_transfers"), moved, fleet.parts[0][0].unit)
    return panels.fleet_gantts(runs, title, transfers, after=fleet.roles.count("prefill"), x_max=x_max)


def trace_name(run: SplitRun, j: int) -> str:
    """Request j's name, read from the prefill replica it was placed on."""
    return run.prefill.schedules[run.prefill.placed[j]].requests[run.prefill.local[j]].name


@st.cache_data(show_spinner=False)
def runs() -> dict[str, dict]:
    """Every lesson's runs, the same in every language: made once a server (ui/warm.py)."""
    return {"routing": routing_runs(), "split": split_runs()}


@st.cache_data(show_spinner=False)
def lessons(lang: str, presenting: bool) -> list[Lesson]:
    """The lessons as the caller's session has them: in its language `lang`, with presenter mode's sizes if
    `presenting` (both part of the cache key)."""
    made = runs()
    return [routing_lesson(made["routing"]), split_lesson(made["split"])]
