"""First visits, server-side (issue 26): how long each page's first run takes on a fresh server, and a rush of first
visits on one server and on two behind nginx.

1. Pages: each round starts a fresh `streamlit run app.py` (whose start-up precomputes what every visitor sees: its
   time to answer is printed) and opens every page once, each in a new protocol session by its address, timing the
   page's first run on the server (from the rerun sent to its script_finished, kit/protocol_load.py); then every
   page once more, each again in a new session (a later visitor's first visit). Median over the rounds: a first
   visit cannot be warmed up and left out, so each round is a fresh server, whose start-up is the warm-up.
2. Rush: --sessions first visits in the same instant (kit/protocol_load.cold_rush: half the home page, half a lab
   share link of their own) on a fresh `serve.py --workers N` (nginx in front) for each N of --workers; p50 and p95
   of the round, median over the rounds.
Goals: every page's first visit under 2 s; the rush's p95 under 2 s with two workers.
Usage: python bench/first_visit.py [--rounds N] [--rush-rounds N] [--sessions N] [--workers 1,2]
"""
import argparse
import asyncio
import os
import statistics
import time

from common import ROOT  # (puts the project on sys.path)

from kit.browser_kit import app_server, served_class
from kit.protocol_load import ProtocolReport, Student, cold_rush, percentile, session_socket

GOAL = 2.0  # seconds
PAGES = {path.stem: "" if path.stem == "home" else path.stem for path in sorted((ROOT / "pages").glob("*.py"))}


async def first_visit(base: str, address: str) -> float:
    """A new session opens `address` (a page's URL path): its first page run, in seconds on the server."""
    async with await session_socket(base) as ws:
        student = Student(ws, base, 0, ProtocolReport())
        seconds, _ = await student.run(address or "home", page_name=address)
    if student.report.errors:
        raise RuntimeError(student.report.errors)
    return seconds


def page_rounds(rounds: int) -> tuple[list[float], dict[str, list[float]], dict[str, list[float]]]:
    """Per round the server's start-up; per page its first visits on a fresh server, and its next ones."""
    starts, first, later = [], {page: [] for page in PAGES}, {page: [] for page in PAGES}
    for _ in range(rounds):
        started = time.perf_counter()
        with app_server() as server:
            starts.append(time.perf_counter() - started)
            for visits in (first, later):
                order = ["home", *(page for page in PAGES if page != "home")]  # a class opens the home page first
                for page in order:
                    visits[page].append(asyncio.run(first_visit(server.base, PAGES[page])))
    return starts, first, later


def rush_rounds(workers: int, sessions: int, rounds: int) -> list[tuple[float, float]]:
    """(p50, p95) of each round's rush of first visits on a fresh serve.py with `workers` servers."""
    figures = []
    for _ in range(rounds):
        with served_class(workers) as served:
            report = cold_rush(served.base, sessions)
        if report.errors:
            raise RuntimeError(report.summary())
        times = [seconds for runs in report.runs.values() for seconds in runs]
        figures.append((percentile(times, 0.5), percentile(times, 0.95)))
    return figures


parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=5, help="fresh servers for the pages' first visits")
parser.add_argument("--rush-rounds", type=int, default=3, help="fresh serve.py classes for each rush")
parser.add_argument("--sessions", type=int, default=40, help="first visits in the rush")
parser.add_argument("--workers", default="1,2", help="servers behind nginx for the rush, a comma list")
args = parser.parse_args()

print("load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
starts, first, later = page_rounds(args.rounds)
print(f"\nserver start-up to its first answer (warm-up included): median {statistics.median(starts):.1f} s "
      f"({min(starts):.1f}-{max(starts):.1f} s), {args.rounds} fresh servers")
print("first visit of each page, server-side, median (range) over the rounds: on a fresh server | a later visitor")
for page in PAGES:
    print(f"  {page:15} {statistics.median(first[page]):.2f} s ({min(first[page]):.2f}-{max(first[page]):.2f}) | "
          f"{statistics.median(later[page]):.2f} s ({min(later[page]):.2f}-{max(later[page]):.2f})")
slowest = max(statistics.median(first[page]) for page in PAGES)
print(f"goal: every page's first visit under {GOAL:g} s -> {'met' if slowest < GOAL else 'NOT met'} "
      f"(slowest median {slowest:.2f} s)")
for workers in map(int, args.workers.split(",")):
    figures = rush_rounds(workers, args.sessions, args.rush_rounds)
    p50, p95 = (statistics.median(f[i] for f in figures) for i in (0, 1))
    rounds = ", ".join(f"{a:.2f}/{b:.2f}" for a, b in figures)
    print(f"\nrush of {args.sessions} first visits at once, serve.py --workers {workers}: p50 {p50:.2f} s, "
          f"p95 {p95:.2f} s (median of {args.rush_rounds} fresh classes; each p50/p95: {rounds})"
          + (f"; goal p95 under {GOAL:g} s -> {'met' if p95 < GOAL else 'NOT met'}" if workers == 2 else ""))
print("\nload average (1, 5, 15 min) after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
