"""The classroom load test in its small form: a few Chromium sessions at once through every page, on the session's
app server (the bench, bench/load_test.py, runs eight or more and prints the page-load times). Skips without
Debian's Chromium."""
import pytest

from kit.browser_kit import CHROMIUM

pytest.importorskip("playwright.async_api")

SESSIONS = 3


def test_concurrent_sessions_walk_every_page_without_errors_or_crosstalk(server):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    from kit.classroom_load import WALK, drive

    report = drive(server, SESSIONS)
    assert report.problems == []
    # every session timed every page: none was skipped on the way
    assert {page: len(times) for page, times in report.loads.items()} == {
        "Trace lab (share link)": SESSIONS, **{title: SESSIONS for _, title in WALK}}
    print(report.summary())


def test_the_pace_of_a_class_is_seeded_per_session_and_bounded():
    from itertools import islice

    from kit.classroom_load import Pace

    assert list(islice(Pace().pauses(3), 5)) == [0.0] * 5  # the rush: nobody reads
    pace = Pace(gap=3, think=7)
    first = list(islice(pace.pauses(0), 2000))
    assert first == list(islice(pace.pauses(0), 2000))  # the same session reads the same way each run
    assert first[:10] != list(islice(pace.pauses(1), 10))  # another session reads otherwise
    assert all(0 <= pause <= 70 for pause in first)  # cut at ten times the mean
    assert 6 < sum(first) / len(first) < 8


def test_the_report_says_how_long_every_session_was_open_at_once():
    from kit.classroom_load import Report

    report = Report(spans=[(100.0, 160.0), (103.0, 150.0), (106.0, 170.0)])
    assert report.together() == (6.0, 50.0, 70.0)
    assert report.overlap() == "all 3 sessions open at once from 6 s to 50 s of the 70 s run"
    apart = Report(spans=[(0.0, 5.0), (6.0, 9.0)])
    assert apart.overlap() == "the 2 sessions were never all open at once (9 s run)"


def test_the_walk_visits_every_page_of_the_navigation():
    # The load tests and benches say each session walks every page: every sidebar link of classroom.py (its
    # st.Page titles, the nav_ strings), each once, the lab last (the share link opened it first).
    import re
    from pathlib import Path

    from kit.classroom_load import WALK
    from ui.lang.en import TEXTS

    keys = re.findall(r'title=t\("(nav_\w+)"\)', (Path(__file__).parents[1] / "classroom.py").read_text())
    links = [link for link, _ in WALK]
    assert len(keys) == 9 and sorted(links) == sorted(TEXTS[key] for key in keys)
    assert links[-1] == TEXTS["nav_lab"]
