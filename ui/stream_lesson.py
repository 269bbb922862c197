"""The backpressure lesson of "What it costs": one slow reader holds KV memory that others wait for.

One request streams to a client that reads 20 tokens a second while forty others come and go. Three ways to
serve it, all under the small-GPU latency model: no bound on what a request may hold unread (the server makes
the tokens at once and buffers them outside the KV cache), 32 stream credits with the paused request keeping
its slot and KV blocks, and the same credits with the paused request releasing them (preempted, recomputed when
its client has caught up). Every figure comes from the runs."""
from __future__ import annotations

import random
from statistics import median

from sim.core.config import COST_PRESETS, Config, Policy
from sim.trace.trace import Trace, validate

from . import charts, panels
from .costs import Lesson, Variant, by_policy, figure_table, run_variants
from .i18n import t
from .numbers import duration, number

SLOW_RATE = 0.02  # tokens a ms: 20 a second, as a client on a slow link or a reader that pauses
SLOW = {"name": "slow", "arrival": 0, "prompt": 400, "output": 300, "read_rate": SLOW_RATE}
CREDITS = 32
KV_BLOCKS, BLOCK_SIZE = 64, 16
GANTT_REQUESTS = 16  # the slow request and the first others, drawn under the chart


def stream_trace(others: int = 40, seed: int = 3) -> Trace:
    """The slow reader at 0, then `others` requests 200-600 ms apart (prompts 100-300, outputs 30-90)."""
    rng, now, rows = random.Random(seed), 0, [SLOW]
    for i in range(others):
        now += rng.randint(200, 600)
        rows.append({"name": f"r{i + 1:02d}", "arrival": now, "prompt": rng.randint(100, 300),
                     "output": rng.randint(30, 90)})
    return validate(rows)


def stream_runs() -> list[Variant]:
    config = Config(2048, cost=COST_PRESETS["small-gpu"], kv_blocks=KV_BLOCKS, block_size=BLOCK_SIZE)
    return run_variants(stream_trace(), config, {
        "cost_unbounded": Policy(),
        "cost_credits_paused": Policy(stream_credits=CREDITS),
        "cost_credits_released": Policy(stream_credits=CREDITS, release_paused=True)})


def _slow(variant: Variant):
    return variant.metrics.requests[0], variant.schedule.requests[0]


def others_ttft(variant: Variant) -> list[float]:
    return sorted(r.ttft for r in variant.metrics.requests[1:] if r.ttft is not None)


def _p90(values: list[float]) -> float:
    return values[min(len(values) - 1, int(0.9 * len(values)))]


def stream_lesson(variants: list[Variant]) -> Lesson:
    unbounded, paused, released = variants
    slow, timeline = _slow(paused)
    figures = {"rate": number(SLOW_RATE * 1000), "output": number(SLOW["output"]), "credits": number(CREDITS),
               "made": duration(_slow(unbounded)[0].e2e), "e2e": duration(slow.e2e), "paused": duration(slow.paused),
               "blocks": number(max(blocks for _, blocks in timeline.kv)), "capacity": number(KV_BLOCKS),
               "ttft": duration(median(others_ttft(unbounded))), "ttft_paused": duration(median(others_ttft(paused))),
               "p90_paused": duration(_p90(others_ttft(paused))),
               "ttft_released": duration(median(others_ttft(released))),
               "preemptions": number(released.metrics.preemptions),
               "recomputed": number(released.metrics.recomputed_tokens)}
    figure = panels.kv_totals([(t(v.key), v.schedule) for v in variants], t("cost_stream_title"),
                              t("cost_stream_named", **figures))
    gantt = charts.gantt(paused.schedule, t("cost_stream_gantt", credits=number(CREDITS), others=GANTT_REQUESTS - 1),
                         rows=list(range(GANTT_REQUESTS)))
    rows = {"cost_col_slow_e2e": lambda v: duration(_slow(v)[0].e2e),
            "cost_col_slow_paused": lambda v: duration(_slow(v)[0].paused),
            "cost_col_others_ttft_p50": lambda v: duration(median(others_ttft(v))),
            "cost_col_others_ttft_p90": lambda v: duration(_p90(others_ttft(v))),
            "cost_col_preemptions": lambda v: number(v.metrics.preemptions),
            "cost_col_recomputed": lambda v: number(v.metrics.recomputed_tokens)}
    return Lesson("stream", t("cost_stream_story", **figures), (figure, gantt), figure_table(rows, by_policy(variants)))
