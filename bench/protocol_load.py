"""A classroom's load without browsers: N concurrent sessions (default 40), each a websocket client speaking
Streamlit's own protocol (kit/protocol_load.py), against one `streamlit run` server. Each walks every page
as bench/load_test.py's Chromium sessions do: the trace lab from its own share link, home, the worked example,
what it costs, the capacity lab's sweep, many servers, plan a fleet, the metrics guide, a real-model run on its
lab trace, and back to the lab.

Two modes, each on a fresh server after its warm-up sessions (run alone first and left out: the server's
first imports, the model's loading, the first sweep, cached for all):
- rush: every session in the same instant, each clicking the moment a page is served;
- paced: like a class, the sessions open their link --gap seconds apart (0.5 s: forty students within twenty
  seconds) and read each page for an exponential think time of mean --think seconds (TPC-W's 7 s) before the
  next click; three walks each keep them all walking together for a minute or more.
No browser shares the server's two cores here, so a page run's time is the server's alone: from the rerun
sent to the run's script_finished. Prints each page's p50, p95 and slowest run, how long all sessions were
open at once and how many walked at once on average, every error and crosstalk, and the goal: 0 errors and
p95 under 2 s per page. The model runs take turns on one shared model by design, so they are timed apart and
are not page runs. Fails if any session saw an exception, a page run outside classroom.py, another session's
requests, or lost its trace.
With --workers N the sessions go through `serve.py --workers N` (N servers behind nginx, each browser kept on one)
instead of one server.
Usage: python bench/protocol_load.py [--sessions N] [--mode rush|paced|both] [--warmup N] [--gap S] [--think S]
       [--rounds N] [--goal S] [--workers N]
"""
import sys
import time

from common import class_arguments  # (puts the project on sys.path)

from kit.browser_kit import app_server, served_class
from kit.classroom_load import Pace
from kit.protocol_load import drive

parser = class_arguments(40, 0.5, 3, 2.0, "seconds every page's p95 should stay under", paced="paced: ")
parser.add_argument("--mode", choices=("rush", "paced", "both"), default="both")
parser.add_argument("--workers", type=int, default=0, help="servers behind serve.py's nginx (0: one server, no proxy)")
args = parser.parse_args()
where = f"serve.py --workers {args.workers}" if args.workers else "one server"

paces = {"rush": Pace(rounds=args.rounds), "paced": Pace(args.gap, args.think, args.rounds)}
failed = False
for mode in ("rush", "paced") if args.mode == "both" else (args.mode,):
    with served_class(args.workers) if args.workers else app_server() as served:
        base = served.base
        warmup = [error for _ in range(args.warmup) for error in drive(base, 1).errors]
        cpu = time.process_time()
        report = drive(base, args.sessions, paces[mode])
        cpu = time.process_time() - cpu
    pace = paces[mode]
    print(f"\n{mode}, {where}: {args.sessions} concurrent sessions, {pace.gap:g} s apart, reading {pace.think:g} s a "
          f"page on average, {pace.rounds} walk(s) each, after {args.warmup} warm-up session(s):")
    print(report.summary())
    print(f"this client's own CPU: {cpu:.1f} s" + "".join(f"\n  warm-up error: {e}" for e in warmup))
    met = not report.errors and not report.crosstalk and bool(report.runs) and report.worst_p95()[1] < args.goal
    print(f"goal: 0 errors and p95 under {args.goal:g} s per page -> {'met' if met else 'NOT met'}")
    failed |= bool(report.errors or report.crosstalk or warmup)
if failed:
    sys.exit("errors or crosstalk: see above")
