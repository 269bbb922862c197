"""Browser tests: the app in a real Chromium, driven by Playwright, against a `streamlit run` server.

Needs Debian's Chromium at /usr/bin/chromium (no `playwright install`); without it every test skips.
Tests wait on data-testid selectors and text, never on fixed sleeps. Each test saves full-page
screenshots under artifacts/screenshots/ (git-ignored); the folder's path is printed at the end.

The data grids (st.dataframe, st.data_editor) draw on a canvas; glide-data-grid also keeps an
accessibility table inside the canvas (`table[role=grid]`, cells `td#glide-cell-<col>-<row>`), which
is how cells are read here. A cell is edited by double-clicking its pixel position.
"""
from __future__ import annotations

import json
import re
import sys
import time
import warnings
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from kit.browser_kit import ROOT
from sim.core.config import Config, Policy
from tests.conftest import SEED_ROWS, make_trace
from ui.scenario import Scenario, decode, encode

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

SCREENSHOTS = ROOT / "artifacts" / "screenshots"
VIEWPORT = {"width": 1400, "height": 2600}  # tall: Streamlit scrolls inside its own container
TIMEOUT_MS = 30_000
HEADER_PX, ROW_PX, MARKER_PX = 36, 35, 34  # the data editor's header, row height and row-marker column

# A grid's header and rows from glide-data-grid's accessibility table (only the rows it has drawn).
READ_GRID = """(el) => {
  const table = el.querySelector('table[role=grid]');
  if (!table) return null;
  const head = Array.from(table.querySelectorAll('th[role=columnheader]')).map(e => e.textContent);
  const rows = Array.from(table.querySelectorAll('tr'))
    .map(r => Array.from(r.querySelectorAll('td[role=gridcell]')).map(e => e.textContent))
    .filter(cells => cells.length);
  return {head, rows};
}"""


@pytest.fixture(scope="module", autouse=True)
def screenshot_folder():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    yield SCREENSHOTS
    print(f"\nbrowser test screenshots: {SCREENSHOTS}", file=sys.__stderr__)


@pytest.fixture
def open_page(server, browser, request):
    """open_page(path, locale="en-US") -> a page at `path` once the app has run; a screenshot of each page
    opened is saved when the test ends, passed or failed."""
    contexts, pages = [], []

    def open_(path: str, locale: str = "en-US"):
        context = browser.new_context(locale=locale, viewport=VIEWPORT, accept_downloads=True)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        pages.append(page)
        page.goto(server + path)
        wait_idle(page)
        return page

    yield open_
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name).strip("_")
    for i, page in enumerate(pages):
        suffix = f"-{i + 1}" if len(pages) > 1 else ""
        try:
            page.screenshot(path=str(SCREENSHOTS / f"{name}{suffix}.png"), full_page=True)
        except playwright_api.Error as error:
            print(f"no screenshot of {name}{suffix}: {error}", file=sys.__stderr__)
    for context in contexts:
        context.close()


def wait_idle(page) -> None:
    """Connected, the script done, and no element of an earlier run left (stale)."""
    page.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]')
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    expect(page.locator('[data-stale="true"]')).to_have_count(0)


def no_exception(page) -> None:
    wait_idle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def grid(frame) -> dict:
    """{"head": [...], "rows": [[...], ...]} of an stDataFrame, once its accessibility table has cells."""
    frame.locator("td[role=gridcell]").first.wait_for(state="attached")
    return frame.evaluate(READ_GRID)


def trace_editor(page):
    """The lab's trace editor (Streamlit marks a keyed widget's container `st-key-<key>`; plain tables it does not)."""
    return page.locator(".st-key-trace").get_by_test_id("stDataFrame")


def headed(page, column: str):
    """The table (st.dataframe) that has a column with this header."""
    header = page.locator("th[role=columnheader]").get_by_text(column, exact=True)
    return page.get_by_test_id("stDataFrame").filter(has=header)


def rows_become(frame, rows: list) -> None:
    """Wait until the grid shows exactly these rows (a rerun may still be replacing it), else fail showing them."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while (shown := grid(frame)["rows"]) != rows and time.monotonic() < deadline:
        time.sleep(0.1)  # polling the grid's own cells, not waiting on a guess
    assert shown == rows


def row_becomes(frame, first: str | tuple, cells: list) -> None:
    """Wait until the grid's row that starts with `first` (a cell, or a tuple of the first cells) goes on with
    these cells, else fail showing it."""
    first = (first,) if isinstance(first, str) else first
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    # (a grid that starts afresh, its columns changed, has no table for a moment: not yet)
    while ((shown := next((row[len(first):len(first) + len(cells)] for row in (grid(frame) or {}).get("rows", ())
                           if tuple(row[:len(first)]) == first), None)) != cells
           and time.monotonic() < deadline):
        time.sleep(0.1)  # polling the grid's own cells, not waiting on a guess
    assert shown == cells


def title(page):
    return page.get_by_test_id("stMain").locator("h1").first


def edit_cell(page, editor, row: int, column: int, columns: int, value: str, old: str) -> None:
    """Double-click the editor's cell (row, column), both from 0 over the data columns, and type `value`.

    The data columns share the width after the row-marker column; the editor must show `old` there, which
    checks that the click landed on the intended cell. It returns once the grid shows `value` and the rerun the
    edit starts is done."""
    box = editor.bounding_box()
    width = (box["width"] - MARKER_PX) / columns
    x = box["x"] + MARKER_PX + width * (column + 0.5)
    y = box["y"] + HEADER_PX + ROW_PX * row + ROW_PX / 2
    page.mouse.dblclick(x, y)
    field = page.locator("input.gdg-input, textarea.gdg-input")
    expect(field).to_be_visible()
    expect(field).to_have_value(old)
    # Playwright's fill selects the old text, then types the new (an empty value: it presses Delete). Twice in
    # about 70 runs the cleared name came back, never on another edit; whether the editor lost the selection
    # before the keys came (the harness's race: a person selects after the editor shows) or the grid dropped a
    # committed edit (the app's), the two checks below say.
    field.fill(value)
    if (held := field.input_value()) != value:  # (the keys came before the editor took the selection: again)
        warnings.warn(f"the cell's editor held {held!r} after {value!r} was typed; typed again", stacklevel=2)
        field.fill(value)
    assert field.input_value() == value, f"the cell's editor holds {field.input_value()!r}, typed {value!r}"
    field.press("Enter")
    # the next edit waits for this one to reach the grid and for the rerun it starts: an edit typed while the
    # rerun replaces the table can be lost
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while (shown := grid(editor)["rows"][row][column]) != value and time.monotonic() < deadline:
        time.sleep(0.1)
    assert shown == value, f"the edit of row {row}, column {column} to {value!r} never reached the grid: {shown!r}"
    wait_idle(page)


def metric(page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


SEED_CELLS = [[str(value) for value in row] for row in SEED_ROWS]  # A, B, C as the grids show them

def test_the_language_switch_turns_a_page_chinese_and_keeps_an_edit(open_page):
    page = open_page("/trace_lab")
    expect(title(page)).to_have_text("Trace lab")
    edit_cell(page, trace_editor(page), row=2, column=3, columns=4, value="12", old="4")  # C's output 4 -> 12
    page.get_by_test_id("stSidebar").get_by_text("中文", exact=True).click()
    expect(title(page)).to_have_text("Trace 实验室")
    # the grid starts afresh under headers in another language: the edit was stored first (columns_changed)
    row_becomes(trace_editor(page), "C", ["3", "3", "12"])
    expect(page.get_by_role("button", name="运行 ▶")).to_be_visible()
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible()
    no_exception(page)


def test_editing_a_cell_reruns_the_lab_and_a_bad_edit_names_the_row(open_page):
    page = open_page("/trace_lab")
    editor = trace_editor(page)
    assert grid(editor) == {"head": ["request", "arrival", "prompt", "output"], "rows": SEED_CELLS}
    expect(metric(page, "makespan (tick) · P2")).to_have_text("8")

    edit_cell(page, editor, row=2, column=3, columns=4, value="12", old="4")  # C's output 4 -> 12
    expect(metric(page, "makespan (tick) · P2")).to_have_text("16")
    no_exception(page)
    assert grid(editor)["rows"][2] == ["C", "3", "3", "12"]
    row_becomes(headed(page, "metric"), "makespan (tick)", ["19", "16"])
    # the share link in the address bar follows the edit
    shared = decode(parse_qs(urlparse(page.url).query)["s"][0])
    assert [(r.name, r.output) for r in shared.trace] == [("A", 5), ("B", 2), ("C", 12)]

    # Bad values typed into the table stay as typed and get the upload's validation: row, column, reason.
    edit_cell(page, editor, row=2, column=2, columns=4, value="-2", old="3")  # C's prompt
    edit_cell(page, editor, row=1, column=3, columns=4, value="0", old="2")  # B's output
    edit_cell(page, editor, row=0, column=0, columns=4, value="", old="A")  # A's name cleared
    edit_cell(page, editor, row=0, column=1, columns=4, value="2.5", old="0")  # A's arrival
    expect(page.get_by_test_id("stAlert").filter(has_text="3 row(s) need fixing")).to_be_visible()
    no_exception(page)
    rows_become(editor, [["", "2.5", "4", "5"], ["B", "0", "2", "0"], ["C", "3", "-2", "12"]])
    rows_become(headed(page, "problem"), [["1", "", "request", "is empty"],
                                          ["1", "", "arrival", "must be a whole number, got 2.5"],
                                          ["2", "B", "output", "must be at least 1, got 0"],
                                          ["3", "C", "prompt", "must be at least 1, got -2"]])
    expect(page.get_by_role("button", name="Run ▶")).to_be_disabled()
    with page.expect_download() as download:  # what was typed downloads as it is
        page.get_by_role("button", name="Download what is typed (CSV)").click()
    assert Path(download.value.path()).read_text().splitlines() == [
        "name,arrival,prompt,output", ",2.5,4,5", "B,0,2,0", "C,3,-2,12"]


def test_a_share_link_opens_its_scenario_and_a_tampered_one_says_so(open_page):
    # r's prompt of 9 fits the link's budget of 10, not the default 8: an over-budget error would show
    trace = make_trace(("p", 0, 3, 2), ("q", 1, 2, 3), ("r", 2, 9, 1), ("s", 3, 1, 4))
    page = open_page("/trace_lab?s=" + encode(Scenario(trace, Config(10), "static", "continuous")))
    rows_become(trace_editor(page), [
        ["p", "0", "3", "2"], ["q", "1", "2", "3"], ["r", "2", "9", "1"], ["s", "3", "1", "4"]])
    expect(page.get_by_role("spinbutton", name="Token budget per iteration")).to_have_value("10")
    expect(page.get_by_text("4 requests", exact=True)).to_be_visible()
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible()
    no_exception(page)
    expect(page.get_by_test_id("stAlert")).to_have_count(0)
    # the folded share box draws its link only once opened, and that link opens the same scenario
    expect(page.get_by_test_id("stCode")).to_have_count(0)
    page.get_by_text("Share this scenario (link)").click()
    link = page.get_by_test_id("stCode").inner_text()
    assert link.startswith(page.url.split("?")[0] + "?s=")
    assert decode(parse_qs(urlparse(link).query)["s"][0]).trace == trace

    page = open_page("/trace_lab?s=garbage!!")
    expect(page.get_by_test_id("stAlert").filter(has_text="This link could not be opened")).to_be_visible()
    rows_become(trace_editor(page), SEED_CELLS)
    expect(page.get_by_role("spinbutton", name="Token budget per iteration")).to_have_value("8")
    no_exception(page)


def test_scheduler_options_open_on_demand_and_folding_keeps_them(open_page):
    page = open_page("/trace_lab")
    chunk = page.get_by_role("spinbutton", name="Chunked prefill: tokens a chunk (0 = off)")
    expect(chunk).to_have_count(0)  # folded options are not drawn
    options = page.get_by_text("Scheduler options", exact=True)
    options.nth(1).click()  # policy B's
    expect(chunk).to_have_count(1, timeout=TIMEOUT_MS)  # a rerun, which can outlast 5 s on a busy machine
    chunk.fill("2")
    chunk.press("Enter")
    expect(page.get_by_text("Options changed: chunks of 2")).to_be_visible(timeout=TIMEOUT_MS)
    expect(chunk).to_have_value("2")  # still open after the edit's rerun
    options.nth(1).click()  # folded again: the option stays
    expect(chunk).to_have_count(0, timeout=TIMEOUT_MS)
    expect(page.get_by_text("Options changed: chunks of 2")).to_be_visible()
    wait_idle(page)
    shared = decode(parse_qs(urlparse(page.url).query)["s"][0])
    assert shared.policy_b.chunk_size == 2 and shared.policy_a.chunk_size is None
    no_exception(page)


def test_a_preset_puts_its_policies_in_the_forms_drawn_or_folded(open_page):
    # Each check waits on a rerun, which can outlast expect's 5 s on a busy machine: they wait as long as actions.
    page = open_page("/trace_lab")
    options = page.get_by_text("Scheduler options", exact=True)
    options.nth(1).click()  # B's options open before the preset comes
    chunk = page.get_by_role("spinbutton", name="Chunked prefill: tokens a chunk (0 = off)")
    expect(chunk).to_have_value("0", timeout=TIMEOUT_MS)
    preset = page.get_by_test_id("stSelectbox").filter(has_text="Preset")
    preset.click()
    page.get_by_role("option", name="One long prompt stalls everyone (chunked prefill)").click()
    page.get_by_role("button", name="Load preset").click()
    expect(chunk).to_have_value("16", timeout=TIMEOUT_MS)
    expect(page.get_by_text("Options changed: chunks of 16")).to_be_visible()
    policy = page.get_by_test_id("stSelectbox").filter(has_text="Policy 1").locator("input")
    expect(policy).to_have_value("Continuous batching")
    # Folded, B's widgets are dropped; the next preset sets them unseen, and opening B's options draws them anew
    # with the preset's order, not the first choice.
    options.nth(1).click()
    expect(chunk).to_have_count(0, timeout=TIMEOUT_MS)
    preset.click()
    page.get_by_role("option", name="VIP tenant").click()
    page.get_by_role("button", name="Load preset").click()
    changed = page.get_by_text("Options changed: order priority, preemptive")
    expect(changed).to_be_visible(timeout=TIMEOUT_MS)
    options.nth(1).click()
    order = page.get_by_test_id("stSelectbox").filter(has_text="Queue order").locator("input")
    expect(order).to_have_value("priority (lower value first)", timeout=TIMEOUT_MS)
    expect(page.get_by_role("checkbox", name="Higher priority may preempt")).to_be_checked()
    expect(chunk).to_have_value("0")
    wait_idle(page)
    expect(changed).to_be_visible()
    shared = decode(parse_qs(urlparse(page.url).query)["s"][0])
    assert shared.policy_b == Policy(order="priority", preemptive_priority=True)
    no_exception(page)


def test_opening_one_policys_options_leaves_the_other_policy_as_it_was(open_page):
    # The link's options differ from the first choices, folded away: a widget drawn anew that showed its first
    # choice (and sent it back) would change a policy nobody touched. Checks after a click wait on its rerun,
    # which can outlast expect's 5 s on a busy machine.
    policy_a, policy_b = Policy(order="edf", timeout=30), Policy(order="sjf", chunk_size=3)
    page = open_page("/trace_lab?s=" + encode(Scenario(make_trace(*SEED_ROWS), Config(8), policy_a, policy_b)))
    options = page.get_by_text("Scheduler options", exact=True)
    forms = page.get_by_test_id("stExpander").filter(has_text="Scheduler options")
    options.first.click()  # A's, at once
    order_a = forms.first.get_by_test_id("stSelectbox").filter(has_text="Queue order").locator("input")
    expect(order_a).to_have_value("earliest deadline first", timeout=TIMEOUT_MS)
    expect(forms.first.get_by_role("spinbutton", name="Timeout (0 = none)")).to_have_value("30")
    wait_idle(page)
    expect(page.get_by_text("Options changed: order sjf, chunks of 3")).to_be_visible()  # B's, still folded
    options.nth(1).click()
    order_b = forms.nth(1).get_by_test_id("stSelectbox").filter(has_text="Queue order").locator("input")
    expect(order_b).to_have_value("shortest job first", timeout=TIMEOUT_MS)
    expect(forms.nth(1).get_by_role("spinbutton", name="Chunked prefill: tokens a chunk (0 = off)")).to_have_value("3")
    wait_idle(page)
    expect(page.get_by_text("Options changed: order edf, timeout 30")).to_be_visible()
    expect(page.get_by_text("Options changed: order sjf, chunks of 3")).to_be_visible()
    shared = decode(parse_qs(urlparse(page.url).query)["s"][0])
    assert (shared.policy_a, shared.policy_b) == (policy_a, policy_b)
    no_exception(page)


def test_loading_the_shown_preset_again_drops_the_edits_for_good(open_page):
    # The browser keeps an editor's edits while it draws the same editor: loaded again, the same table comes in a
    # new one (key trace_1), with the preset's rows, and the edit does not come back at the next change.
    page = open_page("/trace_lab")
    edit_cell(page, trace_editor(page), row=2, column=2, columns=4, value="-2", old="3")  # C's prompt
    expect(page.get_by_test_id("stAlert").filter(has_text="1 row(s) need fixing")).to_be_visible(timeout=TIMEOUT_MS)
    page.get_by_role("button", name="Load preset").click()
    fresh = page.locator(".st-key-trace_1").get_by_test_id("stDataFrame")
    rows_become(fresh, SEED_CELLS)
    page.get_by_role("spinbutton", name="Token budget per iteration").fill("9")
    page.get_by_role("spinbutton", name="Token budget per iteration").press("Enter")
    wait_idle(page)
    rows_become(fresh, SEED_CELLS)
    expect(page.get_by_test_id("stAlert").filter(has_text="need fixing")).to_have_count(0)
    no_exception(page)


def test_the_trace_downloads_as_csv(open_page):
    page = open_page("/trace_lab")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download trace (CSV)").click()
    assert download.value.suggested_filename == "trace.csv"
    text = Path(download.value.path()).read_text()
    assert text.splitlines() == ["name,arrival,prompt,output", *(",".join(row) for row in SEED_CELLS)]
    no_exception(page)


def test_the_results_download_when_clicked(open_page):
    """The results' files are made only when their button is clicked (a page run does not build them): each
    still holds the seed example's runs."""
    page = open_page("/trace_lab")

    def fetch(name: str) -> str:
        with page.expect_download() as download:
            page.get_by_role("button", name=name).click()
        return Path(download.value.path()).read_text()

    requests = fetch("Per-request metrics (CSV)").splitlines()
    assert requests[0].startswith("policy,") and len(requests) == 1 + 2 * len(SEED_CELLS)
    assert {line.split(",")[0] for line in requests[1:]} == {"static", "continuous"}
    schedules = json.loads(fetch("Schedules (JSON)"))
    assert sorted(schedules) == ["A_static", "B_continuous"]
    assert schedules["A_static"]["makespan"] == 11 and schedules["B_continuous"]["makespan"] == 8
    assert "vllm:time_to_first_token_seconds" in fetch("Metrics of Policy 2 (Prometheus, vLLM names)")
    assert json.loads(fetch("Chrome / Perfetto trace"))["traceEvents"]
    no_exception(page)


def test_hostile_names_stay_text_and_downloads_neutralize_formulas(open_page):
    names = ['<img src=x onerror="window.pwned=1">', "<b>bold</b>", "=cmd|' /C calc'!A0", "@SUM(1)"]
    trace = make_trace(*((name, i, 2, 2) for i, name in enumerate(names)))
    page = open_page("/trace_lab?s=" + encode(Scenario(trace, Config(8), "static", "continuous")))
    rows_become(trace_editor(page), [[name, str(i), "2", "2"] for i, name in enumerate(names)])
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible()
    no_exception(page)
    assert page.evaluate("window.pwned") is None
    assert page.locator('img[src="x"]').count() == 0
    # Plotly draws a label's <b> as bold: the Gantt's labels show the name's characters instead
    labels = page.locator('[data-testid="stPlotlyChart"] .ytick text').all_text_contents()
    assert "<b>bold</b>" in labels and names[0] in labels
    with page.expect_download() as download:
        page.get_by_role("button", name="Download trace (CSV)").click()
    lines = Path(download.value.path()).read_text().splitlines()
    assert lines[3:] == ["'=cmd|' /C calc'!A0,2,2,2", "'@SUM(1),3,2,2"]


AZURE = ROOT.parent / "shared" / "traces" / "AzureLLMInferenceTrace_conv.csv"


def test_the_capacity_lab_sweeps_a_real_azure_trace_and_marks_the_knees(open_page):
    if not AZURE.exists():
        pytest.skip(f"{AZURE} is not present (it comes with ../shared, not with the project)")
    page = open_page("/capacity_lab")
    # the first visit's sweep (it starts the server's worker processes: slow on a loaded machine)
    expect(page.locator('[data-testid="stPlotlyChart"] .main-svg').first).to_be_visible(timeout=30_000)
    page.get_by_text("upload a real trace", exact=True).click()
    wait_idle(page)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(AZURE))
    expect(page.get_by_role("button", name="Import")).to_be_enabled()
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Read 2,000 rows in Azure LLM inference format")).to_be_visible()
    expect(page.get_by_text("2,000 requests arriving over 42,425 ticks")).to_be_visible()
    no_exception(page)
    # the default policies' budget of 8 was sized to the trace's largest prompt (7,930 tokens)
    expect(page.get_by_text("token budget is now 8,192")).to_be_visible()
    expect(page.get_by_test_id("stAlert").filter(has_text="changed since")).to_have_count(1)  # the old sweep's
    page.get_by_role("button", name="Run the sweep").click()
    expect(page.get_by_test_id("stAlert").filter(has_text="changed since")).to_have_count(0)  # the new one's
    wait_idle(page)
    no_exception(page)
    knees = page.get_by_test_id("stMain").locator("li").filter(has_text="90%")
    expect(knees).to_have_count(3)  # one sentence a policy
    charts = page.locator('[data-testid="stPlotlyChart"]')
    expect(charts.first.locator(".main-svg").first).to_be_visible()
    assert charts.count() >= 5
    legend = charts.first.locator(".legendtext").all_text_contents()
    assert {"static", "continuous", "chunked prefill"} <= set(legend)
    # and the sweep of a real trace, 2,000 requests over 42,425 ticks, lays out as the default one does
    from tests.test_layout import CHECKS, settle  # (test_layout imports this module's fixtures)
    settle(page, "capacity lab, the Azure trace's sweep")
    problems = page.evaluate(CHECKS, "capacity lab, the Azure trace's sweep")
    assert not problems, problems


def test_the_real_model_streams_stops_and_runs_again(open_page):
    page = open_page("/real_model")
    expect(title(page)).to_have_text("Real model")
    page.get_by_text("long answers", exact=True).click()
    wait_idle(page)
    # One request at a time: a run of seconds, not one of under a second (where the machine was profiled already
    # in this test session, the run starts at once, and ended before a look found it running, or Stop came)
    sequences = page.get_by_role("spinbutton", name="Max running sequences (0 = no limit)")
    sequences.fill("1")
    sequences.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Run on the model ▶").click()
    # (the session's first comparison may profile the machine first: about 10 s, then kept); looked for at every
    # frame, as the progress bar shows it
    page.wait_for_function("() => /Running Policy [12] on the model…/.test(document.body.innerText)",
                           polling="raf", timeout=60_000)
    streamed = page.get_by_test_id("stMain").locator("pre").first
    expect(streamed).not_to_be_empty()  # the first request's text arrives while the run goes
    expect(page.get_by_text(re.compile(r"^\S+, as it is generated:$")).first).to_be_visible()  # under its name
    page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop").click()
    expect(page.get_by_text("Press", exact=False).first).to_be_visible()
    wait_idle(page)
    expect(page.get_by_text("The simulator's prediction")).to_have_count(0)
    no_exception(page)
    # the stopped run let go of the shared model: the next run goes through to measured charts
    page.get_by_role("button", name="Run on the model ▶").click()
    expect(page.get_by_text("The simulator's prediction")).to_be_visible(timeout=120_000)
    wait_idle(page)
    no_exception(page)
    expect(page.get_by_text("Measured on cpu")).to_be_visible()
    # the Stop button went with the run: a click on it now would stop nothing
    expect(page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop")).to_have_count(0)
    assert page.locator('[data-testid="stPlotlyChart"] .main-svg').count() >= 4
    assert "ms" in page.locator('[data-testid="stPlotlyChart"] .xtitle').first.text_content()
