"""Helpers the benchmark scripts share: medians of timed runs, the seed reference, subprocess timing."""
from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))


def median_time(run, runs: int = 5, warmup: int = 1) -> tuple[float, object]:
    """Median wall time of `runs` calls after `warmup` calls that are left out; also the last result."""
    for _ in range(warmup):
        result = run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def cli(*args: str) -> str:
    """Run `python -m sim ...` as its own process (start-up included) and return its standard output.
    Python may cache compiled modules (a user's second run finds them, as the timed runs after the warm-up
    do), even where the environment says not to (PYTHONDONTWRITEBYTECODE)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True, env=env)
    return done.stdout


def seed_reference():
    """The seed's reference simulator from ../shared/reference, or exit with a note when it is absent."""
    path = SHARED / "reference" / "seed_simulator.py"
    if not path.exists():
        sys.exit(f"{path} is not present: this benchmark compares against it")
    spec = importlib.util.spec_from_file_location("seed_simulator", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
