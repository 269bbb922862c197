"""The classroom load test in its small form: a few Chromium sessions at once through every page (the bench,
bench/load_test.py, runs eight or more and prints the page-load times). Skips without Debian's Chromium."""
import pytest

from tests.browser_kit import CHROMIUM, ServerError, streamlit_server

pytest.importorskip("playwright.async_api")

SESSIONS = 3


def test_concurrent_sessions_walk_every_page_without_errors_or_crosstalk():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    from tests.classroom_load import WALK, drive

    try:
        with streamlit_server() as base:
            report = drive(base, SESSIONS)
    except ServerError as error:
        pytest.fail(str(error))
    assert report.problems == []
    # every session timed every page: none was skipped on the way
    assert {page: len(times) for page, times in report.loads.items()} == {
        "Trace lab (share link)": SESSIONS, **{title: SESSIONS for _, title in WALK}}
    print(report.summary())
