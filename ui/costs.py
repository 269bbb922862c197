"""The cost lesson: what continuous batching costs, each cost measured on a trace that shows it.

Every figure here comes from a simulation under a latency model in milliseconds (`sim.core.config.CostModel`:
an iteration takes c0 + c_prefill x prefill tokens + c_decode x decoding sequences + c_attn x context read),
never from a constant. The lessons:
1. the worked example in ms: static against continuous batching, beside the tick model's figures; then
   prefill-decode interference: C's prefill lengthens the iteration in which A decodes, and chunked prefill
   spreads it out;
2. TPOT jitter: on a long-tailed trace, the p99 gap between tokens against the p50;
3. head-of-line blocking and starvation: a few long prompts among short ones, in strict and skipping order;
4. KV pressure: admitting more than the cache holds for sure (overcommit) buys TTFT with preemptions;
5. the scheduler's work: continuous batching decides again every iteration and changes the batch often, where
   static batching changes it a whole batch at a time;
6. MoE routing: iterations of one batch size send their tokens to the experts differently, and the busiest
   expert sets the time (sim.core.moe adds c_expert x its tokens + c_a2a x the choices crossing devices).
Every figure is written by ui.numbers, and every table has a row a figure and a column a policy (its short name),
so that it fits a projector's 1024 px.
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from statistics import median

import pandas as pd

from sim.core.config import COST_PRESETS, Config, CostModel, Policy
from sim.core.engine import run as run_scheduler
from sim.core.engine import simulate
from sim.core.hardware import kv_blocks
from sim.core.moe import MoE
from sim.core.policies import make_scheduler
from sim.core.schedule import Schedule
from sim.report.metrics import Metrics, compute, inter_token_gaps
from sim.trace.generate import LogNormal, Uniform, generate
from sim.trace.trace import SEED_BUDGET, SEED_CSV, Trace, read_csv, validate

from . import charts, panels
from .i18n import t
from .numbers import duration, number, quantity, share
from .session import page_state

# Lesson 1: prefill tokens dear, so that one short prompt shows. A decode iteration of one request is 6 ms,
# the seed's tick; its arrivals are read as ticks of that length.
EXAMPLE_COST = CostModel("linear", c0=5.0, c_prefill=2.0, c_decode=1.0, c_attn=0.0)
MS_PER_TICK = 6
# Lessons 2-5: a small GPU's coefficients (sim.core.config.COST_PRESETS), or, on the page's switch, a real model on a
# real GPU under the roofline (sim.core.hardware): Llama-3.1-8B on one L4, whose KV cache in lesson 4 is what the
# weights leave of 75% of its memory (vLLM's --gpu-memory-utilization 0.75: other work shares the GPU).
GPU = COST_PRESETS["small-gpu"]
REAL_GPU = CostModel("roofline", hardware="L4", model="Llama-3.1-8B")
REAL_UTILIZATION = 0.75
HARDWARE = ("teaching", "real")  # the page's switch: the lessons' GPU
STATE_KEY = "costs"  # the page's CostsState
LONG_PROMPT = 1000  # lesson 3: every tenth request carries a prompt this long, under a budget of 1,024


@dataclass
class CostsState:
    """What the page keeps when a user leaves it: the GPU its lessons 2-5 run on."""
    hardware: str = HARDWARE[0]


def state() -> CostsState:
    return page_state(STATE_KEY, CostsState)


@dataclass(frozen=True, slots=True)
class Variant:
    """One policy of a lesson, run."""
    key: str  # the translation key of its label
    policy: Policy
    schedule: Schedule
    metrics: Metrics


def run_variants(trace: Trace, config: Config, policies: dict[str, Policy]) -> list[Variant]:
    out = []
    for key, policy in policies.items():
        schedule = simulate(trace, config, policy)
        out.append(Variant(key, policy, schedule, compute(schedule)))
    return out


def example_trace() -> Trace:
    """The worked example with arrivals in ms (C at tick 3 = 18 ms)."""
    seed = read_csv(SEED_CSV)
    return replace(seed, requests=tuple(r._replace(arrival=r.arrival * MS_PER_TICK) for r in seed.requests))


EXAMPLE_POLICIES = {"cost_static": Policy("static"), "cost_continuous": Policy("continuous"),
                    "cost_chunk2": Policy("continuous", chunk_size=2),
                    "cost_chunk1": Policy("continuous", chunk_size=1)}


def interference() -> list[Variant]:
    """The worked example in ms: static and continuous batching, then continuous with prefill chunks of 2 and of 1
    token."""
    return run_variants(example_trace(), Config(SEED_BUDGET, cost=EXAMPLE_COST), EXAMPLE_POLICIES)


def example_ticks() -> list[Variant]:
    """The same policies on the worked example in the tick model: the worked example's own figures."""
    return run_variants(read_csv(SEED_CSV), Config(SEED_BUDGET), EXAMPLE_POLICIES)


def gaps_of(variant: Variant, name: str) -> list[float]:
    """The gaps between one request's tokens, ms."""
    index = next(i for i, r in enumerate(variant.schedule.requests) if r.name == name)
    return inter_token_gaps(variant.schedule)[index]


def ttft_of(variant: Variant, name: str) -> float:
    return next(r.ttft for r in variant.metrics.requests if r.name == name)


def jitter_trace() -> Trace:
    """300 requests at 4 a second, long-tailed prompts (median 200 tokens), outputs of 20-200."""
    return generate(300, 0.004, LogNormal(200, 0.8), Uniform(20, 200), seed=1)


def lesson_cost(hardware: str = "teaching") -> CostModel:
    """Lessons 2-5's cost model: the teaching GPU's linear model, or the real GPU's roofline."""
    return REAL_GPU if hardware == "real" else GPU


def jitter(hardware: str = "teaching") -> list[Variant]:
    return run_variants(jitter_trace(), Config(4096, cost=lesson_cost(hardware)), {
        "cost_continuous": Policy("continuous"), "cost_chunk128": Policy("continuous", chunk_size=128)})


def hol_trace() -> Trace:
    """300 short prompts (10-60 tokens) at 10 a second; every tenth one replaced by a prompt of 1,000."""
    base = generate(300, 0.01, Uniform(10, 60), Uniform(50, 150), seed=2)
    return validate([{"name": r.name, "arrival": r.arrival, "prompt": LONG_PROMPT if i % 10 == 5 else r.prompt,
                      "output": r.output} for i, r in enumerate(base)])


def hol(hardware: str = "teaching") -> list[Variant]:
    return run_variants(hol_trace(), Config(1024, cost=lesson_cost(hardware)), {
        "cost_fcfs": Policy("continuous", order="fcfs"), "cost_skip": Policy("continuous", order="fcfs-skip"),
        "cost_fcfs_chunk": Policy("continuous", order="fcfs", chunk_size=128)})


def queue_times(variant: Variant) -> tuple[list[float], list[float]]:
    """Queue times (ms) of the short prompts and of the long ones."""
    short = [r.queue_time for r in variant.metrics.requests if r.prompt != LONG_PROMPT]
    long = [r.queue_time for r in variant.metrics.requests if r.prompt == LONG_PROMPT]
    return short, long


KV_BLOCKS, BLOCK_SIZE = 350, 16  # lesson 4: 5,600 tokens of KV cache (on the real GPU: what its memory leaves)


def kv_cache_blocks(hardware: str = "teaching") -> int:
    if hardware != "real":
        return KV_BLOCKS
    c = REAL_GPU
    return kv_blocks(c.hardware, c.model, c.tp, c.precision, BLOCK_SIZE, REAL_UTILIZATION)


def kv_pressure(hardware: str = "teaching") -> list[Variant]:
    config = Config(4096, cost=lesson_cost(hardware), kv_blocks=kv_cache_blocks(hardware), block_size=BLOCK_SIZE)
    return run_variants(jitter_trace(), config, {
        "cost_reserve": Policy("continuous", kv_admission="reserve"),
        "cost_overcommit": Policy("continuous", kv_admission="overcommit")})


@dataclass(frozen=True, slots=True)
class Work:
    """What one policy's scheduler did over a run."""
    key: str
    iterations: int  # iterations run
    decisions: int  # iterations in which the batch could change: every one for continuous, one a batch for static
    changed: int  # batch changes: iterations whose batch is not the one before's
    joins: int  # requests joining the batch; each leaves it once again (it finishes, or is preempted and joins anew)
    plan_us: float  # measured: the median time to plan one iteration, microseconds, on this machine

    @property
    def moves(self) -> int:
        """Requests joining or leaving the batch. Counted as twice the joins: the last batch leaves after the last
        step, so the steps do not record its leaves."""
        return 2 * self.joins


def scheduler_work(repeats: int = 3, hardware: str = "teaching") -> list[Work]:
    """Static against continuous batching on the jitter trace, each planned one iteration at a time (no merged
    ticks: the work a real scheduler does). The planning time is measured: median of `repeats` runs, after a
    warm-up run (the page's runs are made once, when the server starts: ui/lessons.py)."""
    trace, config = jitter_trace(), Config(4096, cost=lesson_cost(hardware))
    out = []
    for key, policy in (("cost_static", Policy("static")), ("cost_continuous", Policy("continuous"))):
        timings = []
        for attempt in range(repeats + 1):
            started = time.perf_counter()
            schedule = run_scheduler(make_scheduler(policy, trace, config), max_repeat=1)
            if attempt:
                timings.append(time.perf_counter() - started)
        iterations = sum(s.iterations for s in schedule.steps)
        changed = sum(1 for s in schedule.steps if s.changes)
        decisions = iterations if policy.batching == "continuous" else sum(
            1 for s in schedule.steps if any(c >= 0 for c in s.changes))
        joins = sum(1 for s in schedule.steps for c in s.changes if c >= 0)
        out.append(Work(key, iterations, decisions, changed, joins, median(timings) / iterations * 1e6))
    return out


@dataclass(frozen=True, slots=True)
class Lesson:
    """One cost, told: its story (markdown with the figures), its charts (the first one named with the cost, unless
    a picture of the runs comes first) and its table."""
    key: str
    story: str
    charts: tuple
    table: pd.DataFrame


def figure_table(rows: dict[str, Callable], columns: list[tuple[str, object]]) -> pd.DataFrame:
    """A row a figure (named by its key's text), a column an item (`columns`: its header and the item, that each
    row's function turns into the figure's text): narrow enough for a projector's 1024 px."""
    return pd.DataFrame([{t("cost_col_figure"): t(key), **{header: cell(item) for header, item in columns}}
                         for key, cell in rows.items()])


def by_policy(variants: list) -> list[tuple[str, object]]:
    """The columns of a table of policies: each one's short name."""
    return [(t(f"{v.key}_short"), v) for v in variants]


def interference_lesson(variants: list[Variant], ticks: list[Variant]) -> Lesson:
    static, plain, _, chunked = variants
    in_ticks = {v.key: v for v in ticks}
    gaps = {v.key: gaps_of(v, "A") for v in variants}
    worst, usual = max(gaps[plain.key]), median(gaps[plain.key])
    c = next(r for r in plain.metrics.requests if r.name == "C")
    figures = {"tick": duration(MS_PER_TICK), "c_arrival": duration(c.arrival), "c_prompt": number(c.prompt),
               "c_static": duration(ttft_of(static, "C")), "c_ttft": duration(ttft_of(plain, "C")),
               "end_static": duration(static.metrics.makespan), "end": duration(plain.metrics.makespan),
               "c_ticks_static": number(ttft_of(in_ticks[static.key], "C")),
               "c_ticks": quantity(ttft_of(in_ticks[plain.key], "C"), "tick"),
               "end_ticks_static": number(in_ticks[static.key].metrics.makespan),
               "end_ticks": quantity(in_ticks[plain.key].metrics.makespan, "tick"),
               "worst": duration(worst), "usual": duration(usual), "rise": share(worst / usual - 1),
               "chunked_worst": duration(max(gaps[chunked.key])), "c_ttft_chunked": duration(ttft_of(chunked, "C")),
               "a_ttft": duration(ttft_of(plain, "A")), "a_ttft_chunked": duration(ttft_of(chunked, "A"))}
    pair = panels.gantts([(t("policy_static"), static.schedule), (t("policy_continuous"), plain.schedule)],
                         t("cost_example_gantt"))
    continuous = variants[1:]  # the interference is continuous batching's: its gaps, A's token after token
    groups = [t("cost_gap_between", a=n, b=n + 1) for n in range(1, len(gaps[plain.key]) + 1)]
    bars = charts.bars_chart(groups, [(t(v.key), gaps[v.key], [number(g) for g in gaps[v.key]]) for v in continuous],
                             t("cost_interference_title"), t("cost_interference_named", **figures),
                             t("cost_gap_axis", unit=t("unit_ms")))
    rows = {"cost_col_c_ttft_ticks": lambda v: quantity(ttft_of(in_ticks[v.key], "C"), "tick"),
            "cost_col_c_ttft": lambda v: duration(ttft_of(v, "C")),
            "cost_col_makespan_ticks": lambda v: quantity(in_ticks[v.key].metrics.makespan, "tick"),
            "cost_col_makespan": lambda v: duration(v.metrics.makespan),
            "cost_col_a_ttft": lambda v: duration(ttft_of(v, "A")),
            "cost_col_a_worst": lambda v: duration(max(gaps[v.key]))}
    return Lesson("interference", t("cost_interference_story", **figures), (pair, bars),
                  figure_table(rows, by_policy(variants)))


def jitter_lesson(variants: list[Variant]) -> Lesson:
    itl = {v.key: v.metrics.percentiles["itl"] for v in variants}
    ratio = {key: gaps[99] / gaps[50] for key, gaps in itl.items()}
    plain, chunked = variants
    figures = {"p50": duration(itl[plain.key][50]), "p99": duration(itl[plain.key][99]),
               "ratio": number(ratio[plain.key]), "chunked_p99": duration(itl[chunked.key][99]),
               "chunked_ratio": number(ratio[chunked.key]), "ttft": duration(plain.metrics.percentiles["ttft"][99]),
               "ttft_chunked": duration(chunked.metrics.percentiles["ttft"][99])}
    series = []
    for v in variants:
        steps = v.schedule.steps
        series.append((t(v.key), [s.start / 1000 for s in steps], [(s.end - s.start) / s.iterations for s in steps]))
    figure = charts.series_chart(series, t("cost_jitter_title"), t("cost_jitter_named", **figures), t("unit_s"),
                                 t("cost_iteration_axis", unit=t("unit_ms")), mode="markers")
    rows = {"cost_col_itl_p50": lambda v: duration(itl[v.key][50]),
            "cost_col_itl_p99": lambda v: duration(itl[v.key][99]),
            "cost_col_ratio": lambda v: number(ratio[v.key]) + "×",
            "cost_col_ttft_p99": lambda v: duration(v.metrics.percentiles["ttft"][99])}
    return Lesson("jitter", t("cost_jitter_story", **figures), (figure,), figure_table(rows, by_policy(variants)))


def hol_lesson(variants: list[Variant]) -> Lesson:
    waits = {v.key: queue_times(v) for v in variants}
    strict, skip, chunked = variants
    figures = {"short_strict": duration(median(waits[strict.key][0])),
               "short_skip": duration(median(waits[skip.key][0])), "long_skip": duration(median(waits[skip.key][1])),
               "long_skip_max": duration(max(waits[skip.key][1])),
               "long_chunked": duration(median(waits[chunked.key][1])),
               "short_chunked": duration(median(waits[chunked.key][0])),
               "itl": duration(skip.metrics.percentiles["itl"][50]),
               "itl_chunked": duration(chunked.metrics.percentiles["itl"][50]), "long": number(LONG_PROMPT)}
    groups = [t("cost_group_short"), t("cost_group_long"), t("cost_group_long_max")]
    series = []
    for v in variants:
        short, long = waits[v.key]
        values = [median(short), median(long), max(long)]
        series.append((t(v.key), [x / 1000 for x in values], [duration(x) for x in values]))
    figure = charts.bars_chart(groups, series, t("cost_hol_title"), t("cost_hol_named", **figures),
                               t("cost_queue_axis", unit=t("unit_s")), log=True)
    rows = {"cost_col_short_wait": lambda v: duration(median(waits[v.key][0])),
            "cost_col_long_wait": lambda v: duration(median(waits[v.key][1])),
            "cost_col_long_max": lambda v: duration(max(waits[v.key][1])),
            "cost_col_itl_p50": lambda v: duration(v.metrics.percentiles["itl"][50])}
    return Lesson("hol", t("cost_hol_story", **figures), (figure,), figure_table(rows, by_policy(variants)))


def kv_lesson(variants: list[Variant]) -> Lesson:
    reserve, overcommit = variants
    m, blocks = overcommit.metrics, reserve.schedule.config.kv_blocks
    figures = {"preemptions": number(m.preemptions), "recomputed": number(m.recomputed_tokens),
               "ttft": duration(m.percentiles["ttft"][99]),
               "ttft_reserve": duration(reserve.metrics.percentiles["ttft"][99]), "blocks": number(blocks),
               "tokens": number(blocks * BLOCK_SIZE), "share": share(m.recomputed_tokens / m.prefill_tokens)}
    figure = panels.kv_totals([(t(v.key), v.schedule) for v in variants], t("cost_kv_title"),
                              t("cost_kv_named", **figures))
    rows = {"cost_col_preemptions": lambda v: number(v.metrics.preemptions),
            "cost_col_recomputed": lambda v: number(v.metrics.recomputed_tokens),
            "cost_col_ttft_p90": lambda v: duration(v.metrics.percentiles["ttft"][90]),
            "cost_col_ttft_p99": lambda v: duration(v.metrics.percentiles["ttft"][99])}
    return Lesson("kv", t("cost_kv_story", **figures), (figure,), figure_table(rows, by_policy(variants)))


def work_lesson(work: list[Work]) -> Lesson:
    static, continuous = work
    figures = {"decisions": number(continuous.decisions), "static_decisions": number(static.decisions),
               "changed": number(continuous.changed), "share": share(continuous.changed / continuous.iterations),
               "static_changed": number(static.changed), "moves": number(continuous.moves),
               "static_moves": number(static.moves), "per": number(continuous.moves / continuous.changed),
               "static_per": number(static.moves / static.changed), "plan": quantity(continuous.plan_us, "us"),
               "static_plan": quantity(static.plan_us, "us")}
    groups = [t("cost_group_decisions"), t("cost_group_changed")]
    series = [(t(w.key), [w.decisions, w.changed], [number(w.decisions), number(w.changed)]) for w in work]
    figure = charts.bars_chart(groups, series, t("cost_work_title"), t("cost_work_named", **figures),
                               t("cost_work_axis"), log=True)
    rows = {"cost_col_iterations": lambda w: number(w.iterations), "cost_col_decisions": lambda w: number(w.decisions),
            "cost_col_changed": lambda w: number(w.changed), "cost_col_changes": lambda w: number(w.moves),
            "cost_col_per_change": lambda w: number(w.moves / w.changed),
            "cost_col_plan": lambda w: quantity(w.plan_us, "us")}
    return Lesson("work", t("cost_work_story", **figures), (figure,), figure_table(rows, by_policy(work)))


# Lesson 6: MoE routing. A small dense part that reads no context, so that iterations of one batch size differ only
# in where their tokens go: 8 experts, each token to 2 of them, Zipf popularity 1, over 4 devices.
MOE_COST = CostModel("linear", c0=4.0, c_prefill=0.05, c_decode=0.1, c_attn=0.0)
MOE = MoE(experts=8, top_k=2, skew=1.0, devices=4, c_expert=0.5, c_a2a=0.02, seed=1)
MOE_SEQS = 32  # the batch stays at this many decoders for most of the run


def moe_trace() -> Trace:
    """120 requests at 50 a second, prompts of 4-16 tokens (so that prefills do not outshine the decodes on the
    heatmap), outputs of 30-90."""
    return generate(120, 0.05, Uniform(4, 16), Uniform(30, 90), seed=0)


def moe_run() -> Variant:
    return run_variants(moe_trace(), Config(1024, max_seqs=MOE_SEQS, cost=MOE_COST, moe=MOE),
                     {"cost_moe": Policy("continuous")})[0]


@dataclass(frozen=True, slots=True)
class Routed:
    """One decode-only iteration of a run: its number (from 1), the requests decoding, its ms and expert loads."""
    number: int
    decoding: int
    ms: float
    loads: tuple[int, ...]


def decode_iterations(schedule: Schedule) -> list[Routed]:
    """The iterations that only decode (no prefill, no padding): their dense work follows the batch size alone."""
    out, number = [], 0
    for step in schedule.steps:
        length = (step.end - step.start) / step.iterations
        for _ in range(step.iterations):
            number += 1
            if step.decode_sequences and not step.prefill_tokens and not step.padding_tokens:
                out.append(Routed(number, step.decode_sequences, length, step.expert_tokens))
    return out


def moe_pair(schedule: Schedule) -> tuple[list[Routed], Routed, Routed]:
    """The decode-only iterations of the run's most common batch size, and the fastest and slowest of them."""
    iterations = decode_iterations(schedule)
    size = Counter(r.decoding for r in iterations).most_common(1)[0][0]
    group = [r for r in iterations if r.decoding == size]
    return group, min(group, key=lambda r: (r.ms, r.number)), max(group, key=lambda r: (r.ms, -r.number))


def moe_lesson(variant: Variant) -> Lesson:
    group, fast, slow = moe_pair(variant.schedule)
    moe, dense = MOE, MOE_COST.duration(0, fast.decoding, 0)
    busy = {r.number: max(range(moe.experts), key=r.loads.__getitem__) for r in (fast, slow)}
    figures = {"tokens": number(fast.decoding), "choices": number(fast.decoding * moe.top_k), "k": moe.top_k,
               "experts": moe.experts, "devices": moe.devices, "dense": duration(dense), "n": number(len(group)),
               "fast": fast.number, "fast_ms": duration(fast.ms), "fast_expert": busy[fast.number],
               "fast_load": number(max(fast.loads)), "slow": slow.number, "slow_ms": duration(slow.ms),
               "slow_expert": busy[slow.number], "slow_load": number(max(slow.loads)),
               "rise": share(slow.ms / fast.ms - 1), "c_expert": number(moe.c_expert), "c_a2a": number(moe.c_a2a)}
    groups = [t("cost_moe_expert", e=e) for e in range(moe.experts)]
    series = [(t("cost_moe_iteration", n=r.number, ms=duration(r.ms)), list(r.loads), [number(n) for n in r.loads])
              for r in (fast, slow)]
    figure = charts.bars_chart(groups, series, t("cost_moe_title"), t("cost_moe_named", **figures),
                               t("cost_moe_axis"))
    heatmap = charts.expert_heatmap(variant.schedule, t("cost_moe_heatmap"), marks=tuple(
        (r.number, t("cost_moe_mark", n=r.number)) for r in sorted((fast, slow), key=lambda r: r.number)))
    # One column an iteration, one row a term of its time: the two side by side.
    rows = {"cost_col_tokens": lambda r: number(r.decoding),
            "cost_col_choices": lambda r: number(r.decoding * moe.top_k),
            "cost_col_busiest": lambda r: t("cost_moe_expert", e=busy[r.number]),
            "cost_col_busiest_load": lambda r: number(max(r.loads)),
            "cost_col_crossing": lambda r: number(moe.crossing(r.loads)), "cost_col_dense": lambda r: duration(dense),
            "cost_col_expert_ms": lambda r: duration(moe.c_expert * max(r.loads)),
            "cost_col_a2a_ms": lambda r: duration(moe.c_a2a * moe.crossing(r.loads)),
            "cost_col_total": lambda r: duration(r.ms)}
    columns = [(t(f"cost_moe_{side}", n=r.number), r) for side, r in (("fastest", fast), ("slowest", slow))]
    return Lesson("moe", t("cost_moe_story", **figures), (figure, heatmap), figure_table(rows, columns))
