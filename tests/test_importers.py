"""Tests of the real-trace importers: the Azure files when present, inline Mooncake and BurstGPT samples,
and malformed input, which must always end in a TraceError."""
import json
import math
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from sim.trace.importers import (
    CSV_COLUMNS,
    FORMATS,
    ImportOptions,
    detect_format,
    import_azure,
    import_burstgpt,
    import_mooncake,
    import_trace,
)
from sim.trace.trace import MAX_TOKENS, TraceError

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"


@pytest.fixture(scope="module", params=[("code", 8819), ("conv", 19366)], ids=["code", "conv"])
def azure(request):
    kind, rows = request.param
    path = TRACES / f"AzureLLMInferenceTrace_{kind}.csv"
    if not path.exists():
        pytest.skip(f"real traces not present at {TRACES}")
    return path.read_text(), rows


@pytest.fixture(scope="module")
def conv():
    path = TRACES / "AzureLLMInferenceTrace_conv.csv"
    if not path.exists():
        pytest.skip(f"real traces not present at {TRACES}")
    return path.read_text()


def arrivals(result):
    return [r.arrival for r in result.trace]


def test_azure_files_import_every_row_sorted_from_tick_0(azure):
    text, rows = azure
    result = import_azure(text)
    assert len(result.trace) == result.report.rows_read == result.report.rows_kept == rows
    assert not result.report.dropped and result.report.rows_not_read == 0
    assert arrivals(result)[0] == 0 and arrivals(result) == sorted(arrivals(result))
    assert not result.trace.reordered
    assert result.trace.requests[0].name == "azure-000001"
    assert result.trace.requests[-1].name == f"azure-{rows:06d}"
    assert detect_format(text) == "azure" and import_trace(text) == result


def test_azure_ms_per_tick_on_hand_checked_rows(conv):
    # Rows 1-3: 18:15:46.6805900, 18:15:50.9951690, 18:15:51.2224670, i.e. 0, 4314.579 and 4541.877 ms.
    first = import_azure(conv, ImportOptions(ms_per_tick=1, limit=3))
    assert arrivals(first) == [0, 4314, 4541]
    assert arrivals(import_azure(conv, ImportOptions(ms_per_tick=100, limit=3))) == [0, 43, 45]
    assert arrivals(import_azure(conv, ImportOptions(limit=3))) == [0, 4, 4]
    assert [(r.prompt, r.output) for r in first.trace] == [(374, 44), (396, 109), (879, 55)]
    # The whole conv trace spans 3,501.72 s: the last request arrives at tick 3501 with 1 s ticks.
    assert arrivals(import_azure(conv))[-1] == 3501


def test_a_whole_number_of_ticks_is_not_floored_below_itself():
    text = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,1,1\n" \
           "2023-11-16 18:17:04.0319600,1,1\n2023-11-16 18:17:04.2799600,1,1\n"
    assert arrivals(import_azure(text, ImportOptions(ms_per_tick=52))) == [0, 1, 5]
    assert arrivals(import_azure(text, ImportOptions(ms_per_tick=0.1))) == [0, 520, 3000]


def test_azure_token_scaling(conv):
    half = import_azure(conv, ImportOptions(token_scale=0.5, limit=2))
    assert [(r.prompt, r.output) for r in half.trace] == [(187, 22), (198, 54)]  # 54.5 rounds to even
    tiny = import_azure(conv, ImportOptions(token_scale=0.001, limit=2))
    assert [(r.prompt, r.output) for r in tiny.trace] == [(1, 1), (1, 1)]  # never below one token


def test_azure_window_is_seconds_after_the_first_row(conv):
    result = import_azure(conv, ImportOptions(start_s=60, end_s=120))
    lines = conv.splitlines()[1:]
    times = [datetime.fromisoformat(line.split(",")[0]) for line in lines]
    inside = [i for i, t in enumerate(times, 1) if 60 <= (t - times[0]).total_seconds() < 120]
    assert [r.name for r in result.trace] == [f"azure-{i:06d}" for i in inside]
    assert result.report.dropped == {"outside time window": len(lines) - len(inside)}
    assert arrivals(result)[0] == 0 and arrivals(result)[-1] < 60
    assert "outside time window" in str(result.report)


def test_azure_limit_stops_reading(conv):
    result = import_azure(conv, ImportOptions(limit=100))
    report = result.report
    assert len(result.trace) == report.rows_read == report.rows_kept == 100
    assert report.rows_not_read == 19366 - 100 and not report.dropped
    assert "19,266 more rows not read" in str(report)
    windowed = import_azure(conv, ImportOptions(start_s=1000, limit=10))
    assert windowed.trace.requests[0].arrival == 0 and len(windowed.trace) == 10
    assert windowed.report.rows_read == windowed.report.rows_dropped + 10


MOONCAKE = '''\
{"timestamp": 0, "input_length": 6955, "output_length": 52, "hash_ids": [0, 1, 2]}
{"timestamp": 0, "input_length": 6472, "output_length": 26, "hash_ids": [0, 3]}
{"timestamp": 3052, "input_length": 7000, "output_length": 1, "hash_ids": [4]}

not json
[1, 2]
{"timestamp": "soon", "input_length": 5, "output_length": 5}
{"input_length": 5, "output_length": 5}
{"timestamp": 4000, "input_length": 0, "output_length": 5}
{"timestamp": 4100, "input_length": 12.5, "output_length": 5}
{"timestamp": 4200, "input_length": 3, "output_length": -3}
{"timestamp": 5999.5, "input_length": 100, "output_length": 7}
'''


def test_mooncake_keeps_good_lines_and_says_why_it_dropped_the_rest():
    result = import_mooncake(MOONCAKE)
    assert [(r.name, r.arrival, r.prompt, r.output) for r in result.trace] == [
        ("mooncake-000001", 0, 6955, 52), ("mooncake-000002", 0, 6472, 26),
        ("mooncake-000003", 3, 7000, 1), ("mooncake-000012", 5, 100, 7)]
    report = result.report
    assert report.rows_read == 12 and report.rows_kept == 4 and report.rows_dropped == 8
    assert report.dropped == {"blank line": 1, "bad JSON line": 1, "not a JSON object": 1,
                              "unparseable timestamp": 1, "missing timestamp": 1, "zero prompt tokens": 1,
                              "non-integer prompt tokens": 1, "negative output tokens": 1}
    assert report.examples == ((4, "blank line"), (5, "bad JSON line"), (6, "not a JSON object"),
                               (7, "unparseable timestamp"), (8, "missing timestamp"))
    assert "Dropped 8" in str(report) and "row 4 (blank line)" in str(report)
    assert detect_format(MOONCAKE) == "mooncake" and import_trace(MOONCAKE) == result


def test_mooncake_ticks_are_milliseconds_scaled():
    result = import_mooncake(MOONCAKE, ImportOptions(ms_per_tick=1, token_scale=0.01))
    assert arrivals(result) == [0, 0, 3052, 5999]
    assert [r.prompt for r in result.trace] == [70, 65, 70, 1]


BURSTGPT = """Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
5,ChatGPT,472,18,490,Conversation log
45,ChatGPT,1087,0,1087,Conversation log
118,GPT-4,417,276,693,Conversation log
118.5,ChatGPT,,30,30,API log
130,ChatGPT,abc,30,30,API log
xyz,ChatGPT,1,1,2,API log

200.25,GPT-4,12,34,46,API log
"""


def test_burstgpt_drops_failed_requests_and_bad_rows():
    result = import_burstgpt(BURSTGPT)
    assert [(r.name, r.arrival, r.prompt, r.output) for r in result.trace] == [
        ("burstgpt-000001", 0, 472, 18), ("burstgpt-000003", 113, 417, 276), ("burstgpt-000008", 195, 12, 34)]
    assert result.report.dropped == {"zero output tokens": 1, "missing prompt tokens": 1,
                                     "non-integer prompt tokens": 1, "unparseable timestamp": 1,
                                     "blank line": 1}
    assert detect_format(BURSTGPT) == "burstgpt" and import_trace(BURSTGPT, "burstgpt") == result


def test_burstgpt_window_limit_and_other_column_orders():
    text = "Session ID,Elapsed time,Response tokens,Request tokens,Timestamp\r\n" \
           "s1,1.5,10,20,0\r\ns1,2.5,11,21,10.5\r\ns2,3.5,12,22,20\r\ns3,3.5,13,23,30"
    result = import_burstgpt(text, ImportOptions(start_s=10, end_s=30, ms_per_tick=500))
    assert [(r.arrival, r.prompt, r.output) for r in result.trace] == [(0, 21, 11), (19, 22, 12)]
    limited = import_burstgpt(text, ImportOptions(limit=1))
    assert len(limited.trace) == 1 and limited.report.rows_not_read == 3


def test_rows_out_of_order_are_kept_and_sorted():
    text = "Timestamp,Request tokens,Response tokens\n10,1,1\n4.5,2,2\n12,3,3\n"
    result = import_burstgpt(text)
    assert [(r.name, r.arrival) for r in result.trace] == [
        ("burstgpt-000002", 0), ("burstgpt-000001", 5), ("burstgpt-000003", 7)]
    assert result.trace.reordered
    # An explicit window counts from the first row, so the earlier row falls outside it.
    assert len(import_burstgpt(text, ImportOptions(start_s=0)).trace) == 2


def test_native_import_uses_the_project_reader():
    csv_text = "name,arrival,prompt,output\nA,0,4,5\nB,0,2,2\nC,3,3,4\n"
    result = import_trace(csv_text, "native")
    assert [r.name for r in result.trace] == ["A", "B", "C"]
    assert result.report.rows_kept == 3 and not result.report.dropped
    json_text = '{"requests": [{"name": "A", "arrival": 0, "prompt": 4, "output": 5}]}'
    assert detect_format(json_text) == "native" and len(import_trace(json_text).trace) == 1


@pytest.mark.parametrize("rows", [2, 3])
def test_a_native_trace_past_max_rows_is_refused_before_its_rows_are_checked(rows):
    """max_rows: a native trace of more rows is one problem (how many rows, the most), however bad its rows;
    at the most, its rows are checked as ever. The other options still do not apply to it."""
    cells = [(f"r{k}", 0, -1, 1) for k in range(rows)]
    texts = ("name,arrival,prompt,output\n" + "".join(f"{n},{a},{p},{o}\n" for n, a, p, o in cells),
             json.dumps([dict(zip(("name", "arrival", "prompt", "output"), c)) for c in cells]))
    for text in texts:
        with pytest.raises(TraceError) as error:
            import_trace(text, "native", ImportOptions(ms_per_tick=7, limit=1, max_rows=2))
        problems = error.value.problems
        if rows > 2:
            assert [(p.code, p.params) for p in problems] == [("too_many_rows", {"rows": 3, "max": 2})]
        else:
            assert [p.code for p in problems] == ["below_min"] * 2


@pytest.mark.parametrize("kwargs, field", [
    ({"ms_per_tick": 0}, "ms_per_tick"), ({"ms_per_tick": float("nan")}, "ms_per_tick"),
    ({"token_scale": -1}, "token_scale"), ({"start_s": -1}, "start_s"),
    ({"end_s": float("inf")}, "end_s"), ({"start_s": 5, "end_s": 5}, "start_s"),
    ({"limit": 0}, "limit"), ({"limit": 2.0}, "limit"), ({"limit": True}, "limit"),
    ({"max_rows": 0}, "max_rows"), ({"max_rows": True}, "max_rows"),
])
def test_bad_options_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        ImportOptions(**kwargs)


def test_unknown_format_is_a_programming_error():
    with pytest.raises(ValueError, match="fmt"):
        import_trace("a,b\n", "parquet")


def codes(error):
    return [p.code for p in error.value.problems]


BINARY = bytes(range(256)).decode("utf-8", errors="replace") * 4


@pytest.mark.parametrize("fmt", FORMATS + ("auto",))
@pytest.mark.parametrize("text", ["", "  \r\n\n", BINARY, "\x00\x01abc", "hello world", "[" * 100_000,
                                  b"\xff\xfe\x00binary", "x," * 100 + "\n" + "y" * 200_000])
def test_malformed_input_raises_trace_error(fmt, text):
    with pytest.raises(TraceError) as error:
        import_trace(text, fmt)
    assert codes(error)[0] in ("unreadable", "missing_column", "no_rows")


def test_missing_columns_and_empty_tables_have_their_own_codes():
    with pytest.raises(TraceError) as error:
        import_azure("TIMESTAMP,ContextTokens\r\n2023-11-16 18:15:46,3")
    assert codes(error) == ["missing_column"] and error.value.problems[0].column == "GeneratedTokens"
    with pytest.raises(TraceError) as error:
        import_burstgpt("Timestamp,Request tokens,Response tokens\n")
    assert codes(error) == ["no_rows"]
    with pytest.raises(TraceError, match="none of its rows is usable") as error:
        import_burstgpt("Timestamp,Request tokens,Response tokens\n1,5,0\n2,5,0\n")
    assert "zero output tokens: 2" in str(error.value)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(FORMATS + ("auto",)), st.text())
def test_random_text_never_escapes_as_anything_but_trace_error(fmt, text):
    try:
        import_trace(text, fmt)
    except TraceError:
        pass


# Cells no importer can use in any column: letters and formula signs never read as a number or a time, and the
# numbers a float reads but a trace cannot hold are not finite. A token count can also be zero, negative,
# fractional or too large.
UNUSABLE_CELL = st.text("abxyzINF =@+", max_size=6) | st.sampled_from(["nan", "-inf", "1e400"])
UNUSABLE_COUNT = UNUSABLE_CELL | st.sampled_from(["0", "-3", "2.5", str(MAX_TOKENS + 1)])
UNUSABLE_JSON = st.none() | st.booleans() | UNUSABLE_CELL | st.lists(st.integers(), max_size=2) \
    | st.sampled_from([math.nan, -math.inf])
UNUSABLE_LENGTH = UNUSABLE_JSON | st.sampled_from([0, -3, 2.5, MAX_TOKENS + 1])


def spoilt(draw) -> bool:
    """About one row in four gets one field the importer cannot use, so files are kept, cut down or refused."""
    return draw(st.integers(0, 3)) == 0


def arrivals_in_seconds(kept: dict) -> dict:
    """{name: (arrival, prompt, output)} from {name: (microseconds, prompt, output)}: with the default options a
    request arrives at the whole seconds after the earliest kept one, with its tokens unscaled."""
    t0 = min((us for us, _, _ in kept.values()), default=0)
    return {name: ((us - t0) // 10**6, prompt, output) for name, (us, prompt, output) in kept.items()}


@st.composite
def real_csv_files(draw):
    """(format, text, rows, what it must keep): Azure or BurstGPT rows, a few with a cell no importer can use."""
    fmt = draw(st.sampled_from(sorted(CSV_COLUMNS)))
    lines, kept = [",".join(CSV_COLUMNS[fmt])], {}
    for row in range(1, draw(st.integers(1, 6)) + 1):
        if fmt == "azure":
            moment = draw(st.datetimes(datetime(2023, 11, 16), datetime(2023, 11, 17)))
            us = (moment - datetime(1970, 1, 1)) // timedelta(microseconds=1)
            time = f"{moment:%Y-%m-%d %H:%M:%S.%f}{draw(st.integers(0, 9))}"  # Azure's 7 digits: the 7th is cut
        else:
            ms = draw(st.integers(0, 10**7))
            us, time = ms * 1000, f"{ms // 1000}.{ms % 1000:03d}"  # seconds from the trace's start
        cells = [time, str(draw(st.integers(1, 10**5))), str(draw(st.integers(1, 10**4)))]
        if spoilt(draw):
            column = draw(st.integers(0, 2))
            cells[column] = draw(UNUSABLE_COUNT if column else UNUSABLE_CELL)
        else:
            kept[f"{fmt}-{row:06d}"] = us, int(cells[1]), int(cells[2])
        lines.append(",".join(cells))
    return fmt, "\n".join(lines), len(lines) - 1, arrivals_in_seconds(kept)


@st.composite
def mooncake_files(draw):
    """(format, text, rows, what it must keep): Mooncake records, a few with a field no importer can use."""
    lines, kept = [], {}
    for row in range(1, draw(st.integers(1, 6)) + 1):
        record = {"timestamp": draw(st.integers(0, 10**7)), "input_length": draw(st.integers(1, 10**5)),
                  "output_length": draw(st.integers(1, 10**4)), "hash_ids": [row]}
        if spoilt(draw):
            key = draw(st.sampled_from(["timestamp", "input_length", "output_length"]))
            record[key] = draw(UNUSABLE_JSON if key == "timestamp" else UNUSABLE_LENGTH)
        else:
            kept[f"mooncake-{row:06d}"] = record["timestamp"] * 1000, record["input_length"], record["output_length"]
        lines.append(json.dumps(record))
    return "mooncake", "\n".join(lines), len(lines), arrivals_in_seconds(kept)


def assert_keeps_the_usable_rows(fmt: str, text: str, rows: int, expected: dict) -> None:
    """The file, detected as `fmt`, gives exactly the requests `expected`, and its report counts every row;
    with no usable row it is refused."""
    if not expected:
        event(f"{fmt}: refused")
        with pytest.raises(TraceError, match="none of its rows is usable"):
            import_trace(text, "auto")
        return
    event(f"{fmt}: accepted")
    result = import_trace(text, "auto")
    assert {r.name: (r.arrival, r.prompt, r.output) for r in result.trace} == expected
    report = result.report
    assert (report.format, report.rows_read, report.rows_kept, report.rows_dropped) \
        == (fmt, rows, len(expected), rows - len(expected))


@settings(max_examples=300, deadline=None)
@given(real_csv_files())
def test_random_rows_under_a_real_header_keep_exactly_the_usable_ones(file):
    assert_keeps_the_usable_rows(*file)


@settings(max_examples=300, deadline=None)
@given(mooncake_files())
def test_random_mooncake_objects_keep_exactly_the_usable_ones(file):
    assert_keeps_the_usable_rows(*file)
