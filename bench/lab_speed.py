"""How fast the trace lab answers: (a) the server's rerun, (b) the browser's wait from Run to drawn charts.

(a) One rerun of the lab page (AppTest on classroom.py) with a 500-request trace through two policies (static
    and continuous): the token budget changes before every rerun, so the simulation cache never answers
    for it, and Run is pressed in the same rerun (a trace over 300 requests runs on Run only).
    Goal: under 1 s.
(b) In Chromium against `streamlit run`: a 2,000-request trace made with the lab's Generator tab, the
    budget changed (so the run is not cached), then the time from clicking "Run ▶" until every result
    chart is drawn (`.main-svg` in each) and the budget charts show the new budget, with no stale warning
    or stale element left. Goal: under 3 s.
Warm-up runs are left out; the figure is the median of --runs.
Usage: python bench/lab_speed.py [--runs N] [--warmup N] [--skip-browser]
"""
import argparse
import logging
import statistics
import time

from common import ROOT

from kit.browser_kit import CHROMIUM, CHROMIUM_ARGS, streamlit_server
from sim.trace.generate import Uniform, generate

STALE_TEXT = "The trace or budgets changed since this run"

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--warmup", type=int, default=1)
parser.add_argument("--requests", type=int, default=500, help="the server-side rerun's trace")
parser.add_argument("--browser-requests", type=int, default=2000, help="the browser run's trace")
parser.add_argument("--skip-browser", action="store_true")
args = parser.parse_args()


def server_rerun() -> None:
    from streamlit.testing.v1 import AppTest

    from ui.lab_state import frame

    # AppTest calls the pages' format_funcs outside a script run, which warns each time: quiet that.
    for name in ("scriptrunner_utils.script_run_context", "state.session_state_proxy"):
        logging.getLogger("streamlit.runtime." + name).disabled = True

    trace = generate(args.requests, rate=0.5, prompt=Uniform(1, 8), output=Uniform(1, 12), seed=0)
    at = AppTest.from_file(str(ROOT / "classroom.py"), default_timeout=300)
    at.session_state["lang"] = "en"  # chosen up front: AppTest's reruns otherwise flip the keyed radio
    at.run()
    at.switch_page("pages/trace_lab.py")
    table = frame(trace)  # what lab_state.set_trace stores; it needs a script context, so set it directly
    at.session_state["lab"].base = at.session_state["lab"].current = table
    at.run()
    assert not at.exception, at.exception
    times = []
    for i in range(args.warmup + args.runs):
        budget = 8 + i  # every prompt is at most 8 tokens, so every budget fits; a new one each rerun
        at.number_input(key="w_lab_token_budget").set_value(budget)
        at.button(key="lab_run").click()
        start = time.perf_counter()
        at.run()
        elapsed = time.perf_counter() - start
        assert not at.exception, at.exception
        ran = at.session_state["lab"].ran
        assert len(ran.trace) == args.requests and ran.config.token_budget == budget, "the rerun did not run"
        assert len(at.get("plotly_chart")) >= 4
        if i >= args.warmup:
            times.append(elapsed)
    median = statistics.median(times)
    print(f"(a) server-side lab rerun, {args.requests:,} requests, static vs continuous, budget changed each time:")
    print(f"    {median:.3f} s median of {args.runs} (runs: {', '.join(f'{s:.3f}' for s in times)}; "
          f"warm-up {args.warmup} left out) (goal: under 1 s) -> {'met' if median < 1 else 'NOT met'}")


# True once the results of a run with `budget` are drawn: the script idle, nothing stale, every chart
# drawn by Plotly, the budget charts labelled with the new budget, and no "press Run" warning.
DRAWN = """([budget, stale]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  if (document.body.innerText.includes(stale)) return false;
  const charts = Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]'));
  if (charts.length < 4 || !charts.every(c => c.querySelector('.js-plotly-plot .main-svg'))) return false;
  return charts.filter(c => c.textContent.includes('budget ' + budget)).length >= 2;
}"""


def wait_idle(page) -> None:
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')")


def browser_run() -> None:
    if not CHROMIUM.exists():
        print(f"(b) skipped: {CHROMIUM} is missing (apt-get install -y chromium)")
        return
    from playwright.sync_api import expect, sync_playwright

    n = args.browser_requests
    with streamlit_server() as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_context(locale="en-US", viewport={"width": 1400, "height": 2600}).new_page()
        page.set_default_timeout(120_000)
        page.goto(base + "/trace_lab")
        expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible()
        wait_idle(page)
        page.get_by_role("tab", name="Generator").click()
        requests = page.get_by_role("spinbutton", name="Requests", exact=True)
        requests.fill(str(n))
        requests.press("Enter")
        expect(requests).to_have_value(str(n))
        wait_idle(page)
        page.get_by_role("button", name="Generate", exact=True).click()
        expect(page.get_by_text(f"{n} requests", exact=True)).to_be_visible()
        wait_idle(page)
        budget_field = page.get_by_role("spinbutton", name="Token budget per tick")
        run_button = page.get_by_role("button", name="Run ▶")
        times = []
        for i in range(args.warmup + max(args.runs, 3)):
            budget = 9 + i  # a budget not run before, so the simulation cache cannot answer
            budget_field.fill(str(budget))
            budget_field.press("Enter")
            expect(run_button).to_be_enabled()
            expect(page.get_by_text(STALE_TEXT).or_(page.get_by_text("Press Run to simulate"))).to_be_visible()
            wait_idle(page)
            start = time.perf_counter()
            run_button.click()
            page.wait_for_function(DRAWN, arg=[budget, STALE_TEXT], timeout=120_000)
            elapsed = time.perf_counter() - start
            assert page.get_by_test_id("stException").count() == 0
            if i >= args.warmup:
                times.append(elapsed)
        shot = ROOT / "artifacts" / "screenshots" / f"lab_speed_{n}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    median = statistics.median(times)
    print(f"(b) browser, {n:,} requests from the Generator tab, click Run -> results charts drawn:")
    print(f"    {median:.3f} s median of {len(times)} (runs: {', '.join(f'{s:.3f}' for s in times)}; "
          f"warm-up {args.warmup} left out) (goal: under 3 s) -> {'met' if median < 3 else 'NOT met'}")
    print(f"    the lab after the last run: {shot}")


server_rerun()
if not args.skip_browser:
    browser_run()
