"""Helpers the benchmark scripts share: medians of timed runs, the seed reference, subprocess timing."""
from __future__ import annotations

import argparse
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
    """Median wall time of `runs` calls after `warmup` calls that are left out; also the last result. Only the
    call is timed: freeing the call before's result (a large schedule's records, tens of ms) is not."""
    for _ in range(warmup):
        result = run()
    times = []
    for _ in range(runs):
        result = None  # the last call's result is freed before the clock starts, not inside this call's time
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


def class_arguments(sessions: int, gap: float, rounds: int, goal: float, goal_help: str,
                    paced: str = "") -> argparse.ArgumentParser:
    """The options of a load benchmark that plays a class: how many sessions, the warm-up, how they are paced
    (`paced` prefixes the pacing options' help, where they apply to one mode only) and the goal."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=sessions)
    parser.add_argument("--warmup", type=int, default=1, help="sessions run alone first, left out (server imports, "
                        "model loading, first sweep)")
    parser.add_argument("--gap", type=float, default=gap, help=f"{paced}seconds between two sessions opening their "
                        "link")
    parser.add_argument("--think", type=float, default=7.0, help=f"{paced}mean seconds a student reads a page before "
                        "the next click (exponential, as TPC-W's 7 s)")
    parser.add_argument("--rounds", type=int, default=rounds, help="walks through every page per session")
    parser.add_argument("--goal", type=float, default=goal, help=goal_help)
    return parser
