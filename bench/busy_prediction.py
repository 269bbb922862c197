"""The real-model page's prediction on a busy machine (issue 28): the page (its own script, run by Streamlit's
AppTest in this process) serves its default trace under its default policies (static, continuous), first on
a quiet machine and then while forty protocol sessions walk every page of a `streamlit run` server on the same
cores (python -m kit.protocol_load: a class at work, its own real-model runs included).

Each page run chooses its torch threads from the cores other work leaves free and calibrates the machine's speed
just before each policy's run (gpu_demo.machine, gpu_demo.compare); the prediction uses this machine's kept
profile, measured on the quiet machine by the first run if it had none. Printed for each run: the threads, the
calibration scale, the makespan and throughput errors (predicted / measured - 1), and whether the page called
the comparison void (then it draws no predicted chart). Goal: within 25% on the busy machine, or void.
Method: a warm-up page run left out on each machine; --runs page runs each; the medians are printed.
Usage: python bench/busy_prediction.py [--runs N] [--sessions N]
"""
import argparse
import statistics
import subprocess
import sys
import time

from common import ROOT
from streamlit.testing.v1 import AppTest

from gpu_demo.compare import compare
from kit.browser_kit import streamlit_server

GOAL = 0.25


def page_runs(runs: int) -> list[dict]:
    """`runs` page runs after a warm-up one; each policy's run as a row."""
    at = AppTest.from_file(str(ROOT / "classroom.py"), default_timeout=900)  # (the script app.py serves)
    at.run()
    at = at.switch_page("pages/real_model.py").run()
    rows = []
    for attempt in range(runs + 1):
        at.button(key="rm_run").click().run()
        assert not at.exception, at.exception
        shown = at.session_state["real_model"].shown
        if not attempt:
            continue
        for result, policy, threads, calibration in zip(shown.results, shown.policies, shown.threads,
                                                        shown.calibrations):
            figures, about, _ = compare(result, shown.trace, policy, shown.arrival_unit, shown.profile, calibration)
            rows.append({"policy": policy.batching, "threads": threads.threads,
                         "busy": -1.0 if threads.busy is None else threads.busy, "scale": calibration.scale,
                         "makespan": figures["makespan"]["error"], "throughput": figures["throughput"]["error"],
                         "drift": about["drift_percent"], "void": about["void"]})
    return rows


def report(label: str, rows: list[dict]) -> None:
    print(f"{label}:")
    print(f"  {'policy':<11}{'threads':>8}{'busy':>7}{'scale':>7}{'makespan':>10}{'throughput':>11}{'drift':>8}  void")
    for r in rows:
        print(f"  {r['policy']:<11}{r['threads']:>8}{r['busy']:>7.1f}{r['scale']:>7.2f}{r['makespan']:>+10.1%}"
              f"{r['throughput']:>+11.1%}{r['drift']:>+7.0f}%  {'VOID' if r['void'] else ''}")
    kept = [r for r in rows if not r["void"]]
    within = sum(abs(r["makespan"]) <= GOAL and abs(r["throughput"]) <= GOAL for r in kept)
    print(f"  median scale {statistics.median(r['scale'] for r in rows):.2f}; "
          f"{len(rows) - len(kept)} of {len(rows)} void; of the others, {within} of {len(kept)} within "
          f"{GOAL:.0%} in makespan and throughput"
          + (f" (median |error| {statistics.median(abs(r['makespan']) for r in kept):.1%} makespan)" if kept else ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=40)
    args = parser.parse_args()
    report("quiet machine", page_runs(args.runs))
    with streamlit_server() as base:
        load = subprocess.Popen([sys.executable, "-m", "kit.protocol_load", base, "--sessions", str(args.sessions),
                                 "--seconds", "900"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        try:
            assert load.stdout.readline().strip() == "busy"
            time.sleep(15)  # (the sessions' first pages: the class is at work)
            report(f"{args.sessions} protocol sessions at work on the same cores", page_runs(args.runs))
        finally:
            load.terminate()
            load.wait(60)


if __name__ == "__main__":
    main()
