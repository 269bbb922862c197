"""A classroom's load without browsers: many sessions at once, each a websocket client speaking Streamlit's protocol.

Each session walks the app as kit/classroom_load.py's Chromium sessions do (the trace lab from its own share
link, every page in WALK order, a real-model run on its lab trace, back to the lab) but sends the frontend's
messages itself, so no browser shares the server's cores and a rush can be a real one. It times each page run
from the rerun sent to the run's `script_finished`, and reads every ForwardMsg of the run: an `exception`
element, or a run outside classroom.py's navigation, is an error; a request name of another session anywhere in
a delta is crosstalk; each visit to the lab must show the session's own trace (no lost work). Used by
tests/test_protocol_load.py (a few sessions in a rush) and bench/protocol_load.py (forty, rushed and paced).

The protocol, as the frontend speaks it (streamlit/web/server/starlette/starlette_websocket.py, app_session.py):
- GET /_stcore/health sets the `_streamlit_xsrf` cookie (and a proxy in front may set its own); the socket to
  /_stcore/stream sends them all back, and the XSRF token as the second entry of the "streamlit" subprotocol
  header, from the page's own Origin.
- Every run is one `rerun_script` BackMsg holding a ClientState: the address bar's query string, the widget
  values the student set on the page shown (a click is a one-shot trigger), the page (by `page_name`, the URL
  path, when a link is opened; by `page_script_hash`, from the `navigation` ForwardMsg, on a sidebar click,
  which also drops the query string) and the browser's context, in en-US so that pages are in English.
  `page_info_changed` updates the query string, as it does the address bar.
- No cached message hash is ever advertised, so the server never sends a `ref_hash` in place of a delta (one
  would be an error). A run the app restarts itself (st.rerun) ends FINISHED_EARLY_FOR_RERUN and goes on; a
  page run ends with FINISHED_SUCCESSFULLY, and any other status is an error.
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import re
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie

import pyarrow as pa
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.state.common import user_key_from_element_id
from websockets.asyncio.client import connect

from kit.browser_kit import Server, cpu_seconds, group_processes
from kit.classroom_load import NAME, WALK, Pace, Report, session_trace
from sim.core.config import Config, Policy
from sim.report.sweep import MAX_POINTS
from ui.scenario import QUERY_KEY, Scenario, encode
from ui.strings import STRINGS
from ui.trace_sources import MAX_REQUESTS

PAGE_TIMEOUT = 300.0  # as long as the browser sessions wait for a page
MODEL_TIMEOUT = 1800.0  # forty sessions' model runs take turns on one model
NAMES = re.compile(NAME.pattern.encode())  # the browser test's request names, in a message's bytes
LAB_SOURCE = STRINGS["rm_source_lab"]["en"]  # the option of rm_source that serves the lab's trace (in English)
SHARE_LINK, LAB_TRACE, HOME = "Trace lab (share link)", "Real model: the lab's trace chosen", "Home (opened first)"
XSRF = "_streamlit_xsrf"
RUSH = Pace()  # everyone at the same instant, clicking on the moment a page is served
APP_WIDGET = "w_lang"  # classroom.py's language switch: a run that lacks it did not go through its navigation


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0 <= q <= 1), interpolated between the two nearest ranks (numpy's default)."""
    ordered = sorted(values)
    at = (len(ordered) - 1) * q
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


@dataclass
class ProtocolReport:
    """Per page, the server-side time of each page run (its rerun sent to its script_finished), in walk order;
    the model runs' times apart (they take turns by design: not page loads); errors and crosstalk, each a line
    naming the session and the page; each session's (open, close) on one clock."""
    runs: dict[str, list[float]] = field(default_factory=dict)
    model_runs: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    crosstalk: list[str] = field(default_factory=list)
    spans: list[tuple[float, float]] = field(default_factory=list)

    def stats(self, page: str) -> tuple[float, float, float]:
        """(p50, p95, max) of the page's runs, in seconds."""
        times = self.runs[page]
        return percentile(times, 0.5), percentile(times, 0.95), max(times)

    def worst_p95(self) -> tuple[str, float]:
        return max(((page, self.stats(page)[1]) for page in self.runs), key=lambda item: item[1])

    def overlap(self) -> str:
        return Report(spans=self.spans).overlap()

    def walking(self) -> tuple[float, int]:
        """How many sessions were walking at once: on average over the run (first open to last close), and at
        the most."""
        edges = sorted([(opened, 1) for opened, _ in self.spans] + [(closed, -1) for _, closed in self.spans])
        now = peak = 0
        area, last = 0.0, edges[0][0]
        for at, step in edges:
            area += now * (at - last)
            now, last = now + step, at
            peak = max(peak, now)
        span = edges[-1][0] - edges[0][0]
        return (area / span if span else float(peak)), peak

    def summary(self) -> str:
        lines = [f"{page}: p50 {p50:.2f} s, p95 {p95:.2f} s, max {top:.2f} s ({len(self.runs[page])} runs)"
                 for page in self.runs for p50, p95, top in [self.stats(page)]]
        if self.model_runs:
            lines.append(f"model runs (taking turns, not page loads): p50 {percentile(self.model_runs, 0.5):.2f} s, "
                         f"max {max(self.model_runs):.2f} s ({len(self.model_runs)} runs)")
        if self.spans:
            mean, peak = self.walking()
            lines.append(f"{self.overlap()}; {mean:.1f} sessions walking at once on average, {peak} at the most")
        if self.runs:
            lines.append("worst p95: {1:.2f} s ({0})".format(*self.worst_p95()))
        lines.append(f"{sum(map(len, self.runs.values()))} page runs, {len(self.errors)} errors, "
                     f"{len(self.crosstalk)} crosstalk")
        return "\n".join(lines + [f"  error: {e}" for e in self.errors] + [f"  crosstalk: {c}" for c in self.crosstalk])


@dataclass
class Shown:
    """What one run delivered: the elements whose id holds a user key (widgets, charts, the editor) by that key,
    and every table's first column (a table without selections has no id; keyed ones are also by key)."""
    keyed: dict = field(default_factory=dict)
    tables: dict[str, list] = field(default_factory=dict)
    columns: list[list] = field(default_factory=list)


def _cells(arrow: bytes) -> tuple[list, list[str]]:
    """An Arrow table's first column (the pandas index left out) and every string in it: Arrow keeps a
    column's strings back to back, where a pattern's word boundaries cannot see them."""
    table = pa.ipc.open_stream(arrow).read_all()
    columns = [name for name in table.column_names if not name.startswith("__index_level_")]
    texts = list(table.column_names)
    for column in table.columns:
        texts += [value for value in column.to_pylist() if isinstance(value, str)]
    return (table.column(columns[0]).to_pylist() if columns else []), texts


class Student:
    """One session's socket and what its frontend would hold: the pages, the page shown, the address bar's
    query string and the widget values set on this page; it files what it sees in the report."""

    def __init__(self, ws, base: str, i: int, report: ProtocolReport):
        self.ws, self.base, self.i, self.report = ws, base, i, report
        self.own = [r.name for r in session_trace(i)]
        self.pages: dict[str, str] = {}  # sidebar title, casefolded -> page_script_hash
        self.paths: dict[str, str] = {}  # page_script_hash -> URL path
        self.page, self.query, self.chosen = "", "", {}

    def error(self, where: str, what: str) -> None:
        self.report.errors.append(f"session {self.i}, {where}: {what}")

    async def send(self, *, page: str = "", page_name: str = "", triggers: tuple[str, ...] = ()) -> None:
        """Send one rerun as the frontend does."""
        if page and page != self.page:
            self.query, self.chosen = "", {}  # a sidebar click leaves the page's query string and widgets behind
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string, state.page_script_hash, state.page_name = self.query, page or self.page, page_name
        state.widget_states.widgets.extend([*self.chosen.values(),
                                            *(WidgetState(id=widget, trigger_value=True) for widget in triggers)])
        path = page_name or self.paths.get(state.page_script_hash, "")
        context = state.context_info
        context.locale, context.timezone, context.timezone_offset, context.color_scheme = "en-US", "UTC", 0, "light"
        context.url, context.is_embedded = f"{self.base}/{path}" + (f"?{self.query}" if self.query else ""), False
        await self.ws.send(msg.SerializeToString())

    async def run(self, where: str, *, page: str = "", page_name: str = "", triggers: tuple[str, ...] = (),
                  timeout: float = PAGE_TIMEOUT) -> tuple[float, Shown]:
        """Send one rerun as the frontend does and read its messages up to its script_finished."""
        shown, start = Shown(), time.perf_counter()
        await self.send(page=page, page_name=page_name, triggers=triggers)
        try:
            async with asyncio.timeout(timeout):
                while (status := await self._read(where, shown)) != ForwardMsg.FINISHED_SUCCESSFULLY:
                    if status not in (None, ForwardMsg.FINISHED_EARLY_FOR_RERUN):  # early: the app's own st.rerun
                        raise RuntimeError(f"the script finished {ForwardMsg.ScriptFinishedStatus.Name(status)}")
        except TimeoutError:
            raise TimeoutError(f"no script_finished within {timeout:g} s") from None
        if APP_WIDGET not in shown.keyed:
            self.error(where, "the page ran without classroom.py (no navigation, no language switch)")
        return time.perf_counter() - start, shown

    async def _read(self, where: str, shown: Shown):
        """Take in one ForwardMsg; its script_finished status, if it is one."""
        raw = await self.ws.recv()
        forward = ForwardMsg.FromString(raw)
        kind = forward.WhichOneof("type")
        if kind == "script_finished":
            return forward.script_finished
        if kind == "delta":
            self._delta(where, raw, forward.delta, shown)
        elif kind == "new_session":
            self.page = forward.new_session.page_script_hash
        elif kind == "navigation":  # by title, matched as a click on a link's name is (a page run alone lists files)
            self.page = forward.navigation.page_script_hash  # the page shown, however it was asked for (by its URL)
            self.pages = {p.page_name.casefold(): p.page_script_hash for p in forward.navigation.app_pages}
            self.paths = {p.page_script_hash: p.url_pathname for p in forward.navigation.app_pages}
        elif kind == "page_info_changed":
            self.query = forward.page_info_changed.query_string
        elif kind in ("ref_hash", "page_not_found"):
            self.error(where, f"an unexpected {kind} message")
        elif kind == "session_event" and forward.session_event.HasField("script_compilation_exception"):
            error = forward.session_event.script_compilation_exception
            self.error(where, f"compile error {error.type}: {error.message}")
        return None

    def _delta(self, where: str, raw: bytes, delta, shown: Shown) -> None:
        texts = [raw]
        if delta.WhichOneof("type") == "new_element":
            kind = delta.new_element.WhichOneof("type")
            element = getattr(delta.new_element, kind)
            if kind == "exception":
                self.error(where, f"exception {element.type}: {element.message.splitlines()[0][:200]}")
            key = user_key_from_element_id(element.id) if getattr(element, "id", "") else None
            if key:
                shown.keyed[key] = element
            if getattr(element, "arrow_data", None) is not None and element.arrow_data.data:
                first, strings = _cells(element.arrow_data.data)
                texts += [text.encode() for text in strings]
                shown.columns.append(first)
                if key:
                    shown.tables[key] = first
        others = {f"s{m.group(1).decode()}" for text in texts for m in NAMES.finditer(text)} - {f"s{self.i}"}
        if others:
            self.report.crosstalk.append(f"session {self.i}, {where}: shows requests of {sorted(others)}")

    def record(self, page: str, seconds: float) -> None:
        self.report.runs.setdefault(page, []).append(seconds)

    async def open_link(self) -> None:
        """The lab from the student's own share link: its address is the page and the query string."""
        scenario = Scenario(session_trace(self.i), Config(8), Policy.named("static"), Policy())
        self.query = f"{QUERY_KEY}={encode(scenario)}"
        seconds, shown = await self.run(SHARE_LINK, page_name="trace_lab")
        self.record(SHARE_LINK, seconds)
        self.check_lab(shown, SHARE_LINK)

    async def walk_to(self, link: str, where: str) -> None:
        """A click on the sidebar's link, and what the page it opens is for."""
        seconds, shown = await self.run(where, page=self.pages[link.casefold()])
        self.record(link, seconds)
        if link == "Real model":
            await self.run_model(shown, where)
        elif link == "Trace lab":
            self.check_lab(shown, where)

    async def run_model(self, shown: Shown, where: str) -> None:
        """Choose the lab's trace (a page run), then click Run and wait for the model (not a page load)."""
        radio = shown.keyed["w_rm_source"]
        self.chosen[radio.id] = WidgetState(id=radio.id, string_value=LAB_SOURCE)
        seconds, shown = await self.run(where + ", the lab's trace")
        self.record(LAB_TRACE, seconds)
        if self.own not in shown.columns:  # the table of the trace the model will serve
            self.error(where, f"no table lists the lab's requests {self.own}")
        seconds, shown = await self.run(where + ", model run", triggers=(shown.keyed["rm_run"].id,),
                                        timeout=MODEL_TIMEOUT)
        self.report.model_runs.append(seconds)
        # (the Stop button shown while the model ran, and the run's charts)
        if not {"rm_stop", "rm_gantt_A", "rm_gantt_B"} <= shown.keyed.keys():
            self.error(where, "the click ran no model, or the run showed no results")

    def check_lab(self, shown: Shown, where: str) -> None:
        if shown.tables.get("trace") != self.own:
            self.error(where, f"the lab's editor holds {shown.tables.get('trace')}, not its own {self.own}")


def _cookies(base: str) -> dict[str, str]:
    """The cookies the health check sets, as the frontend's first request gets them: Streamlit's XSRF cookie, and
    any a proxy in front sets (serve.py's nginx keeps a browser on one server by its cookie)."""
    with urllib.request.urlopen(f"{base}/_stcore/health", timeout=PAGE_TIMEOUT) as answer:
        cookie = SimpleCookie()
        for header in answer.headers.get_all("Set-Cookie") or []:
            cookie.load(header)
    return {name: morsel.value for name, morsel in cookie.items()}


async def session_socket(base: str):
    """The socket a browser tab opens, with the cookies it was given and the XSRF token."""
    cookies = await asyncio.to_thread(_cookies, base)
    token = cookies.get(XSRF, "")
    # max_queue=None: read everything as it comes, as a browser does, never pushing back on the server's queue
    return connect(f"ws{base.removeprefix('http')}/_stcore/stream", subprotocols=["streamlit", token], origin=base,
                   additional_headers={"Cookie": "; ".join(f"{name}={value}" for name, value in cookies.items())},
                   max_size=None, max_queue=None, ping_interval=None, open_timeout=PAGE_TIMEOUT)


async def _first_visit(base: str, i: int, report: ProtocolReport) -> None:
    """Odd sessions open their share link (the lab, whose first run imports pandas), even ones the home page
    (whose Gantt charts check their values against pandas): what a class does with the teacher's links."""
    try:
        async with await session_socket(base) as ws:
            student = Student(ws, base, i, report)
            if i % 2:
                await student.open_link()
            else:
                student.record(HOME, (await student.run(HOME))[0])
    except Exception as error:  # the session's error, with the rest
        report.errors.append(f"session {i}, first visit: {type(error).__name__}: {error}")


async def _cold_rush(base: str, sessions: int) -> ProtocolReport:
    report = ProtocolReport()
    await asyncio.gather(*(_first_visit(base, i, report) for i in range(sessions)))
    return report


def cold_rush(base: str, sessions: int) -> ProtocolReport:
    """`sessions` first visits in the same instant, half on the home page and half on their share link; meant for
    a server that has served nobody yet."""
    return asyncio.run(_cold_rush(base, sessions))


async def _session(base: str, i: int, report: ProtocolReport, pace: Pace,
                   over: Callable[[], bool] | None = None) -> None:
    """One student: the share link, then `pace.rounds` walks of every page (or walks until `over()`, when
    given, says the class is over)."""
    await asyncio.sleep(pace.gap * i)
    pauses, opened = pace.pauses(i), time.perf_counter()
    where = SHARE_LINK
    steps = itertools.cycle(WALK) if over is not None else WALK * pace.rounds
    try:
        async with await session_socket(base) as ws:
            student = Student(ws, base, i, report)
            await student.open_link()
            for step, (link, _) in enumerate(steps):
                if over is not None and over():
                    break
                where = f"step {step + 1}, {link}"
                await asyncio.sleep(next(pauses))  # reading the page, not a page load
                await student.walk_to(link, where)
    except Exception as error:  # a timeout, a closed socket, a missing widget: the session's error, with the rest
        report.errors.append(f"session {i}, {where}: {type(error).__name__}: {error}")
    finally:
        report.spans.append((opened, time.perf_counter()))


async def _drive(base: str, sessions: int, pace: Pace) -> ProtocolReport:
    report = ProtocolReport()
    await asyncio.gather(*(_session(base, i, report, pace) for i in range(sessions)))
    return report


def drive(base: str, sessions: int, pace: Pace = RUSH) -> ProtocolReport:
    """Run `sessions` concurrent protocol sessions against the app at `base`; their page runs and errors."""
    return asyncio.run(_drive(base, sessions, pace))


async def _keep_busy(base: str, sessions: int, seconds: float, until_eof: bool) -> ProtocolReport:
    report, until = ProtocolReport(), time.perf_counter() + seconds
    walks = asyncio.gather(*(_session(base, i, report, RUSH, lambda: time.perf_counter() >= until)
                             for i in range(sessions)))
    if until_eof:  # the caller closes standard input: the class leaves at once, the pages under way left unread
        eof, loop = asyncio.Event(), asyncio.get_running_loop()

        def read() -> None:
            sys.stdin.buffer.read()
            loop.call_soon_threadsafe(eof.set)
        threading.Thread(target=read, daemon=True).start()
        closed = asyncio.ensure_future(eof.wait())
        await asyncio.wait((walks, closed), return_when=asyncio.FIRST_COMPLETED)
        closed.cancel()
        walks.cancel()
    try:
        await walks
    except asyncio.CancelledError:  # (only the sessions were cancelled: what they did before is in the report)
        pass
    return report


def keep_busy(base: str, sessions: int, seconds: float, until_eof: bool = False) -> ProtocolReport:
    """`sessions` students walking every page, again and again, for `seconds` (each ends the page it is on), or
    until standard input closes (`until_eof`): a busy class, for as long as something else is measured."""
    return asyncio.run(_keep_busy(base, sessions, seconds, until_eof))


@asynccontextmanager
async def sweeping(server: Server, at_work: float = 0.5, limit: float = 60.0):
    """A session in the middle of the largest sweep: in the capacity lab (whose default sweep is precomputed) it
    generates the largest trace and clicks Run with the most points (half a minute of work for two workers). Once
    the sweep's progress bar is drawn and the server's sweep workers have spent `at_work` CPU seconds on it, the
    block runs, with the session's socket open; it gets the workers' pids (the server's group but its leader)."""
    async with await session_socket(server.base) as ws:
        student = Student(ws, server.base, 0, ProtocolReport())
        _, shown = await student.run("capacity lab", page_name="capacity_lab")
        for key, value in (("w_sw_gen_n", MAX_REQUESTS), ("w_sw_points_rate", MAX_POINTS)):
            student.chosen[shown.keyed[key].id] = WidgetState(id=shown.keyed[key].id, int_value=value)
        await student.run("capacity lab, a large trace made", triggers=(shown.keyed["sw_gen_make"].id,))
        await student.send(triggers=(shown.keyed["sw_run"].id,))
        while True:
            forward = ForwardMsg.FromString(await asyncio.wait_for(ws.recv(), PAGE_TIMEOUT))
            if forward.WhichOneof("type") == "script_finished":
                raise RuntimeError("the sweep ended before it was seen running")
            if forward.delta.new_element.WhichOneof("type") == "progress":
                break
        workers = [pid for pid in (int(line.split()[0]) for line in group_processes(server.process.pid))
                   if pid != server.process.pid]
        before, deadline = cpu_seconds(workers), time.monotonic() + limit
        while cpu_seconds(workers) - before < at_work:  # the points are handed out after the bar is drawn
            if time.monotonic() > deadline:
                raise RuntimeError(f"the sweep workers {workers} did not start on the sweep in {limit:g} s")
            await asyncio.sleep(0.1)  # polling the workers' CPU time
        yield workers


if __name__ == "__main__":  # python -m kit.protocol_load BASE [--sessions N] [--seconds S]: a class's load, apart
    parser = argparse.ArgumentParser(description="Keep a classroom server busy with protocol sessions.")
    parser.add_argument("base")
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--until-eof", action="store_true",
                        help="also end when standard input closes (a caller done measuring closes it)")
    args = parser.parse_args()
    print("busy", flush=True)  # the sessions start now
    busy = keep_busy(args.base, args.sessions, args.seconds, args.until_eof)
    print(busy.summary(), flush=True)
    sys.exit(1 if busy.errors or busy.crosstalk else 0)
