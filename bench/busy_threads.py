"""The engine's thread choice on a busy machine (issue 28): gpu_demo bench's trace (48 requests waiting at once)
under static and continuous batching, each run with torch's default of one thread a core and with the threads
gpu_demo.machine.choose_threads picks just before it, first on a quiet machine and then beside a process that
spins on one core (other work sharing the cores, as a class's server always has).
Method: each pair of runs alternates (default, chosen), a warm-up pair left out, --runs pairs, medians of
tokens/s; the same trace and budgets for every run. Goal: the chosen threads never fall off the cliff that
the default meets on a busy machine (chosen / default at least 1x busy, and about 1x quiet).
Usage: python bench/busy_threads.py [--runs N]
"""
import argparse
import statistics
import subprocess
import sys
import time

import torch
from common import ROOT

from gpu_demo.bench import BUDGET, bench_trace
from gpu_demo.engine import run
from gpu_demo.loading import load_model
from gpu_demo.machine import choose_threads, cores
from gpu_demo.prompts import prompts_for
from sim.core.config import Config, Policy


def pairs(model, trace, prompts, policy: Policy, runs: int) -> tuple[float, float, list[int]]:
    """Median tokens/s with torch's default threads and with the chosen ones, and the threads chosen."""
    default, chosen, picked = [], [], []
    for attempt in range(runs + 1):
        torch.set_num_threads(cores())
        first = run(model, trace, prompts, Config(BUDGET, max_seqs=16), policy).tokens_per_second
        picked.append(choose_threads().threads)
        second = run(model, trace, prompts, Config(BUDGET, max_seqs=16), policy).tokens_per_second
        if attempt:  # (the first pair warms up)
            default.append(first)
            chosen.append(second)
    return statistics.median(default), statistics.median(chosen), picked[1:]


def measure(label: str, model, runs: int) -> None:
    trace = bench_trace()
    prompts = prompts_for(trace)
    print(f"{label}:")
    for name, policy in (("static", Policy(batching="static")), ("continuous", Policy())):
        default, chosen, picked = pairs(model, trace, prompts, policy, runs)
        print(f"  {name:<11} default {cores()} threads {default:7.0f} tokens/s; chosen {picked} threads "
              f"{chosen:7.0f} tokens/s; chosen / default {chosen / default:.2f}x")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    model = load_model("cpu", "float32")
    measure("quiet machine", model, args.runs)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"], cwd=ROOT)
    try:
        time.sleep(0.5)
        measure("one core busy with another process", model, args.runs)
    finally:
        hog.kill()
        hog.wait()


if __name__ == "__main__":
    main()
