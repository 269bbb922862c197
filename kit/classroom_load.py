"""A classroom's load: many Chromium sessions at once, each walking every page of the app.

Each session opens the trace lab from a share link holding its own trace (request names `s<i>-r<k>`), walks
to every other page through the sidebar, runs the real model on its lab trace, and comes back to the lab.
It checks that no page shows an exception, that every table a session sees names only its own requests
(no session sees another's trace or results), and that the lab still holds its trace after the page
switches (no lost work). A `Pace` sets when sessions open and how long they read each page. Used by
tests/test_load.py (a few sessions in a rush) and bench/load_test.py (eight or more, paced like a class,
printing the slowest page load).
"""
from __future__ import annotations

import asyncio
import random
import re
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from kit.browser_kit import CHROMIUM, CHROMIUM_ARGS
from sim.core.config import Config, Policy
from sim.trace.trace import Request, Trace
from ui.scenario import Scenario, encode

TIMEOUT_MS = 300_000  # eight sessions on two cores, and the model's runs take turns
VIEWPORT = {"width": 1280, "height": 800}  # a laptop screen
NAME = re.compile(r"\bs(\d+)-r\d+\b")
# (sidebar link, the page's title); the lab is opened first, from its share link, and visited again last.
CAPACITY = "Capacity lab: how much load before the SLO breaks?"
WALK = [("Home", "The batching classroom"), ("Worked example", "Worked example"),
        ("What it costs", "What continuous batching costs"), ("Capacity lab", CAPACITY),
        ("Many servers", "Many servers: routers and prefill/decode disaggregation"),
        ("Plan a fleet", "Plan a fleet: how many GPUs does this trace need?"), ("Metrics guide", "Metrics guide"),
        ("Real model", "Real model"), ("Trace lab", "Trace lab")]
CHARTED = {"The batching classroom", "Worked example", "Trace lab", CAPACITY}  # pages drawing a chart at once
CELLS = """() => Array.from(document.querySelectorAll('td[role=gridcell]')).map(e => e.textContent)"""
FIRST_COLUMN = """(el) => Array.from(el.querySelectorAll('tr'))
  .map(r => r.querySelector('td[role=gridcell]')).filter(c => c).map(c => c.textContent)"""
IDLE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
    && app.getAttribute('data-test-script-state') === 'notRunning' && !document.querySelector('[data-stale="true"]');
}"""


@dataclass
class Report:
    """Per page (title), one time per session from the click or address to: `served`, the page's script done
    and every element delivered (nothing stale); `loads`, its first chart also drawn by this browser."""
    served: dict[str, list[float]] = field(default_factory=dict)
    loads: dict[str, list[float]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    spans: list[tuple[float, float]] = field(default_factory=list)  # each session's (open, close) on one clock

    def add(self, page: str, started: float, served: float) -> None:
        self.served.setdefault(page, []).append(served - started)
        self.loads.setdefault(page, []).append(time.perf_counter() - started)

    @staticmethod
    def slowest(times: dict[str, list[float]]) -> tuple[str, float]:
        return max(((page, max(seconds)) for page, seconds in times.items()), key=lambda item: item[1])

    def summary(self) -> str:
        lines = [f"{page}: served median {statistics.median(self.served[page]):.2f} s, slowest "
                 f"{max(self.served[page]):.2f} s; drawn median {statistics.median(times):.2f} s, slowest "
                 f"{max(times):.2f} s ({len(times)} sessions)" for page, times in self.loads.items()]
        (page, served), (drawn_page, drawn) = self.slowest(self.served), self.slowest(self.loads)
        return "\n".join(lines + [self.overlap(), f"slowest page served: {served:.2f} s ({page})",
                                   f"slowest page drawn: {drawn:.2f} s ({drawn_page})"])

    def together(self) -> tuple[float, float, float]:
        """(last session opened, first session closed, last closed), in seconds from the first opening: every
        session was open at once between the first two, if the first is the smaller."""
        zero = min(opened for opened, _ in self.spans)
        return (max(o for o, _ in self.spans) - zero, min(c for _, c in self.spans) - zero,
                max(c for _, c in self.spans) - zero)

    def overlap(self) -> str:
        last_open, first_close, end = self.together()
        if first_close <= last_open:
            return f"the {len(self.spans)} sessions were never all open at once ({end:.0f} s run)"
        return (f"all {len(self.spans)} sessions open at once from {last_open:.0f} s to {first_close:.0f} s "
                f"of the {end:.0f} s run")


def session_trace(i: int) -> Trace:
    """Session i's own small trace: names nobody else uses, lengths that differ between sessions."""
    return Trace(tuple(Request(f"s{i}-r{k}", k, 2 + (i + k) % 5, 3 + (i * 3 + k) % 7) for k in range(4)))


async def _settled(page, title: str) -> float:
    """Wait until the page with this title is shown, its script done and nothing stale (returns that time),
    then until its first chart is drawn."""
    await page.locator('[data-testid="stMain"] h1').first.filter(has_text=title).wait_for()
    await page.wait_for_function(IDLE)
    served = time.perf_counter()
    if title in CHARTED:
        await page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
    return served


async def _check(page, i: int, where: str, report: Report) -> None:
    if await page.get_by_test_id("stException").count():
        report.problems.append(f"session {i}, {where}: an exception is shown")
    others = {f"s{m.group(1)}" for cell in await page.evaluate(CELLS) for m in NAME.finditer(cell)} - {f"s{i}"}
    if others:
        report.problems.append(f"session {i}, {where}: shows requests of {sorted(others)}")


async def _lab_names(page) -> list[str]:
    editor = page.locator(".st-key-trace").get_by_test_id("stDataFrame")
    await editor.locator("td[role=gridcell]").first.wait_for(state="attached")
    return await editor.evaluate(FIRST_COLUMN)


@dataclass(frozen=True)
class Pace:
    """How students move: session i opens its link `gap * i` seconds after the first and walks every page
    `rounds` times; after each page is drawn and checked it reads for a think time drawn from an exponential
    law of mean `think` seconds, cut at ten times the mean (TPC-W's think time, with its mean of 7 s), seeded
    by the session. Pace() is the rush: everyone at the same instant, clicking on the moment a page is drawn."""
    gap: float = 0.0
    think: float = 0.0
    rounds: int = 1

    def pauses(self, i: int):
        draw = random.Random(i)
        while True:
            yield min(draw.expovariate(1 / self.think), 10 * self.think) if self.think else 0.0


async def _session(browser, base: str, i: int, report: Report, pace: Pace) -> None:
    await asyncio.sleep(pace.gap * i)
    pauses, opened = pace.pauses(i), time.perf_counter()
    context = await browser.new_context(locale="en-US", viewport=VIEWPORT)  # a browser of its own: no shared cache
    context.set_default_timeout(TIMEOUT_MS)
    page = await context.new_page()
    trace = session_trace(i)
    own = [r.name for r in trace]
    where = "the share link"
    try:
        start = time.perf_counter()
        await page.goto(f"{base}/trace_lab?s={encode(Scenario(trace, Config(8), Policy.named('static'), Policy()))}")
        report.add("Trace lab (share link)", start, await _settled(page, "Trace lab"))
        if (names := await _lab_names(page)) != own:
            report.problems.append(f"session {i}: the lab opened with {names}, not its link's {own}")
        await _check(page, i, "trace lab", report)
        for step, (link, title) in enumerate(WALK * pace.rounds):
            where = f"step {step + 1}, {title}"
            await asyncio.sleep(next(pauses))  # reading the page, not a page load
            start = time.perf_counter()
            await page.get_by_test_id("stSidebarNav").get_by_role("link", name=link).click()
            report.add(title, start, await _settled(page, title))
            if title == "Real model":
                await page.get_by_role("radiogroup", name="Trace").get_by_text("the lab's trace").click()
                await page.get_by_role("button", name="Run on the model ▶").click()
                await page.get_by_text("The simulator's prediction").wait_for()
                await page.wait_for_function(IDLE)
            await _check(page, i, title, report)
        if (names := await _lab_names(page)) != own:
            report.problems.append(f"session {i}: back in the lab, the trace is {names}, not {own}")
    except Exception as error:  # a timeout or a missing element: the session's problem, reported with the rest
        shot = Path(tempfile.gettempdir()) / f"classroom-session-{i}.png"
        try:
            await page.screenshot(path=shot, full_page=True)
        except Exception:  # a closed page has nothing to show
            shot = "none"
        report.problems.append(f"session {i}, {where}: {type(error).__name__}: {str(error).splitlines()[0]} "
                               f"(screenshot: {shot})")
    finally:
        report.spans.append((opened, time.perf_counter()))
        await context.close()


async def _drive(base: str, sessions: int, pace: Pace) -> Report:
    from playwright.async_api import async_playwright

    report = Report()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            await asyncio.gather(*(_session(browser, base, i, report, pace) for i in range(sessions)))
        finally:
            await browser.close()
    return report


def drive(base: str, sessions: int, pace: Pace = Pace()) -> Report:
    """Run `sessions` concurrent Chromium sessions against the app at `base`; their page loads and problems."""
    return asyncio.run(_drive(base, sessions, pace))
