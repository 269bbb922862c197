"""The simulator under latency models: 16,000 requests of the Azure conversation trace's lengths, in ms.

Prompt and output lengths are drawn (with replacement, each on its own, as sim.trace.generate.resample draws them)
from AzureLLMInferenceTrace_conv.csv's requests whose prompt fits the token budget (18,964 of 19,366: the other
402, up to 14,050 tokens, could never be admitted whole); arrivals are Poisson at 2 a second (seeded), in ms.
Token budget 4,096 an iteration, at most 128 sequences, policy `continuous`, under
- the linear cost model with its default coefficients (CostModel("linear"), the same as COST_PRESETS'
  small-gpu: c0 8 ms, c_prefill 0.1, c_decode 0.5, c_attn 0.002 ms a token of context read), and
- the shipped measured profile (gpu_demo/profiles/cpu-float32.json, `--cost-profile`).
Each is the whole `python -m sim run ... --json` process (start-up, reading the CSV, simulating, every metric, the
JSON written), timed as bench/seed_16k.py times it (common.cli: its output read through a pipe, as text): the
median of the runs after a warm-up left out. At 16,000 requests it is also timed writing to a file, as
`> out.json` would (reading 100 MB through a pipe and decoding it costs the reader about 0.3 s). Then 4,000 /
8,000 / 16,000 requests (the first ones of the same draw) under each, and the cost per request at 16,000 against
4,000 (1.00 is linear). Goal: under 1 s each at 16,000.

Why a latency model cost about six times as much per request as ticks (issue 27: 12-16 s against 2.6 s): with
context read (c_attn > 0, and any profile) no two iterations are alike, so none were merged: every iteration was
planned, committed and recorded alone (50,000 steps here under linear costs, 60,000 under the profile), and what
was per step became per token. Measured in process (16,000 requests, linear: 5.6 s in all): listing the emitted
times walked every step of every decode segment (3.4 million calls of Step.iteration_ends: 2.2 s); writing them
as JSON was 3.4 million float reprs (1.6 s of json.dumps), though only 50,000 distinct times exist, one an
iteration, shared by every request decoding in it; the context each iteration reads was summed over every
decoder (3.4 million calls of Scheduler.context: about 60% of the 1.2 s of simulating; under the profile the
longest context too, as much again); the inter-token gaps were counted token by token (0.4 s). Now each is per
iteration or per request: every iteration's end is listed once and a request's run of them is a slice
(Schedule.iteration_ends, IterationRun), each is written once (run_json_text), the decode rounds keep the
decoders' context sum and longest context as decoders start, stop and change (DecodeRounds.context, .longest),
a gap counts once for every request spanning it, and a run of pure-decode iterations that differ only in length
is one plan and one commit (Continuous.steady_reading: each iteration's length and end worked out as the
executor would one at a time, every step recorded as it would be alone). Schedules and the JSON are the same,
byte for byte. What is left is about 20 us an iteration of planning and recording and writing 100 MB of JSON.
Usage: python bench/latency_16k.py [--runs N] [--sizes 4000,8000,16000]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, SHARED, cli, median_time

from sim.trace.generate import poisson, resample
from sim.trace.importers import ImportOptions, import_azure
from sim.trace.trace import Trace, validate, write_csv

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--sizes", default="4000,8000,16000")
args = parser.parse_args()
sizes = sorted(map(int, args.sizes.split(",")))

source_path = SHARED / "traces" / "AzureLLMInferenceTrace_conv.csv"
if not source_path.exists():
    sys.exit(f"{source_path} is not present: this benchmark draws its lengths from it")
BUDGET, SEQS, RATE_PER_MS = 4096, 128, 2 / 1000
source = import_azure(source_path.read_bytes(), ImportOptions(ms_per_tick=1)).trace
fitting = Trace(tuple(r for r in source.requests if r.prompt <= BUDGET))
lengths = resample(fitting, sizes[-1], seed=1).requests
arrivals = poisson(sizes[-1], RATE_PER_MS, random.Random("1:arrival"))
MODELS = {"linear": ["--cost-model", "linear"],
          "profile": ["--cost-profile", str(ROOT / "gpu_demo" / "profiles" / "cpu-float32.json")]}


def to_file(command: list[str], path: Path) -> None:
    """Run `command` with its standard output written to `path` (as common.cli runs it, bytecode cached)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with open(path, "wb") as file:
        subprocess.run(command, cwd=ROOT, stdout=file, check=True, env=env)


rows = {}
with tempfile.TemporaryDirectory() as folder:
    for n in sizes:
        trace = validate([{"name": r.name, "arrival": t, "prompt": r.prompt, "output": r.output}
                          for r, t in zip(lengths[:n], arrivals)])
        path = Path(folder) / f"azure_{n}.csv"
        path.write_text(write_csv(trace))
        for model, options in MODELS.items():
            arguments = ["run", "--trace", str(path), "--policy", "continuous", "--token-budget", str(BUDGET),
                         "--max-seqs", str(SEQS), *options, "--json"]
            seconds, out = median_time(lambda arguments=arguments: cli(*arguments), runs=args.runs)
            rows[model, n] = seconds, len(out), out.count('"start":')
    for model, options in MODELS.items():  # the largest again, its output written to a file
        command = [sys.executable, "-m", "sim", "run", "--trace", str(path), "--policy", "continuous",
                   "--token-budget", str(BUDGET), "--max-seqs", str(SEQS), *options, "--json"]
        rows[model, "file"] = median_time(lambda command=command: to_file(command, Path(folder) / "out.json"),
                                          runs=args.runs)[0]

for model in MODELS:
    for n in sizes:
        seconds, size, steps = rows[model, n]
        print(f"{model:>7} {n:>6,} requests: {seconds:5.2f} s ({seconds / n * 1e6:5.1f} us a request), "
              f"{steps:,} steps, {size / 1e6:.0f} MB of JSON")
    first, last = rows[model, sizes[0]][0] / sizes[0], rows[model, sizes[-1]][0] / sizes[-1]
    print(f"{model:>7} cost per request at {sizes[-1]:,} vs {sizes[0]:,}: {last / first:.2f}x (1.00 is linear)")
for model in MODELS:
    print(f"{model}: {rows[model, sizes[-1]][0]:.2f} s at {sizes[-1]:,} requests ({rows[model, 'file']:.2f} s "
          f"writing to a file), median of {args.runs} (goal < 1 s)")
