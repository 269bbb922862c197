"""The capacity planner (`python -m sim plan`): which GPUs, how many, and how split, serve a trace within its SLO.

A configuration is a GPU, a tensor-parallel width, a number of replicas behind a router, and a token budget, all
running one model under the roofline cost model (sim.core.hardware), each replica's KV cache sized from what the
weights leave of its GPUs' memory. A point is one ordinary simulation of the trace (sim.report.sweep.point) on
that fleet, at the trace's own rate.

The search: for each family (GPU, tensor parallel, budget, router) the fewest replicas in the range that keep the SLO
attainment at the target, found by doubling from the range's low end and then bisecting (attainment grows with
replicas: more engines, each with fewer requests), a round at a time, every family's next point in the same round
so that they run side by side. A family whose KV cache cannot hold the trace's longest request does not run, as
vLLM refuses to start when its cache cannot hold max_model_len tokens. Every
point simulated is kept. The answer is the cheapest configuration that keeps the target, and the Pareto front of
cost against goodput: the points no other beats on both (cheaper or as cheap, with more goodput or as much).

Cost is a GPU-hour price a GPU (`--price H100=2.5,...`), or, without prices, the number of GPUs. The points run
in local worker processes, or as Ray tasks (`executor="ray"`): the same function on the same inputs, so the same
rows (sim/report/ray_points.py)."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ..core.cluster import Routing, Split
from ..core.config import Config, ConfigError, CostModel, Policy
from ..core.hardware import DTYPES, GPUS, MODELS, HardwareError, kv_blocks
from ..trace.trace import Trace
from .export import table
from .sweep import Entry, point, worker_pool

EXECUTORS = ("local", "ray")


class PlanError(ValueError):
    """A plan that cannot be searched as asked; the message says what to change."""


@dataclass(frozen=True, slots=True)
class Family:
    """A GPU, a tensor-parallel width, a token budget, a router and side by side or a prefill:decode split: the
    configurations that differ only in replicas (a split's replicas are copies of its P + D engines). Its label
    names the router only when the plan tries several."""
    hardware: str
    tp: int
    token_budget: int
    router: str = "least-requests"
    routers: int = 1  # how many routers the plan tries
    split: tuple[int, int] | None = None  # (prefill, decode) engines a replica of the fleet; None: side by side

    @property
    def label(self) -> str:
        routed = f" {self.router}" if self.routers > 1 else ""
        split = f" split {self.split[0]}:{self.split[1]}" if self.split else ""
        return f"{self.hardware} x{self.tp} budget {self.token_budget}{routed}{split}"

    def engines(self, replicas: int) -> int:
        return replicas * (sum(self.split) if self.split else 1)


@dataclass(frozen=True, slots=True)
class Ask:
    """What the planner searches: the model, the families' parts, the replicas' range, the target attainment of
    the config's SLO, the routers, the GPU-hour prices (empty: cost counts GPUs), the share of memory weights and
    KV cache may use, and the precision."""
    model: str
    hardware: tuple[str, ...]
    tps: tuple[int, ...] = (1,)
    replicas: tuple[int, int] = (1, 16)
    budgets: tuple[int, ...] = (8192,)
    target: float = 0.9
    routers: tuple[str, ...] = ("least-requests",)
    prices: tuple[tuple[str, float], ...] = ()
    memory_utilization: float = 0.9
    precision: str = "bf16"
    splits: tuple[tuple[int, int], ...] = ()  # prefill:decode engine ratios to try beside side by side

    def families(self) -> list[Family]:
        return [Family(h, tp, b, r, len(self.routers), split) for h in self.hardware for tp in self.tps
                for b in self.budgets for r in self.routers for split in (None, *self.splits)]

    def cost(self, family: Family, replicas: int) -> float:
        gpus = family.tp * family.engines(replicas)
        return gpus * dict(self.prices)[family.hardware] if self.prices else gpus


def check(ask: Ask, config: Config) -> None:
    """PlanError naming what is wrong with the ask: unknown names, an empty range, a price missing."""
    if ask.model not in MODELS:
        raise PlanError(f"--model {ask.model!r}: one of {', '.join(MODELS)}")
    for name in ask.hardware:
        if name not in GPUS:
            raise PlanError(f"--hardware {name!r}: one of {', '.join(GPUS)}")
    low, high = ask.replicas
    if not 1 <= low <= high:
        raise PlanError(f"--replicas {low}:{high}: a range LOW:HIGH with 1 <= LOW <= HIGH")
    if any(tp < 1 for tp in ask.tps) or any(b < 1 for b in ask.budgets):
        raise PlanError("--tp and --budgets take whole numbers >= 1")
    for router in ask.routers:
        try:
            Routing(1, router)
        except ConfigError as error:
            raise PlanError(f"--router {router!r}: {error}") from None
    if any(p < 1 or d < 1 for p, d in ask.splits):
        raise PlanError("--splits takes PREFILL:DECODE engine ratios of whole numbers >= 1, such as 1:1,1:2")
    if not 0 < ask.target <= 1:
        raise PlanError(f"--target {ask.target}: an attainment above 0 and at most 1")
    missing = [h for h in ask.hardware if ask.prices and h not in dict(ask.prices)]
    if missing:
        raise PlanError(f"--price names no price for {', '.join(missing)}: give every GPU's, or none")
    if config.slo.ttft is None and config.slo.tpot is None and config.slo.e2e is None:
        raise PlanError("give an SLO to plan for: --slo-ttft and/or --slo-tpot (ms)")


def entry(ask: Ask, family: Family, config: Config, policy: Policy, longest: int) -> Entry | str:
    """The family's fleet as a sweep entry (replicas set per point), or why it cannot run: the model does not fit
    in its GPUs' memory, or leaves a KV cache too small for the `longest` request (prompt and output)."""
    cost = CostModel("roofline", hardware=family.hardware, model=ask.model, tp=family.tp, precision=ask.precision)
    try:
        blocks = kv_blocks(family.hardware, ask.model, family.tp, cost.precision, config.block_size,
                           ask.memory_utilization)
    except HardwareError as error:
        return str(error)
    if blocks * config.block_size < longest:
        return (f"its KV cache holds {blocks * config.block_size:,} tokens, fewer than the longest request's "
                f"{longest:,} (vLLM would not start): raise --tp")
    config = replace(config, token_budget=family.token_budget, cost=cost, kv_blocks=blocks)
    if family.split is None:
        return Entry(family.label, config, policy, Routing(1, family.router))
    # A split samples the first token on the prefill side (sim.core.cluster), and its KV blocks travel over the GPUs'
    # own link (NVLink within a server, where DistServe places the two sides): a block's bytes, each of the tp GPUs
    # sending its share, at one direction's bandwidth, after a start-up as long as a small all-reduce.
    g, m = GPUS[family.hardware], MODELS[ask.model]
    per_block = m.kv_bytes_per_token(DTYPES[ask.precision]) * config.block_size / (family.tp * g.link_gb_s / 2 * 1e6)
    split = Split(*family.split, latency=g.allreduce_us / 1000, per_block=per_block)
    return Entry(family.label, replace(config, first_token="prefill"), policy, Routing(1, family.router), split)


def run_point(job: tuple[Trace, Entry, int]) -> dict:
    """One configuration's row (sim.report.sweep.point at `replicas`; a split's replicas are copies of its prefill
    and decode engines): what a worker process or a Ray task runs."""
    trace, one, replicas = job
    if one.split is None:
        return point(trace, one, "replicas", replicas)
    prefill, decode = one.split.prefill * replicas, one.split.decode * replicas
    return point(trace, one._replace(split=replace(one.split, prefill=prefill, decode=decode)), "prefill_replicas",
                 prefill)


def local_runner(workers: int | None = None) -> tuple[Callable[[Trace, list[tuple[Entry, int]]], list[dict]],
                                                       Callable[[], None]]:
    """Points in this machine's worker processes (one per CPU); the second function stops them."""
    pool = None

    def run(trace: Trace, jobs: list[tuple[Entry, int]]) -> list[dict]:
        nonlocal pool
        if len(jobs) == 1 or workers == 1:
            return [run_point((trace, one, n)) for one, n in jobs]
        if pool is None:
            pool = worker_pool(workers)
        return list(pool.map(run_point, [(trace, one, n) for one, n in jobs]))

    def stop() -> None:
        if pool is not None:
            pool.shutdown()
    return run, stop


@dataclass(slots=True)
class Plan:
    """Every point simulated (rows with the family's fields, replicas, GPUs and cost), the cheapest that keeps the
    target (None: none does), the Pareto front of cost against goodput, and the families that cannot run."""
    rows: list[dict]
    cheapest: dict | None
    front: list[dict]
    unfit: dict[str, str]
    target: float
    priced: bool


def search(trace: Trace, ask: Ask, config: Config, policy: Policy,
           run: Callable[[Trace, list[tuple[Entry, int]]], list[dict]],
           progress: Callable[[int], None] | None = None) -> Plan:
    """Search each family's replicas for the fewest that keep the target (`_next`: doubling, then bisecting), a
    round of points at a time (`run` runs a round's points, anywhere, and returns their rows in order);
    `progress(points so far)` after each round."""
    check(ask, config)
    entries, unfit = {}, {}
    longest = max((r.prompt + r.output for r in trace.requests), default=0)
    for family in ask.families():
        made = entry(ask, family, config, policy, longest)
        if isinstance(made, str):
            unfit[family.label] = made
        else:
            entries[family] = made
    low, high = ask.replicas
    # Of each family: the most replicas known to miss the target (low - 1: none yet), the fewest known to keep it.
    fails = {family: low - 1 for family in entries}
    keeps: dict[Family, int] = {}
    rows: dict[tuple[Family, int], dict] = {}
    while True:
        round_ = [(family, n) for family in entries if (n := _next(fails[family], keeps.get(family), low, high))]
        if not round_:
            break
        for (family, n), row in zip(round_, run(trace, [(entries[family], n) for family, n in round_])):
            rows[family, n] = row = _described(row, ask, family, n)
            if row["keeps"]:
                keeps[family] = n
            else:
                fails[family] = n
        if progress:
            progress(len(rows))
    ordered = [rows[key] for key in sorted(rows, key=lambda k: (ask.families().index(k[0]), k[1]))]
    good = [r for r in ordered if r["keeps"]]
    cheapest = min(good, key=lambda r: (r["cost"], -r["goodput"]), default=None)
    return Plan(ordered, cheapest, pareto(ordered), unfit, ask.target, bool(ask.prices))


def _next(fail: int, keep: int | None, low: int, high: int) -> int | None:
    """The next replica count to try: doubling from `low` until one keeps the target (small fleets are quick to
    simulate, and the answer is often small), then bisecting between the last that missed and the first that
    kept; None when the fewest is known, or when even `high` misses."""
    if keep is None:
        return None if fail >= high else low if fail < low else min(2 * fail, high)
    return (fail + keep) // 2 if keep - fail > 1 else None


def _described(row: dict, ask: Ask, family: Family, replicas: int) -> dict:
    return {"hardware": family.hardware, "tp": family.tp, "token_budget": family.token_budget,
            "router": family.router, "split": f"{family.split[0]}:{family.split[1]}" if family.split else None,
            "replicas": replicas, "gpus": family.tp * family.engines(replicas), "cost": ask.cost(family, replicas),
            "keeps": not row["error"] and row["attainment"] >= ask.target} | row


def pareto(rows: Iterable[dict]) -> list[dict]:
    """The points that ran and that no other beats on cost and goodput both: by cost, each with more goodput than
    every cheaper one."""
    front, best = [], -math.inf
    for row in sorted((r for r in rows if not r["error"]), key=lambda r: (r["cost"], -r["goodput"])):
        if row["goodput"] > best:
            front.append(row)
            best = row["goodput"]
    return front


def _cost_text(cost: float, priced: bool) -> str:
    return f"${cost:,.2f}/h" if priced else f"{cost:g} GPUs"


def plan_text(found: Plan, ask: Ask) -> str:
    """The answer in words, then every point simulated and the front, as tables."""
    lines = []
    best, routed, split = found.cheapest, len(ask.routers) > 1, bool(ask.splits)
    if best is None:
        lines.append(f"No configuration tried keeps {ask.target:.0%} of requests within the SLO: widen --replicas, "
                     "try more --tp or a bigger GPU.")
    else:
        price = f", {_cost_text(best['cost'], True)}" if found.priced else ""
        behind = (f" behind {best['router']}" if routed else "") + (
            f", prefill:decode {best['split']}" if best["split"] else ", side by side" if split else "")
        lines.append(f"Cheapest within the SLO: {best['replicas']} x {best['hardware']} x{best['tp']} (tensor "
                     f"parallel){behind}, budget {best['token_budget']:,}: {best['gpus']} GPUs{price}; "
                     f"{best['attainment']:.1%} of requests within the SLO, goodput {best['goodput'] * 1000:.3g} "
                     f"req/s, TTFT p90 {best['ttft_p90']:.4g} ms, TPOT p90 {best['tpot_p90']:.4g} ms.")
    columns = ["hardware", "tp", "token_budget", *(["router"] if routed else []), *(["split"] if split else []),
               "replicas", "gpus", "cost",
               "attainment", "goodput req/s", "ttft_p90 ms", "tpot_p90 ms", "keeps", "error"]

    def cells(row: dict) -> list[str]:
        if row["error"]:
            numbers = ["-"] * 4
        else:
            numbers = [f"{row['attainment']:.1%}", f"{row['goodput'] * 1000:.3g}", f"{row['ttft_p90']:.4g}",
                       f"{row['tpot_p90']:.4g}"]
        return [row["hardware"], str(row["tp"]), str(row["token_budget"]), *([row["router"]] if routed else []),
                *([row["split"] or "-"] if split else []), str(row["replicas"]), str(row["gpus"]),
                _cost_text(row["cost"], found.priced), *numbers, "yes" if row["keeps"] else "no", row["error"][:60]]
    lines += ["", "Every configuration simulated:", table(columns, [cells(r) for r in found.rows])]
    lines += ["", "Pareto front (cost against goodput):", table(columns, [cells(r) for r in found.front])]
    lines += [f"{label}: {why}" for label, why in found.unfit.items()]
    return "\n".join(lines)
