"""The simulator on production-sized traces shaped like the Azure 2023 conversation trace.

Prompt lengths, output lengths and inter-arrival gaps are resampled from AzureLLMInferenceTrace_conv.csv
(1 tick = 10 ms); token budget 16,384 a tick, at most 256 running sequences, policy `continuous`. Each size
runs `python -m sim run` as its own process (reading the CSV, simulating, computing every metric, printing
the tables); the figure is the median wall time of the runs after a warm-up, and the process's peak memory.
Goals: 100,000 requests under 10 s and under 1 GB, cost growing about linearly with the request count.
Usage: python bench/azure_100k.py [--runs N]
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, SHARED, median_time

from sim.trace.generate import resample
from sim.trace.importers import ImportOptions, import_azure
from sim.trace.trace import write_csv

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--sizes", default="10000,30000,100000")
args = parser.parse_args()

source_path = SHARED / "traces" / "AzureLLMInferenceTrace_conv.csv"
if not source_path.exists():
    sys.exit(f"{source_path} is not present: this benchmark resamples it")
source = import_azure(source_path.read_bytes(), ImportOptions(ms_per_tick=10)).trace

# Run the CLI in a child that reports its own peak memory (ru_maxrss, KiB on Linux) after it finishes.
CHILD = ("import resource, sys; from sim.cli import main; "
         "code = main(sys.argv[1:]); "
         "print('maxrss_kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
         "sys.exit(code)")

rows = []
with tempfile.TemporaryDirectory() as folder:
    for n in map(int, args.sizes.split(",")):
        path = Path(folder) / f"azure_{n}.csv"
        path.write_text(write_csv(resample(source, n, seed=1)))
        command = [sys.executable, "-c", CHILD, "run", "--trace", str(path), "--policy", "continuous",
                   "--token-budget", "16384", "--max-seqs", "256"]

        def run(command=command):
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
            return done

        seconds, done = median_time(run, runs=args.runs)
        peak_mib = int(done.stderr.split("maxrss_kib")[1].split()[0]) / 1024
        rows.append((n, seconds, peak_mib, done.stdout.splitlines()[0]))

for n, seconds, peak_mib, summary in rows:
    print(f"{n:>7,} requests: {seconds:6.2f} s, peak memory {peak_mib:6.0f} MiB, {seconds / n * 1e6:5.1f} us a request")
    print(f"         {summary}")
first, last = rows[0], rows[-1]
print(f"cost per request at {last[0]:,} vs {first[0]:,}: {last[1] / last[0] / (first[1] / first[0]):.2f}x "
      "(1.00 is linear)")
big = next((r for r in rows if r[0] == 100_000), None)
if big:
    print(f"100,000 requests: {big[1]:.2f} s (goal < 10 s), {big[2]:.0f} MiB (goal < 1024 MiB)")
