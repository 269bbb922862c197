"""A fleet behind a router on production-sized traces shaped like the Azure 2023 conversation trace.

The trace is azure_100k's: prompt and output lengths and inter-arrival gaps resampled from
AzureLLMInferenceTrace_conv.csv (1 tick = 10 ms), token budget 16,384 a tick, at most 256 running sequences,
policy `continuous`, here on 8 replicas with arrivals 8 times as dense (each arrival's tick divided by 8, rounded
down), so each replica is offered about what azure_100k's one engine is. Each size runs
`python -m sim run --replicas 8 --router R` as its own process (reading the CSV, routing and simulating, every
metric, the tables printed): the median wall time of the runs after a warm-up, and the process's peak memory.
Goals: 8 x 100,000 requests under 10 s and under 1 GiB, cost growing about linearly with the request count.
Then what a router's decision costs: in process, 20,000 requests over 2, 4, 8 and 16 replicas, the time spent
in Router.place over the requests (the median of the runs after a warm-up), a request. round-robin is O(1);
least-requests reads each replica's count, O(n replicas); least-tokens also sums each replica's outstanding
requests, O(n + outstanding).
Usage: python bench/cluster_100k.py [--runs N] [--sizes 25000,50000,100000] [--routers round-robin,least-requests]
"""
import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, SHARED, median_time

from sim.core import cluster
from sim.core.cluster import Routing, simulate_cluster
from sim.core.config import Config, Policy
from sim.trace.generate import resample
from sim.trace.importers import ImportOptions, import_azure
from sim.trace.trace import Trace, write_csv

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--sizes", default="25000,50000,100000")
parser.add_argument("--routers", default="round-robin,least-requests")
parser.add_argument("--replicas", type=int, default=8)
args = parser.parse_args()

source_path = SHARED / "traces" / "AzureLLMInferenceTrace_conv.csv"
if not source_path.exists():
    sys.exit(f"{source_path} is not present: this benchmark resamples it")
source = import_azure(source_path.read_bytes(), ImportOptions(ms_per_tick=10)).trace

CHILD = ("import resource, sys; from sim.cli import main; "
         "code = main(sys.argv[1:]); "
         "print('maxrss_kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
         "sys.exit(code)")



def denser(trace: Trace) -> Trace:
    """The trace with arrivals `--replicas` times as dense."""
    return Trace(tuple(r._replace(arrival=r.arrival // args.replicas) for r in trace.requests))


rows = []
with tempfile.TemporaryDirectory() as folder:
    for n in map(int, args.sizes.split(",")):
        path = Path(folder) / f"azure_{n}.csv"
        path.write_text(write_csv(denser(resample(source, n, seed=1))))
        for router in args.routers.split(","):
            command = [sys.executable, "-c", CHILD, "run", "--trace", str(path), "--policy", "continuous",
                       "--token-budget", "16384", "--max-seqs", "256", "--replicas", str(args.replicas),
                       "--router", router]

            def run(command=command):
                return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)

            seconds, done = median_time(run, runs=args.runs)
            peak_mib = int(done.stderr.split("maxrss_kib")[1].split()[0]) / 1024
            rows.append((router, n, seconds, peak_mib, done.stdout.splitlines()[2]))

for router in args.routers.split(","):
    mine = [row for row in rows if row[0] == router]
    for _, n, seconds, peak_mib, summary in mine:
        print(f"{router:>15} {n:>7,} requests on {args.replicas} replicas: {seconds:6.2f} s, peak memory "
              f"{peak_mib:6.0f} MiB, {seconds / n * 1e6:5.1f} us a request")
        print(f"{'':>16}{summary}")
    first, last = mine[0], mine[-1]
    print(f"{router:>15} cost per request at {last[1]:,} vs {first[1]:,}: "
          f"{last[2] / last[1] / (first[2] / first[1]):.2f}x (1.00 is linear)")
    big = next((r for r in mine if r[1] == 100_000), None)
    if big:
        print(f"{router:>15} {args.replicas} x 100,000 requests: {big[2]:.2f} s (goal < 10 s), {big[3]:.0f} MiB "
              "(goal < 1024 MiB)")

# What a decision costs, by the number of replicas.
trace = denser(resample(source, 20_000, seed=2))
config = Config(16384, max_seqs=256)
place = cluster.Router.place
for router in ("round-robin", "least-requests", "least-tokens"):
    line = []
    for replicas in (2, 4, 8, 16):
        spent = [0.0]

        def timed(self, j, spent=spent):
            start = time.perf_counter()
            chosen = place(self, j)
            spent[0] += time.perf_counter() - start
            return chosen

        def one(router=router, replicas=replicas, spent=spent, timed=timed):
            spent[0] = 0.0
            cluster.Router.place = timed
            try:
                simulate_cluster(trace, config, Policy(), Routing(replicas, router))
            finally:
                cluster.Router.place = place
            return spent[0]

        one()  # a warm-up, left out
        seconds = sorted(one() for _ in range(args.runs))
        line.append(f"{replicas} replicas {seconds[len(seconds) // 2] / len(trace.requests) * 1e6:5.1f} us")
    print(f"{router:>15} a decision: " + ", ".join(line))
