"""The Plan a fleet page: which real GPUs, and how many, serve a trace within its SLO (sim.report.plan), drawn as
cost against goodput with the Pareto front, and said in words.

The page's state is one PlannerState under STATE_KEY. A plan runs its points in the capacity lab's shared worker
processes (ui.capacity.shared_pool); the same inputs are answered from a cache any session of the server fills."""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from sim.core.config import SLO, Config, Policy
from sim.core.hardware import MODELS
from sim.report.export import csv_text
from sim.report.plan import Ask, Plan, run_point, search
from sim.trace.generate import Uniform, generate
from sim.trace.trace import Trace

from . import capacity, presenter
from .charts import SERIES_COLORS, base_layout, plotly_figure
from .i18n import t
from .numbers import number, share
from .session import page_state
from .tables import GRID_FONT_PX, fits_page, grid_px
from .wrap import em

STATE_KEY = "planner"
TPS = (1, 2, 4, 8)
SPLITS = ("1:1", "1:2", "1:3", "2:1")  # prefill:decode engines a copy of a split fleet
BUDGETS = (2048, 4096, 8192, 16384)
BLOCK = 16  # tokens a KV block holds (vLLM's default)
CACHED = 16  # plans kept for every session


@dataclass(slots=True)
class PlannerState:
    """What the page's widgets hold, and the plan shown. Lengths are tokens, times ms, the rate requests a second."""
    source: str = "generated"  # generated, or the trace lab's table (its ticks read as ms)
    requests: int = 600
    rate: float = 20.0
    prompt: tuple[int, int] = (200, 2000)
    output: tuple[int, int] = (50, 400)
    seed: int = 3
    model: str = "Llama-3.1-8B"
    gpus: list[str] = field(default_factory=lambda: ["L4", "A100-80GB", "H100"])
    tps: list[int] = field(default_factory=lambda: [1, 2])
    replicas: tuple[int, int] = (1, 8)
    splits: list[str] = field(default_factory=list)  # SPLITS to try beside side by side
    budget: int = 4096
    slo_ttft: float = 1000.0
    slo_tpot: float = 100.0
    target: int = 90  # percent
    priced: bool = False
    prices: dict[str, float] = field(default_factory=lambda: {"L4": 0.8, "A100-80GB": 1.8, "H100": 2.5, "H200": 3.5,
                                                              "MI300X": 3.0})
    shown: tuple[str, Plan] | None = None  # (the inputs' digest, their plan)

    def trace(self) -> Trace:
        """The generated trace: Poisson arrivals at `rate` a second, in ms, lengths uniform in their ranges."""
        return generate(self.requests, self.rate / 1000, Uniform(*self.prompt), Uniform(*self.output),
                        seed=self.seed)

    def ask(self) -> Ask:
        prices = tuple((g, float(self.prices[g])) for g in self.gpus) if self.priced else ()
        splits = tuple(tuple(int(v) for v in split.split(":")) for split in self.splits)
        return Ask(self.model, tuple(self.gpus), tuple(sorted(self.tps)), tuple(self.replicas), (self.budget,),
                   self.target / 100, prices=prices, splits=splits)

    def config(self) -> Config:
        return Config(self.budget, 256, block_size=BLOCK, slo=SLO(ttft=self.slo_ttft or None,
                                                                   tpot=self.slo_tpot or None))


POLICY = Policy(kv_admission="overcommit")  # vLLM's: blocks as tokens grow, preemption when they run out


def state() -> PlannerState:
    return page_state(STATE_KEY, PlannerState)


@st.cache_resource(show_spinner=False)
def _cache() -> tuple[OrderedDict, threading.Lock]:
    return OrderedDict(), threading.Lock()


def digest(trace: Trace, ask: Ask, config: Config) -> str:
    return hashlib.sha256(repr((trace.requests, ask, config, POLICY)).encode()).hexdigest()


def plan(trace: Trace, ask: Ask, config: Config, progress) -> Plan:
    """The plan of these inputs: from the cache, else searched in the shared worker processes (in this process
    if they cannot start). `progress(points)` after each round. PlanError says what is wrong with the ask."""
    key = digest(trace, ask, config)
    cache, lock = _cache()
    with lock:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
    pool = capacity.shared_pool()

    def run(trace: Trace, jobs: list) -> list[dict]:
        return list(pool.map(run_point, [(trace, one, n) for one, n in jobs]))

    def here(trace: Trace, jobs: list) -> list[dict]:
        return [run_point((trace, one, n)) for one, n in jobs]

    try:
        found = search(trace, ask, config, POLICY, run if pool is not None else here, progress)
    except BrokenProcessPool:
        found = search(trace, ask, config, POLICY, here, progress)
    with lock:
        cache[key] = found
        while len(cache) > CACHED:
            cache.popitem(last=False)
    return found


def cost_text(cost: float, priced: bool) -> str:
    return t("pl_dollars", value=number(cost)) if priced else t("pl_gpus" if cost != 1 else "pl_gpu", n=number(cost))


def answer(found: Plan) -> str:
    """The answer in words: the cheapest configuration within the SLO and what it does, or that none does."""
    best = found.cheapest
    if best is None:
        return t("pl_none", target=share(found.target))
    cost = t("pl_costing", cost=cost_text(best["cost"], True)) if found.priced else ""
    words = t("pl_answer", fleet=fleet_text(best), cost=cost, share=share(best["attainment"]),
              goodput=number(best["goodput"] * 1000), ttft=number(best["ttft_p90"]), tpot=number(best["tpot_p90"]))
    cheaper = [r for r in found.rows if not r["error"] and r["cost"] < best["cost"]]
    if cheaper:
        most = max(cheaper, key=lambda r: r["attainment"])
        words += " " + t("pl_cheaper", fleet=fleet_text(most), share=share(most["attainment"]))
    return words


def chart(found: Plan) -> go.Figure:
    """Cost against goodput: a marker a configuration (filled where it keeps the target, hollow where it misses; a
    diamond where prefill and decode are split), a colour a GPU, the Pareto front as a line, the cheapest starred."""
    data = []
    ran = [r for r in found.rows if not r["error"]]
    for color, gpu in zip(SERIES_COLORS * 2, dict.fromkeys(r["hardware"] for r in ran)):
        for split, keeps in ((False, True), (False, False), (True, True), (True, False)):
            mine = [r for r in ran if r["hardware"] == gpu and r["keeps"] == keeps and bool(r["split"]) == split]
            if not mine:
                continue
            name = t("pl_legend", gpu=gpu + (t("pl_legend_split") if split else ""),
                     keeps=t("pl_keeps" if keeps else "pl_misses"))
            data.append({"type": "scatter", "mode": "markers", "name": name, "x": [r["cost"] for r in mine],
                         "y": [r["goodput"] * 1000 for r in mine],
                         "marker": {"size": 12, "color": color if keeps else "white", "line": {"color": color,
                                    "width": 2}, "symbol": "diamond" if split else "circle"},
                         "text": [t("pl_point", fleet=fleet_text(r), share=share(r["attainment"])) for r in mine],
                         "hovertemplate": "%{text}<br>%{x}, %{y:.3g} req/s<extra></extra>"})
    if found.front:
        data.append({"type": "scatter", "mode": "lines", "name": t("pl_front"), "line": {"color": "#555",
                     "dash": "dot", "shape": "hv"}, "x": [r["cost"] for r in found.front],
                     "y": [r["goodput"] * 1000 for r in found.front], "hoverinfo": "skip"})
    layout = base_layout(t("pl_chart"), 420) | {
        "xaxis": {"title": {"text": t("pl_cost_axis_dollars" if found.priced else "pl_cost_axis_gpus")},
                  "gridcolor": "#e5e8ee", "rangemode": "tozero"},
        "yaxis": {"title": {"text": t("pl_goodput_axis")}, "gridcolor": "#e5e8ee",  # (room above the best point)
                  "range": [0, max((r["goodput"] * 1000 for r in ran), default=1) * 1.15 or 1]}}
    best = found.cheapest
    if best is not None:  # its label reaches into the chart, away from the axes and the edges near the point
        right = best["cost"] <= max(r["cost"] for r in ran) / 2
        low = best["goodput"] * 1000 <= layout["yaxis"]["range"][1] / 2
        layout["annotations"] = [{"x": best["cost"], "y": best["goodput"] * 1000, "text": "★ " + t("pl_cheapest"),
                                  "showarrow": True, "arrowhead": 2, "ax": 40 if right else -40,
                                  "ay": -40 if low else 40, "xanchor": "left" if right else "right",
                                  "bgcolor": "white"}]
    return plotly_figure(data, layout)


def fleet_text(row: dict, gpus: bool = True) -> str:
    """A fleet in words: its copies of the engine (or of a split's prefill and decode engines), GPU, and (`gpus`)
    how many GPUs in all."""
    engines = t("pl_fleet_split" if row["split"] else "pl_fleet_engines", replicas=row["replicas"],
                gpu=row["hardware"], tp=row["tp"], split=row["split"])
    return t("pl_fleet_cell", fleet=engines, gpus=cost_text(row["gpus"], False)) if gpus else engines


def table(found: Plan) -> pd.DataFrame:
    """Every configuration simulated, rounded for reading, with units in the headers: the fleet and its cost (its
    GPUs, or where GPUs are priced its dollars an hour), its share within the SLO marked ✓ where it keeps the target,
    and its TTFT and TPOT p90 in one where a 1024 px page holds them too (fits_page): not on a projector's 18 px, nor
    beside long fleet names (prefill:decode splits, many replicas). The p90s, which the ✓ sums up, are in the
    download either way."""
    rows = []
    for r in found.rows:
        row = {t("pl_col_fleet"): fleet_text(r, gpus=not found.priced)}
        if found.priced:
            row[t("pl_col_cost")] = cost_text(r["cost"], True)
        row |= {t("pl_col_attainment"): share(r["attainment"]) + (" ✓" if r["keeps"] else " ✗"),
                t("pl_col_goodput"): number(r["goodput"] * 1000),
                t("pl_col_p90"): f"{number(r['ttft_p90'])} / {number(r['tpot_p90'])}"}
        rows.append(row)
    shown = pd.DataFrame(rows)
    if presenter.on() or shown.empty or not fits_page(width_px(shown)):
        shown = shown.drop(columns=t("pl_col_p90"), errors="ignore")
    return shown


CELL_PADDING_PX = 24  # a grid cell's padding, both sides, and a little room: the fleet column's width


def width_px(shown: pd.DataFrame) -> int:
    """The table's width, at most: the fleet column as fleet_column sets it, the others as the grid sizes them."""
    fleet = t("pl_col_fleet")
    return grid_px(shown, {fleet: fleet_px(shown[fleet])})


def fleet_px(texts) -> int:
    """The fleet column's width at 14 px, for its longest text or its header."""
    return round(max(map(em, [t("pl_col_fleet"), *texts])) * GRID_FONT_PX) + CELL_PADDING_PX


def fleet_column(shown: pd.DataFrame) -> dict | None:
    """The fleet column's width, for its longest text: a grid sizes a column by its first rows only, and the
    fleets with the longest names (A100-80GB) come after ten rows of L4s, so they were cut off. (None without rows.)"""
    name = t("pl_col_fleet")
    if name not in shown:
        return None
    return {name: st.column_config.TextColumn(width=presenter.px(fleet_px(shown[name])))}


def plan_csv(found: Plan) -> str:
    columns = ["hardware", "tp", "token_budget", "replicas", "gpus", "cost", "keeps", "attainment", "goodput",
               "ttft_p50", "ttft_p90", "ttft_p99", "tpot_p50", "tpot_p90", "tpot_p99", "throughput", "error"]
    return csv_text(columns, [[r[c] for c in columns] for r in found.rows])


def model_caption(name: str) -> str:
    m = MODELS[name]
    return t("pl_model_caption", params=number(m.params / 1e9), layers=m.layers,
             kv=number(m.kv_bytes_per_token(2) / 1024))

