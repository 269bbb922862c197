"""A clean stop (issue 26): how long a `streamlit run app.py` takes to leave no process behind, its sweep workers
included, when it is stopped by SIGTERM or Ctrl-C (SIGINT to its process group, as a terminal sends it) while a
session runs the largest sweep (kit/protocol_load.sweeping). Each round is a fresh server; median over --rounds.
Goal: nothing left within 10 s (tests/test_clean_stop.py holds it).
Usage: python bench/clean_stop.py [--rounds N]
"""
import argparse
import asyncio
import os
import statistics

from common import ROOT  # noqa: F401  (puts the project on sys.path)

from kit.browser_kit import app_server, stop_and_wait
from kit.protocol_load import sweeping

GOAL = 10.0  # seconds
LIMIT = 120.0  # seconds waited before a round counts as leaving processes behind


async def stopped_mid_sweep(server, stop: str) -> float | None:
    async with sweeping(server):
        return await asyncio.to_thread(stop_and_wait, server, stop, LIMIT)


parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=3)
args = parser.parse_args()
print("load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
for stop in ("SIGTERM", "Ctrl-C"):
    times = []
    for _ in range(args.rounds):
        with app_server() as server:
            times.append(asyncio.run(stopped_mid_sweep(server, stop)))
    left = [t for t in times if t is None]
    done = sorted(t for t in times if t is not None)
    shown = f"median {statistics.median(done):.2f} s ({done[0]:.2f}-{done[-1]:.2f} s)" if done else "never"
    print(f"{stop} in the middle of a sweep: nothing left after {shown}, {len(left)} of {args.rounds} rounds with "
          f"processes left after {LIMIT:g} s; goal {GOAL:g} s -> "
          f"{'met' if not left and done[-1] < GOAL else 'NOT met'}")
print("load average (1, 5, 15 min) after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
