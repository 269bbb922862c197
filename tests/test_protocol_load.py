"""The protocol load test in its small form: a few websocket sessions in a rush through every page, on the session's
app server, and on fresh servers (bench/protocol_load.py runs forty, rushed and paced); and the report's
arithmetic. No browser."""
import pyarrow as pa
import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from kit.browser_kit import ServerError, streamlit_server
from kit.classroom_load import WALK
from kit.protocol_load import (
    HOME,
    LAB_TRACE,
    NAMES,
    SHARE_LINK,
    ProtocolReport,
    Shown,
    Student,
    cold_rush,
    drive,
    percentile,
)

SESSIONS = 6


def test_a_rush_of_protocol_sessions_walks_every_page_without_errors_or_crosstalk(server):
    report = drive(server, SESSIONS)
    print(report.summary())
    assert report.errors == [], report.summary()
    assert report.crosstalk == [], report.summary()
    # every session timed every page run: none was skipped on the way
    assert {page: len(times) for page, times in report.runs.items()} == {
        SHARE_LINK: SESSIONS, **{link: SESSIONS for link, _ in WALK}, LAB_TRACE: SESSIONS}
    assert len(report.model_runs) == SESSIONS


ROUNDS, RUSH = 3, 24


def test_a_cold_rush_on_fresh_servers_meets_no_half_imported_library_and_every_run_has_its_navigation():
    """Before app.py imported the heavy libraries up front, home pages opened beside share links on a fresh
    server showed "AttributeError: partially initialized module 'pandas'" (every round failed), and share
    links opened at once ran without classroom.py's navigation. Each round is a server nobody has used yet."""
    for round_ in range(ROUNDS):
        try:
            with streamlit_server() as base:
                report = cold_rush(base, RUSH)
        except ServerError as error:
            pytest.fail(str(error))
        assert report.errors == [], f"round {round_ + 1}:\n{report.summary()}"
        assert {page: len(times) for page, times in report.runs.items()} == {HOME: RUSH // 2, SHARE_LINK: RUSH // 2}


def test_percentiles_interpolate_between_ranks():
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([float(v) for v in range(1, 101)], 0.95) == pytest.approx(95.05)
    assert percentile([7.0], 0.95) == 7.0
    assert (percentile([4.0, 9.0], 0.0), percentile([4.0, 9.0], 1.0)) == (4.0, 9.0)


def test_the_summary_gives_each_page_its_figures_and_names_every_error():
    report = ProtocolReport(runs={"Home": [1.0, 2.0, 3.0, 4.0], "Trace lab": [0.5]}, model_runs=[3.0, 5.0, 10.0],
                            errors=["session 2, step 1, Home: exception AttributeError: boom"],
                            spans=[(100.0, 160.0), (103.0, 150.0)])
    assert report.stats("Home") == (2.5, pytest.approx(3.85), 4.0)
    assert report.worst_p95() == ("Home", pytest.approx(3.85))
    assert report.summary().splitlines() == [
        "Home: p50 2.50 s, p95 3.85 s, max 4.00 s (4 runs)",
        "Trace lab: p50 0.50 s, p95 0.50 s, max 0.50 s (1 runs)",
        "model runs (taking turns, not page loads): p50 5.00 s, max 10.00 s (3 runs)",
        "all 2 sessions open at once from 3 s to 50 s of the 60 s run; 1.8 sessions walking at once on average, "
        "2 at the most",
        "worst p95: 3.85 s (Home)",
        "5 page runs, 1 errors, 0 crosstalk",
        "  error: session 2, step 1, Home: exception AttributeError: boom"]


def test_walking_at_once_averages_over_the_whole_run_gaps_and_all():
    assert ProtocolReport(spans=[(0.0, 10.0), (20.0, 30.0)]).walking() == (pytest.approx(20 / 30), 1)
    assert ProtocolReport(spans=[(5.0, 9.0), (0.0, 10.0), (1.0, 2.0)]).walking() == (pytest.approx(1.5), 2)
    assert ProtocolReport(spans=[(0.0, 4.0), (4.0, 8.0)]).walking() == (pytest.approx(1.0), 1)  # one hands over


def _delta(fill) -> ForwardMsg:
    msg = ForwardMsg()
    fill(msg.delta.new_element)
    return msg


def _arrow(names: list[str]) -> bytes:
    sink = pa.BufferOutputStream()
    table = pa.table({"name": names, "arrival": list(range(len(names)))})
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _read(msg: ForwardMsg, session: int = 0) -> tuple[ProtocolReport, Shown]:
    report, shown = ProtocolReport(), Shown()
    Student(None, "http://127.0.0.1:1", session, report)._delta("Trace lab", msg.SerializeToString(), msg.delta, shown)
    return report, shown


def test_another_sessions_request_in_a_tables_arrow_bytes_is_crosstalk():
    def editor(element):
        element.dataframe.id = "$$ID-0123abcd-trace"
        element.dataframe.arrow_data.data = _arrow(["s0-r0", "s1-r2"])

    msg = _delta(editor)
    assert not {m.group(0) for m in NAMES.finditer(msg.SerializeToString())} & {b"s0-r0", b"s1-r2"}  # back to back
    report, shown = _read(msg)
    assert report.crosstalk == ["session 0, Trace lab: shows requests of ['s1']"]
    assert shown.tables == {"trace": ["s0-r0", "s1-r2"]} and shown.columns == [["s0-r0", "s1-r2"]]
    assert _read(msg, session=1)[0].crosstalk == ["session 1, Trace lab: shows requests of ['s0']"]


def test_an_exception_element_is_an_error_naming_its_type_and_message():
    def exception(element):
        element.exception.type = "AttributeError"
        element.exception.message = "partially initialized module 'pandas' has no attribute 'Series'"

    report, _ = _read(_delta(exception))
    assert report.errors == ["session 0, Trace lab: exception AttributeError: partially initialized module 'pandas' "
                             "has no attribute 'Series'"]
