"""The cache-aware order lesson of "What it costs": SGLang's longest-prefix-match order finds more of the prefix
cache and serves the requests that share prompts sooner, while the requests with prompts of their own wait.

Chats under four system prompts of 256 tokens each (each chat adds its own question) and, every sixth request,
a "loner" with a prompt nobody shares, through a KV cache too small to keep every system prompt: both policies
cache prefixes; one admits in arrival order, the other by the longest prefix the cache holds. Every figure comes
from the runs (the small-GPU latency model, ms)."""
from __future__ import annotations

import random
from dataclasses import replace
from statistics import median

from sim.core.config import COST_PRESETS, Config, Policy
from sim.trace.trace import Trace, validate

from . import charts
from .costs import Lesson, Variant, by_policy, figure_table, run_variants
from .i18n import t
from .numbers import duration, number, share

SYSTEM, GROUPS, LONER_EVERY = 256, 4, 6
KV_BLOCKS, BLOCK_SIZE = 64, 16


def lpm_trace(n: int = 150, seed: int = 1) -> Trace:
    """Requests 5-20 ms apart: chats (a system prompt of one of GROUPS, then a question of 16-48 tokens) and
    loners (128 tokens of their own), each named by hash_ids of BLOCK_SIZE tokens."""
    rng, now, rows = random.Random(seed), 0, []
    for i in range(n):
        now += rng.randint(5, 20)
        output = rng.randint(8, 24)
        if i % LONER_EVERY == LONER_EVERY - 1:
            rows.append({"name": f"loner{i:03d}", "arrival": now, "prompt": 128, "output": output,
                         "hash_ids": [10_000 + 100 * i + j for j in range(128 // BLOCK_SIZE)]})
        else:
            group, question = rng.randrange(GROUPS), rng.randint(16, 48)
            shared = [1000 * group + j for j in range(SYSTEM // BLOCK_SIZE)]
            own = [50_000 + 10 * i + j for j in range(question // BLOCK_SIZE)]
            rows.append({"name": f"chat{i:03d}", "arrival": now, "prompt": SYSTEM + question, "output": output,
                         "hash_ids": shared + own})
    return validate(rows)


def lpm_runs() -> list[Variant]:
    config = Config(1024, 16, kv_blocks=KV_BLOCKS, block_size=BLOCK_SIZE, prefix_block=BLOCK_SIZE,
                    cost=COST_PRESETS["small-gpu"])
    cached = Policy(kv_admission="overcommit", prefix_cache=True)
    return run_variants(lpm_trace(), config, {"cost_lpm_fcfs": replace(cached, order="fcfs"),
                                           "cost_lpm_lpm": replace(cached, order="lpm")})


def ttft_of(variant: Variant, who: str) -> float:
    """Median TTFT (ms) of the chats or of the loners."""
    return median(r.ttft for r in variant.metrics.requests if r.name.startswith(who))


def lpm_lesson(variants: list[Variant]) -> Lesson:
    fcfs, lpm = variants
    figures = {"system": number(SYSTEM), "groups": number(GROUPS), "blocks": number(KV_BLOCKS),
               "hit_fcfs": share(fcfs.metrics.prefix_hit_rate), "hit_lpm": share(lpm.metrics.prefix_hit_rate),
               "chat_fcfs": duration(ttft_of(fcfs, "chat")), "chat_lpm": duration(ttft_of(lpm, "chat")),
               "loner_fcfs": duration(ttft_of(fcfs, "loner")), "loner_lpm": duration(ttft_of(lpm, "loner"))}
    groups = [t("cost_lpm_chats"), t("cost_lpm_loners")]
    series = [(t(v.key), [ttft_of(v, "chat") / 1000, ttft_of(v, "loner") / 1000],
               [duration(ttft_of(v, "chat")), duration(ttft_of(v, "loner"))]) for v in variants]
    figure = charts.bars_chart(groups, series, t("cost_lpm_title"), t("cost_lpm_named", **figures),
                               t("cost_ttft_p50_axis", unit=t("unit_s")))
    rows = {"cost_col_hit_rate": lambda v: share(v.metrics.prefix_hit_rate),
            "cost_col_chat_ttft": lambda v: duration(ttft_of(v, "chat")),
            "cost_col_loner_ttft": lambda v: duration(ttft_of(v, "loner"))}
    return Lesson("lpm", t("cost_lpm_story", **figures), (figure,), figure_table(rows, by_policy(variants)))
