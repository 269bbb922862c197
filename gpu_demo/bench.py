"""Speed of the real engine: static vs continuous batching (plain and speculative) on one mixed-length trace,
against serving the same requests one at a time, and the share of iteration time spent outside the model."""
from __future__ import annotations

import statistics

from sim.core.config import Config, Policy
from sim.trace.generate import Uniform, generate

from .engine import run
from .loading import load_model
from .machine import choose_threads
from .prompts import prompts_for

BUDGET = 2048  # token-work an iteration: room for a full batch of the longest prompts
SPEC_TOKENS = 2  # draft tokens a speculative step proposes


def bench_trace(requests: int = 48, seed: int = 0):
    """All requests waiting at tick 0 (an offline batch), prompts of 16 to 128 bytes, outputs of 2 to 120."""
    return generate(requests, rate=1e9, prompt=Uniform(16, 128), output=Uniform(2, 120), seed=seed)


def measure(model, trace, prompts, config: Config, policy: Policy, runs: int) -> dict:
    """Medians over `runs` runs after a warm-up run that is left out: tokens/s, and the shares of iteration time
    outside the model (each run's own, so one disturbed run moves neither figure)."""
    results = [run(model, trace, prompts, config, policy) for _ in range(runs + 1)][1:]
    return {"tokens_per_second": statistics.median(r.tokens_per_second for r in results),
            "overhead_share": statistics.median(r.overhead_share for r in results),
            "scheduling_share": statistics.median(r.scheduling_share for r in results),
            "iterations": results[0].iterations, "device": results[0].device,
            "acceptance_rate": results[0].acceptance_rate}


def bench(device: str = "auto", dtype: str = "float32", threads: int | None = None, requests: int = 48,
          max_seqs: int = 16, runs: int = 3, spec_tokens: int = SPEC_TOKENS) -> str:
    model = load_model(device, dtype)
    chosen = choose_threads(threads)  # (once: every policy runs alike)
    trace = bench_trace(requests)
    prompts = prompts_for(trace)
    batched = Config(BUDGET, max_seqs=max_seqs)
    static = measure(model, trace, prompts, batched, Policy(batching="static"), runs)
    continuous = measure(model, trace, prompts, batched, Policy(), runs)
    speculative = measure(model, trace, prompts, batched, Policy(spec_tokens=spec_tokens), runs)
    alone = measure(model, trace, prompts, Config(BUDGET, max_seqs=1), Policy(), max(1, runs // 2))
    ratio = continuous["tokens_per_second"] / static["tokens_per_second"]
    batching = continuous["tokens_per_second"] / alone["tokens_per_second"]
    outputs = sum(r.output for r in trace.requests)
    return "\n".join([
        f"device {continuous['device']} ({dtype}); {requests} requests, {outputs} output tokens, "
        f"at most {max_seqs} running; median of {runs} runs after a warm-up; {chosen.words()}",
        *(f"{label:<34}{m['tokens_per_second']:8.0f} tokens/s ({m['iterations']} iterations)"
          for label, m in (("static batching", static), ("continuous batching", continuous),
                           (f"continuous, speculative (k = {spec_tokens})", speculative),
                           ("one request at a time", alone))),
        f"continuous / static: {ratio:.2f}x (goal: at least 1.5x)",
        f"batched / one at a time: {batching:.2f}x (goal: at least 3x)",
        f"speculative / plain continuous: {speculative['tokens_per_second'] / continuous['tokens_per_second']:.2f}x, "
        f"{speculative['acceptance_rate']:.0%} of the drafts accepted",
        f"time outside the model: {continuous['overhead_share']:.1%} of iteration time (goal: at most 10%): "
        f"scheduling and bookkeeping {continuous['scheduling_share']:.1%}, building the batch tensors "
        f"{continuous['overhead_share'] - continuous['scheduling_share']:.1%}",
    ])
