"""A classroom's load: N concurrent Chromium sessions (default 8) against one `streamlit run` server, each
walking every page (the trace lab from its own share link, home, the worked example, what it costs, the
capacity lab's first sweep, many servers, plan a fleet, the metrics guide, a real-model run on its own trace,
and back to the lab), twice.

Students are paced like a class: they open the shared link a few seconds apart (--gap, default 3 s: a class
of thirty over a minute and a half) and read each page before the next click (--think, an exponential think
time of mean 7 s, TPC-W's). `--gap 0 --think 0` is the rush instead: everyone in the same instant, clicking
as soon as a page is drawn.

Prints each page's median and slowest load, from the click (or the address, for the first page) to the page
served (its script done, every element delivered, nothing stale) and to its first chart drawn, how long all
sessions were open at once, and the slowest load of all (goal: under 10 s with 8 sessions on the 2-core
machine). The Chromiums draw on the same two cores as the server, so "drawn" counts their JavaScript too:
a fresh browser's first visit costs it about 4 s of CPU (Streamlit's and Plotly's scripts), work a
student's own machine does, and first visits closer together than that queue for the cores. Fails if any
session saw an exception, another session's requests, or lost its trace. Warm-up sessions run alone first
and are left out (the server's first imports, the model's loading, the first sweep, cached for all). Model
runs take turns by design, so a real-model run is not a page load and is not timed.
Usage: python bench/load_test.py [--sessions N] [--warmup N] [--gap S] [--think S] [--rounds N]
"""
import sys

from common import class_arguments  # (puts the project on sys.path)

from kit.browser_kit import CHROMIUM, streamlit_server
from kit.classroom_load import Pace, drive

parser = class_arguments(8, 3.0, 2, 10.0, "seconds the slowest page load should stay under")
args = parser.parse_args()

if not CHROMIUM.exists():
    sys.exit(f"{CHROMIUM} is missing (apt-get install -y chromium)")
with streamlit_server() as base:
    for _ in range(args.warmup):
        drive(base, 1)
    report = drive(base, args.sessions, Pace(args.gap, args.think, args.rounds))
print(f"{args.sessions} concurrent sessions, {args.gap:g} s apart, reading {args.think:g} s a page on average, "
      f"{args.rounds} walk(s) each:")
print(report.summary())
last_open, first_close, _ = report.together()
for what, times in (("served", report.served), ("drawn", report.loads)):
    page, seconds = report.slowest(times)
    met = seconds < args.goal and first_close > last_open
    print(f"goal: slowest page {what} under {args.goal:g} s with every session open -> {'met' if met else 'NOT met'}")
if report.problems:
    sys.exit("problems:\n" + "\n".join(report.problems))
