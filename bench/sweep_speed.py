"""The capacity lab's sweep: 20 arrival-rate points x 3 policies x 2,000 requests. Goal: under 10 s.

The trace is generated once (seed units: budget 8, prompts 1-8, outputs 1-12, Poisson arrivals) and every
policy sees the same arrivals at every point. Printed: the sweep in worker processes (pool start included, as
a user's first sweep pays it) and in one process, medians of several runs after a warm-up.
Usage: python bench/sweep_speed.py [--runs N] [--requests N] [--points N]
"""
import argparse
import os

from common import median_time

from sim.core.config import SLO, Config, Policy
from sim.report.sweep import Entry, knees, sweep
from sim.trace.generate import Uniform, generate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--points", type=int, default=20)
    args = parser.parse_args()

    trace = generate(args.requests, rate=0.3, prompt=Uniform(1, 8), output=Uniform(1, 12), seed=0)
    config = Config(8, slo=SLO(ttft=20, tpot=2))
    entries = [Entry("static", config, Policy("static")), Entry("continuous", config, Policy()),
               Entry("chunked", config, Policy(chunk_size=4))]
    values = [0.25 * (i + 1) for i in range(args.points)]
    parallel_s, rows = median_time(lambda: sweep(trace, entries, "rate", values, workers=os.cpu_count()), args.runs)
    serial_s, serial_rows = median_time(lambda: sweep(trace, entries, "rate", values, workers=1), args.runs)
    assert rows == serial_rows
    print(f"{args.points} points x {len(entries)} policies x {len(trace):,} requests = {len(rows)} simulations")
    print(f"knees at 90% attainment: {knees(rows, 'rate', 0.9)}")
    print(f"one process: {serial_s:.2f} s median of {args.runs}")
    print(f"{os.cpu_count()} worker processes (pool start included): {parallel_s:.2f} s median of {args.runs}")
    print(f"sweep time: {min(serial_s, parallel_s):.2f} s (goal: under 10 s)")


if __name__ == "__main__":  # worker processes import this file: only the parent runs
    main()
