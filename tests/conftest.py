"""Shared test helpers: where ../shared lives, small trace builders, a check of every table a page draws, and the
browser tests' app server (one for the session) and Chromium (and a second one, on a thread of its own)."""
import json
import os
from pathlib import Path

import pytest

from sim.trace.trace import validate

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(scope="session", autouse=True)
def kept_profiles(tmp_path_factory):
    """This machine's cost profiles are kept in the session's own folder (gpu_demo.profile.kept_dir): the first
    comparison of the session profiles the machine, as on a first visit, and a user's own are never touched."""
    os.environ["CLASSROOM_PROFILES"] = str(tmp_path_factory.mktemp("profiles"))


@pytest.fixture(scope="session")
def server():
    """`streamlit run app.py` on a free port, one for the session's browser tests (its start warms every page's
    first visit: about 15 s a start); yields the base URL once it answers."""
    from kit.browser_kit import ServerError, streamlit_server

    try:
        with streamlit_server() as base:
            yield base
    except ServerError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium under Playwright, one for each module (Playwright's sync API holds an event loop running
    while it is open, and the load tests' asyncio.run() needs none); a clean skip without either."""
    from kit.browser_kit import CHROMIUM, CHROMIUM_ARGS

    playwright_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def side(browser):
    """A second Chromium, on a thread of its own (Playwright's sync API serves only the thread that started it),
    given as `side(check, *args)`: `check(chromium, *args)` run on that thread, a Future. A test checks one screen
    size there while its own thread checks the other in `browser` (tests/test_layout.at_both_sizes): two pages
    drawing at once keep both cores busy, where one page's drawing is mostly one core of Chromium's."""
    from concurrent.futures import ThreadPoolExecutor

    from playwright.sync_api import sync_playwright

    from kit.browser_kit import CHROMIUM, CHROMIUM_ARGS

    thread = ThreadPoolExecutor(1, thread_name_prefix="side-chromium")
    playwright = thread.submit(lambda: sync_playwright().start()).result()
    chromium = thread.submit(playwright.chromium.launch, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS).result()
    yield lambda check, *args: thread.submit(check, chromium, *args)
    thread.submit(chromium.close).result()
    thread.submit(playwright.stop).result()
    thread.shutdown()


@pytest.fixture(autouse=True)
def whole_cells(monkeypatch):
    """Every run of a page in any test (its first, and after each click or edit) draws no table that cuts a cell
    off: a test that ends with one fails, naming it (`cut_cells`)."""
    from streamlit.testing.v1 import AppTest
    cut, run = [], AppTest._run

    def checked(self, *args, **kwargs):
        at = run(self, *args, **kwargs)
        cut.extend(cell for cell in cut_cells(at) if cell not in cut)
        return at

    monkeypatch.setattr(AppTest, "_run", checked)
    yield
    assert not cut, f"a table cuts these cells off: {cut}"


def cut_cells(at) -> list[str]:
    """Each grid column whose longest text would be cut off: in a column without a width of its own, a text after
    the rows the grid sizes it by, longer than all of them by half an em (ui/wrap.em's estimate); in a column set
    to a width in px, a text wider than that. (A grid sizes a column to its header and its first rows, sampling
    ten: a longer text further down is cut off, on a canvas the browser checks cannot read: tests/test_layout.py.)"""
    from ui.tables import GRID_FONT_PX, GRID_SAMPLED_ROWS, cell_text
    from ui.wrap import em
    cut = []
    for k, grid in enumerate(at.dataframe):
        config, shown = json.loads(grid.proto.columns or "{}"), grid.value
        for column in shown.columns:
            texts = [cell_text(value) for value in shown[column]]
            width = config.get(str(column), {}).get("width")
            if isinstance(width, int):
                longest = max(texts, key=em, default="")
                if em(longest) * GRID_FONT_PX > width:
                    cut.append(f"table #{k + 1}, column {column!r} ({width} px): {longest!r}")
                continue
            if width:  # ("small", "medium" or "large": a text column that may end in "…" by design)
                continue
            sized = max(map(em, [str(column), *texts[:GRID_SAMPLED_ROWS]]))
            longest = max(texts[GRID_SAMPLED_ROWS:], key=em, default="")
            if em(longest) > sized + 0.5:
                cut.append(f"table #{k + 1}, column {column!r}: {longest!r} (row {texts.index(longest) + 1})")
    return cut


def shared_path(*parts: str) -> Path:
    """A file under ../shared, or a clean skip when a fresh clone has no ../shared."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not present (it lives outside the project)")
    return path


def make_trace(*rows):
    """A trace from (name, arrival, prompt, output) tuples."""
    return validate([dict(zip(("name", "arrival", "prompt", "output"), row)) for row in rows])


SEED_ROWS = (("A", 0, 4, 5), ("B", 0, 2, 2), ("C", 3, 3, 4))
