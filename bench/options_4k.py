"""Every option of the lab on one 4,000-request trace: how much each option, and the heaviest mixes, cost.

Trace: 4,000 requests built with sim's own Request and Trace; gaps between arrivals uniform 0-3 whole ticks,
prompts uniform 1-200 tokens, outputs uniform 1-60, and a priority (0-2), a tenant (a, b, c) and a deadline
(20-200 ticks after arrival) each, so the queue orders, preemptive priority and tenant quotas have something
to act on; all drawn from `--seed`. Budgets: token budget 512, max_seqs 64. Every case runs the same trace.
Cases: plain (the seed's continuous loop), each option alone on top of plain (chunked prefill 64, prefill-first
mixing, each queue order, a KV cache of 100,000 blocks of 16 reserved / overcommitted with recompute or swap /
with the lowest-priority victim, preemptive priority, a timeout, graph buckets 1-64, speculation k=3 p=0.6,
tenant quotas, the small-gpu linear cost model with and without c_attn, static batching) and the heavy mixes.
Method: `simulate` (sim.core.engine) in process, one warm-up run left out, the median of `--runs` runs.
Goal: each case under 0.3 s. Each case also prints the segments its per-request timelines hold (what the Gantt
chart draws). Prefill-first makes the most (every decoder stalls at each prefill), but those stalls, and the
decodes between them, are shared by every decoder that spans them (sim.core.request.Pauses), so a run makes
each one once.
Reference baseline, when ../shared/oracles/nano-vllm/ is present (and its xxhash installed): nano-vllm's own
Scheduler imported from there, stepped through the same trace tick by tick with no model (each tick: add that
tick's arrivals, schedule(), postprocess() with a dummy token a sequence; a sequence finishes when it has made
its output tokens), max_num_seqs 64, max_num_batched_tokens 512 and a KV cache that never runs out, timed the
same way.
Usage: python bench/options_4k.py [--runs N] [--requests N] [--seed S]
"""
import argparse
import math
import random
from collections.abc import Callable
from dataclasses import replace

from common import median_time

from kit import nano_oracle
from kit.nano_oracle import Setup
from sim.core.config import COST_PRESETS, Config, Policy
from sim.core.engine import simulate
from sim.trace.trace import Request, Trace

GOAL_S = 0.3
BUDGET, MAX_SEQS = 512, 64
PROMPT, OUTPUT, GAP = (1, 200), (1, 60), (0, 3)
KV = {"kv_blocks": 100_000, "block_size": 16}
# nano-vllm's budgets: room for max_num_seqs of the longest requests at once (never the limit)
NANO_SETUP = Setup(MAX_SEQS, BUDGET, KV["block_size"], MAX_SEQS * math.ceil((PROMPT[1] + OUTPUT[1]) / KV["block_size"]))


def make_trace(n: int, seed: int) -> Trace:
    """n requests, the first at tick 0, each with a priority, a tenant and a deadline drawn from the seed."""
    rng = random.Random(f"options_4k:{seed}")
    width, now, requests = len(str(n)), 0, []
    for i in range(n):
        if i:
            now += rng.randint(*GAP)
        requests.append(Request(f"r{i + 1:0{width}d}", now, rng.randint(*PROMPT), rng.randint(*OUTPUT),
                                priority=rng.randint(0, 2), deadline=now + rng.randint(20, 200),
                                tenant=rng.choice("abc")))
    return Trace(tuple(requests))


def cases(seed: int) -> dict[str, tuple[Config, Policy]]:
    """Every option combination the lab offers, by name: each option alone on plain, then the heavy mixes."""
    plain = Config(token_budget=BUDGET, max_seqs=MAX_SEQS)
    kv = replace(plain, **KV)
    small_gpu = COST_PRESETS["small-gpu"]
    overcommit = Policy(kv_admission="overcommit")
    return {
        "plain": (plain, Policy()),
        "chunked prefill 64": (plain, Policy(chunk_size=64)),
        "prefill-first": (plain, Policy(mixing="prefill-first")),
        **{f"order {order}": (plain, Policy(order=order)) for order in ("fcfs", "priority", "sjf", "edf", "aging")},
        "kv reserve": (kv, Policy()),
        "kv overcommit + recompute": (kv, replace(overcommit, preempt="recompute")),
        "kv overcommit + swap": (kv, replace(overcommit, preempt="swap")),
        "kv victim lowest-priority": (kv, replace(overcommit, victim="lowest-priority")),
        "preemptive priority": (plain, Policy(preemptive_priority=True)),
        "timeout 40": (plain, Policy(timeout=40)),
        "graph buckets 1-64": (plain, Policy(graph_buckets=tuple(2 ** i for i in range(7)))),
        "speculation k=3 p=0.6": (plain, Policy(spec_tokens=3, spec_accept=0.6, seed=seed)),
        "tenant quotas a=0.5 b=0.25": (plain, Policy(tenant_quotas=(("a", 0.5), ("b", 0.25)))),
        "linear small-gpu": (replace(plain, cost=small_gpu), Policy()),
        "linear small-gpu, c_attn 0": (replace(plain, cost=replace(small_gpu, c_attn=0.0)), Policy()),
        "static": (plain, Policy(batching="static")),
        "preset nano-vllm": (replace(plain, kv_blocks=NANO_SETUP.num_blocks, block_size=NANO_SETUP.block_size),
                             Policy(preset="nano-vllm")),
        "kv overcommit + prefix cache": (kv, replace(overcommit, prefix_cache=True)),
        "order lpm (prefix cache)": (kv, replace(overcommit, prefix_cache=True, order="lpm")),
        **{f"preset {name}": (kv, Policy(preset=name)) for name in ("vllm-v1", "sglang", "trt-guaranteed-no-evict")},
        "stream credits 8, clients read 0.5 a tick": (replace(plain, read_rate=0.5), Policy(stream_credits=8)),
        "stream credits 8 released, kv overcommit": (replace(kv, read_rate=0.5),
                                                     replace(overcommit, stream_credits=8, release_paused=True)),
        "prefill-first + kv overcommit + recompute + victim latest + first token prefill": (
            replace(kv, first_token="prefill"),
            replace(overcommit, mixing="prefill-first", preempt="recompute", victim="latest")),
        "chunked 64 + prefill-first + kv overcommit": (
            kv, replace(overcommit, chunk_size=64, mixing="prefill-first")),
    }


def nano_vllm_run(trace: Trace) -> Callable[[], list] | str:
    """A function that steps nano-vllm's own Scheduler through the trace (kit/nano_oracle.py), or why it cannot
    be run here. Each request's own token id, so the prefix cache finds no block shared between two prompts."""
    why = nano_oracle.missing()
    if why is not None:
        return why
    requests = [(r.arrival, [i + 1] * r.prompt, r.output) for i, r in enumerate(trace)]
    return lambda: nano_oracle.run(requests, NANO_SETUP)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    trace = make_trace(args.requests, args.seed)
    print(f"requests {len(trace):,}, last arrival tick {trace.requests[-1].arrival:,}, token budget {BUDGET}, "
          f"max_seqs {MAX_SEQS}; median of {args.runs} runs after a warm-up; goal: under {GOAL_S} s a case")
    width = max(len(name) for name in cases(args.seed))
    plain_s = None
    for name, (config, policy) in cases(args.seed).items():
        seconds, schedule = median_time(lambda c=config, p=policy: simulate(trace, c, p), runs=args.runs)
        plain_s = plain_s or seconds
        verdict = "met" if seconds < GOAL_S else "NOT MET"
        unit = "ticks" if config.cost.unit == "tick" else config.cost.unit
        segments = sum(len(timeline.segments) for timeline in schedule.requests)
        print(f"{name:<{width}}  {seconds:6.3f} s  {seconds / plain_s:6.2f}x plain  "
              f"makespan {schedule.makespan:>9,.0f} {unit:<5}  {segments:>8,} segments  {verdict}")

    nano = nano_vllm_run(trace)
    if isinstance(nano, str):
        print(f"nano-vllm baseline skipped: {nano}")
        return
    nano_s, emitted = median_time(nano, runs=args.runs)
    ticks = max(times[-1] for times in emitted)
    print(f"nano-vllm Scheduler (reference, no model): {nano_s:.3f} s median of {args.runs}, {ticks:,} ticks; "
          f"plain takes {plain_s / nano_s:.2f}x its time")


if __name__ == "__main__":
    main()
