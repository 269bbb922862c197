"""The simulator against the seed's reference: 16,000 requests in seed units through `continuous`.

Trace: budget 8 token-work a tick, prompts uniform 1-8, outputs uniform 1-12, bursty arrivals (gamma gaps,
burstiness 0.25) at 2 requests a tick: a flash crowd at 2.7 times what the budget serves (8 / (4.5 + 6.5) =
0.73 requests a tick), so a backlog builds, the case the seed's reference README times ("its cost grows with
ticks x pending requests"). Both sides get the same trace; the results must agree request by request.
The seed is timed in process (its function call alone); ours is the whole `python -m sim run ... --json`
process, start-up, CSV reading and JSON included. Goal: at least 20x.
Usage: python bench/seed_16k.py [--runs N] [--rate R]
"""
import argparse
import json
import tempfile
from pathlib import Path

from common import cli, median_time, seed_reference

from sim.trace.generate import Uniform, generate
from sim.trace.trace import write_csv

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--requests", type=int, default=16_000)
parser.add_argument("--rate", type=float, default=2.0, help="mean arrivals a tick")
args = parser.parse_args()

trace = generate(args.requests, rate=args.rate, prompt=Uniform(1, 8), output=Uniform(1, 12), burstiness=0.25, seed=1)
seed = seed_reference()
seed.CAPACITY = 8
with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "trace.csv"
    path.write_text(write_csv(trace))
    ours_s, ours = median_time(lambda: cli("run", "--trace", str(path), "--policy", "continuous",
                                           "--token-budget", "8", "--json"), runs=max(args.runs, 5))
seed_s, (seed_requests, seed_metrics) = median_time(
    lambda: seed.continuous_batching([seed.Request(r.name, r.arrival, r.prompt, r.output) for r in trace]),
    runs=args.runs)

run = json.loads(ours)
same = (run["makespan"] == seed_metrics["makespan"]
        and [r["emitted"] for r in run["requests"]] == [r.emitted for r in seed_requests]
        and all(r["ttft"] == seed_metrics["ttft"][r["name"]] for r in run["requests"]))
print(f"requests {len(trace):,}, makespan {run['makespan']:,} ticks, steps stored {len(run['steps']):,}")
print(f"seed reference (in process): {seed_s:.3f} s median of {args.runs}")
print(f"python -m sim run --json (whole process): {ours_s:.3f} s median of {max(args.runs, 5)}")
print(f"same results as the seed: {'yes' if same else 'NO'}")
print(f"speed-up: {seed_s / ours_s:.1f}x (goal: at least 20x)")
