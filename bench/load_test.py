"""A classroom's load: N concurrent Chromium sessions (default 8) against one `streamlit run` server, each
walking every page (the trace lab from its own share link, the worked example, the capacity lab's first
sweep, the metrics guide, a real-model run on its own trace, and back to the lab).

Prints each page's median and slowest load, from the click (or the address, for the first page) to the page
served (its script done, every element delivered, nothing stale) and to its first chart drawn, and the
slowest of all (goal: under 10 s with 8 sessions on the 2-core machine). The eight Chromiums draw on the
same two cores as the server, so "drawn" counts their JavaScript too, which students' own browsers would
not put on the server. Fails if any session saw an exception, another session's requests, or lost its trace.
Warm-up sessions run alone first and are left out (the server's first imports, the model's loading, the
first sweep, cached for all). Model runs take turns by design, so a real-model run is not a page load and is
not timed.
Usage: python bench/load_test.py [--sessions N] [--warmup N]
"""
import argparse
import sys

from common import ROOT  # noqa: F401  (puts the project on sys.path)

from tests.browser_kit import CHROMIUM, streamlit_server
from tests.classroom_load import drive

parser = argparse.ArgumentParser()
parser.add_argument("--sessions", type=int, default=8)
parser.add_argument("--warmup", type=int, default=1, help="sessions run alone first, left out (server imports, "
                    "model loading, first sweep)")
parser.add_argument("--goal", type=float, default=10.0, help="seconds the slowest page load should stay under")
args = parser.parse_args()

if not CHROMIUM.exists():
    sys.exit(f"{CHROMIUM} is missing (apt-get install -y chromium)")
with streamlit_server() as base:
    for _ in range(args.warmup):
        drive(base, 1)
    report = drive(base, args.sessions)
print(f"{args.sessions} concurrent sessions, every page:")
print(report.summary())
for what, times in (("served", report.served), ("drawn", report.loads)):
    page, seconds = report.slowest(times)
    print(f"goal: slowest page {what} under {args.goal:g} s -> {'met' if seconds < args.goal else 'NOT met'}")
if report.problems:
    sys.exit("problems:\n" + "\n".join(report.problems))
