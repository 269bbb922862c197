"""Hostile input (hypothesis): every reader of traces and links returns a valid trace or raises its own error
(TraceError, ScenarioError), never anything else and never a hang; over-limit input gets the clear error; every
CSV the project writes is safe to open in a spreadsheet and the native one reads back exactly."""
import base64
import csv
import io
import json
import math
import signal
import zlib

import pytest
import streamlit
from hypothesis import HealthCheck, assume, currently_in_test_context, event, example, given, settings
from hypothesis import strategies as st

from sim.core.config import Config
from sim.report.export import csv_text
from sim.trace.importers import FORMATS, ImportOptions, import_trace
from sim.trace.trace import (
    COLUMNS,
    MAX_NAME,
    MAX_TEXT,
    MAX_TICK,
    MAX_TOKENS,
    MESSAGES,
    REQUIRED,
    Trace,
    TraceError,
    csv_table,
    read_csv,
    read_json,
    validate,
    write_csv,
    write_json,
)
from ui import trace_sources
from ui.problems import problem_text
from ui.scenario import (
    CODES,
    MAX_JSON_BYTES,
    MAX_LINK_CHARS,
    MAX_REQUESTS_IN_LINK,
    Scenario,
    ScenarioError,
    decode,
    encode,
)
from ui.source_forms import UploadForm

# Each example is small, so seconds mean a hang or a blow-up; the machine may be busy, hence the slack.
FUZZ = settings(max_examples=150, deadline=5000, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def no_hang():
    """A whole test that runs for minutes is hung: fail it instead of waiting forever."""
    def hung(signum, frame):
        raise TimeoutError("the test ran for more than 300 s")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(300)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


# -- hostile values -----------------------------------------------------------------------------------------------

INJECTIONS = ["=cmd|' /C calc'!A0", "+1", "@SUM(1)", "-2+3", '=HYPERLINK("http://x","y")', "\t=1", "\r=1",
              "a\r=1+1", "'", "''=1", "'=1", "=", "-"]
ODD_TEXT = ["", " ", "\u202eevil\u202c", "\u05e9\u05dc\u05d5\u05dd", "a\u200bb", "\u200d", "\ufeff",
            "\U0001f680\U0001f525", "e\u0301", "\ud800", "\udfff", "a\ud83d", "\x00", "\x1b[31m", "中文", "\\", '"',
            '""', ",", "\n", "\r\n", "a\rb", "a\nb", "x" * (MAX_NAME + 1), "x" * 5000]
NUMBER_TEXT = ["0", "-0", "1", "-1", "2.5", "1e3", "1e309", "nan", "inf", "-inf", "9" * 30, "9" * 5000, "1_000",
               "0x10", "\u0661\u0662", "\u00b2", " 7 ", "+5", "5.0", "-10%"]
surrogates = st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3)
hostile_text = st.one_of(st.sampled_from(INJECTIONS + ODD_TEXT + NUMBER_TEXT), st.text(max_size=20), surrogates)
hostile_value = st.one_of(
    hostile_text, st.none(), st.booleans(), st.integers(), st.floats(),
    st.sampled_from([10**30, -(10**30), 2**63, -1, 0, 1, MAX_TICK + 1, MAX_TOKENS + 1, 2.5, math.nan, math.inf,
                     -math.inf, -0.0, 1e300]),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
column_names = st.one_of(st.sampled_from(COLUMNS + ("extra", "Name", " name")), st.text(max_size=6))


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


# -- the contract ------------------------------------------------------------------------------------------------

def assert_valid(trace: Trace) -> None:
    """What every accepted trace satisfies, and every export of it can be written and read back as it is."""
    assert isinstance(trace, Trace) and len(trace) >= 1
    names = [r.name for r in trace]
    assert len(set(names)) == len(names)
    for r in trace:
        assert type(r.name) is str and r.name and r.name == r.name.strip() and len(r.name) <= MAX_NAME
        for value, low, high in ((r.arrival, 0, MAX_TICK), (r.prompt, 1, MAX_TOKENS), (r.output, 1, MAX_TOKENS)):
            assert type(value) is int and low <= value <= high
    arrivals = [r.arrival for r in trace]
    assert arrivals == sorted(arrivals)
    text = write_csv(trace)
    text.encode("utf-8")
    assert read_csv(text).requests == trace.requests
    assert read_json(write_json(trace)).requests == trace.requests


def assert_clear(error: TraceError) -> None:
    """A TraceError names known problems, and a problem table can show every one of them."""
    assert error.problems and str(error)
    for problem in error.problems:
        assert problem.code in MESSAGES
        str(problem).encode("utf-8")
        (problem.name or "").encode("utf-8")


def note(outcome: str) -> None:
    """Count an outcome; --hypothesis-show-statistics shows how often each was tried."""
    if currently_in_test_context():
        event(outcome)


def outcome(read, *args) -> Trace | None:
    """The trace `read` gives (checked), or None after a TraceError (checked); anything else fails the test."""
    try:
        result = read(*args)
    except TraceError as error:
        assert_clear(error)
        note("refused")
        return None
    trace = result if isinstance(result, Trace) else result.trace
    assert_valid(trace)
    note("accepted")
    return trace


def scenario_outcome(text: object) -> Scenario | None:
    try:
        scenario = decode(text)
    except ScenarioError as error:
        assert error.code in CODES
        str(error).encode("utf-8")
        for problem in error.problems:
            (problem.name or "").encode("utf-8")
        return None
    assert_valid(scenario.trace)
    return scenario


# -- (a) validation and the native readers -----------------------------------------------------------------------

@st.composite
def hostile_rows(draw):
    """Mostly valid rows with a few cells replaced, removed or added, so both outcomes are common."""
    rows = []
    for i in range(draw(st.integers(0, 6))):
        row = {"name": f"r{i}", "arrival": draw(st.integers(0, 20)), "prompt": draw(st.integers(1, 9)),
               "output": draw(st.integers(1, 9))}
        for column in draw(st.lists(column_names, max_size=3)):
            row[column] = draw(hostile_value)
        if draw(st.integers(0, 9)) == 0:
            row.pop(draw(st.sampled_from(REQUIRED)), None)
        rows.append(row)
    return rows


@FUZZ
@given(hostile_rows(), st.one_of(st.none(), st.just("keys"), st.lists(column_names, max_size=6)))
@example([{"name": "\ud800", "arrival": 0, "prompt": 1, "output": 1}], None)
@example([{"name": "a\ud800" * 60, "arrival": -1, "prompt": 1, "output": 1}], None)
@example([{"name": "a", "arrival": 0, "prompt": 1, "output": 1, "tenant": "t\udfff"}], None)
@example([{"name": "a\rb", "arrival": 0, "prompt": 1, "output": 1, "text": "x\r=1+1\r\n"}], None)
@example([{"name": "a", "arrival": "9" * 5000, "prompt": 1, "output": 1}], None)
@example([{"name": 10**30, "arrival": 10**30, "prompt": 2.5, "output": math.nan}], None)
def test_validate_returns_a_valid_trace_or_a_trace_error(rows, columns):
    if columns == "keys":
        columns = list(dict.fromkeys(k for r in rows for k in r))
    outcome(validate, rows, columns)


def csv_of(rows: list[list[str]], end: str, quoted: bool) -> str:
    """Rows as CSV with the given line end, quoted properly or joined naively (stray quotes and all)."""
    if not quoted:
        return end.join(",".join(cells) for cells in rows) + end
    out = io.StringIO()
    csv.writer(out, lineterminator=end).writerows(rows)
    return out.getvalue()


NATIVE = "name,arrival,prompt,output"
NATIVE_ALL = ",".join(COLUMNS)
AZURE = "TIMESTAMP,ContextTokens,GeneratedTokens"
BURSTGPT = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"
HEADERS = [NATIVE, NATIVE_ALL, AZURE, BURSTGPT, "Name,Arrival,Prompt,Output", "time,in,out", "", "name",
           '"name","arrival","prompt","output"', "timestamp,contexttokens,generatedtokens", "=1+1,@x,+2,-3"]
TIMES = ["2023-11-16 18:15:46", "2023-11-16T18:15:46.5+08:00", "2023-11-16 18:15:46.6805900", "0001-01-01",
         "9999-12-31T23:59:59.999999-14:00", "2023-02-30", "1700000000"]


def good_row(i: int, header: str) -> list[str]:
    """A row a reader accepts under `header` (when it is a known one)."""
    if header == AZURE:
        return [f"2023-11-16 18:15:{i:02d}", "5", "3"]
    if header == BURSTGPT:
        return [str(i), "ChatGPT", "5", "3", "8", "Conversation log"]
    return [f"r{i}", str(i), "5", "3"]


@st.composite
def csv_texts(draw, header: str | None = None):
    """CSV under a known, wrong or random header; rows mostly valid, with hostile cells, too few or too many."""
    header = header if header is not None else draw(st.sampled_from(HEADERS)
                                                    | st.lists(column_names, max_size=5).map(",".join))
    rows = []
    for i in range(draw(st.integers(0, 6))):
        row, shape = good_row(i, header), draw(st.integers(0, 9))
        if shape == 0:
            row = row[:draw(st.integers(0, len(row) - 1))]
        elif shape == 1:
            row.append(draw(hostile_text))
        elif shape < 4:
            row[draw(st.integers(0, len(row) - 1))] = draw(st.sampled_from(TIMES) | hostile_text)
        rows.append(row)
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = csv_of([header.split(","), *rows], end, draw(st.booleans()))
    return draw(st.sampled_from(["", "\ufeff"])) + text


@FUZZ
@given(csv_texts(NATIVE) | csv_texts(NATIVE_ALL) | csv_texts())
@example("name,arrival,prompt,output\rA,0,1,1\rB,1,1,1\r")
@example("\ufeffname,arrival,prompt,output\r\nA,0,1,1\r\n")
@example(f"name,arrival,prompt,output\nA,{'1' * 5000},1,1\n")
@example(f"name,arrival,prompt,output\nA,0,1,{'x' * 200_000}\n")
@example("name,arrival,prompt,output\n\"A,0,1,1\n")
@example("")
def test_read_csv_returns_a_valid_trace_or_a_trace_error(text):
    outcome(read_csv, text)


@FUZZ
@given(hostile_rows(), st.booleans(), st.sampled_from(["", "\ufeff", " \n"]))
@example([], False, "")
def test_read_json_returns_a_valid_trace_or_a_trace_error(rows, wrapped, prefix):
    text = json.dumps({"requests": rows} if wrapped else rows, ensure_ascii=False, default=str)
    outcome(read_json, prefix + text)


@pytest.mark.parametrize("text", [
    "", "null", "5", '"x"', "{}", '{"requests": 5}', "[1, 2]", "[[]]", "[NaN]", "[Infinity]",
    deep(10_000), '[{"name": ' + deep(10_000) + "}]", '{"requests": [{"name": "a", "arrival": ' + "9" * 5000 + "}]}",
    '[{"name": "a", "arrival": 1e400, "prompt": 1, "output": 1}]', '[{"name": "\\ud800"}]', "\x00", "[" * 100,
])
def test_odd_json_gets_a_trace_error(text):
    assert outcome(read_json, text) is None


# -- (b) the importers, through the entry points the app and the command line call --------------------------------

@st.composite
def options(draw):
    start, end = draw(st.none() | st.floats(0, 1e6)), draw(st.none() | st.floats(0, 1e6))
    assume(start is None or end is None or start < end)
    return ImportOptions(draw(st.floats(1e-3, 3.6e6)), draw(st.floats(1e-4, 1e3)), start, end,
                         draw(st.none() | st.integers(1, 20_000)))


@st.composite
def mooncake_texts(draw):
    lines = []
    for i in range(draw(st.integers(0, 6))):
        record = {"timestamp": i * 10, "input_length": draw(st.integers(1, 50)), "output_length": 3}
        for key in draw(st.lists(st.sampled_from(["timestamp", "input_length", "output_length", "hash_ids"]),
                                 max_size=2)):
            record[key] = draw(hostile_value)
        lines.append(json.dumps(record, default=str) if draw(st.integers(0, 7)) else draw(hostile_text))
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)


@st.composite
def files(draw):
    """(format, text): mostly a file of the format asked for, with hostile parts; else anything at all."""
    fmt = draw(st.sampled_from((*FORMATS, "auto")))
    like = fmt if fmt != "auto" and draw(st.integers(0, 3)) else draw(st.sampled_from((*FORMATS, "other")))
    if like == "mooncake":
        return fmt, draw(mooncake_texts())
    if like == "other":
        return fmt, draw(hostile_text | csv_texts())
    if like == "native" and draw(st.booleans()):
        return fmt, json.dumps(draw(hostile_rows()), default=str)
    return fmt, draw(csv_texts({"native": NATIVE, "azure": AZURE, "burstgpt": BURSTGPT}[like]))


@FUZZ
@given(files(), st.booleans(), options())
@example(("mooncake", '{"timestamp": 0, "input_length": 5, "output_length": 2}\r{"timestamp": 1, "input_length": 5, '
          '"output_length": 2}'), True, ImportOptions())
@example(("native", '[{"name": "\\ud800", "arrival": 0, "prompt": 1, "output": 1}]'), True, ImportOptions())
@example(("native", f"[{{\"name\": \"a\", \"arrival\": {'1' * 5000}, \"prompt\": 1, \"output\": 1}}]"), True,
         ImportOptions())
@example(("auto", f"name,arrival,prompt,output\nA,0,1,{'1' * 5000}\n"), True, ImportOptions())
@example(("auto", "name,arrival,prompt,output\nA,0,1,1"), False, ImportOptions())
@example(("azure", f"{AZURE}\n{'x' * 200_000},1,1\n2023-11-16 18:15:46,3,4\n"), True, ImportOptions())
def test_every_importer_returns_a_valid_trace_or_a_trace_error(file, as_bytes, opts):
    fmt, text = file
    data = text.encode("utf-8", "surrogatepass") if as_bytes else text
    outcome(import_trace, data, fmt, opts)


@FUZZ
@given(st.sampled_from((*FORMATS, "auto")), st.binary(max_size=3000))
@example("auto", b"\xef\xbb\xbf")
@example("native", b"\xff\xfe" + "name,arrival,prompt,output\n".encode("utf-16-le"))
@example("auto", b"PK\x03\x04" + bytes(200))
def test_random_bytes_get_a_trace_error_or_a_valid_trace(fmt, data):
    outcome(import_trace, data, fmt, None)


@pytest.mark.parametrize("fmt", [*FORMATS, "auto"])
@pytest.mark.parametrize("data", [None, 5, 2.5, ["a"], {"a": 1}, b"", "   \r\n\t", "\ufeff", deep(10_000)])
def test_wrong_types_and_empty_files_get_a_trace_error(fmt, data):
    assert outcome(import_trace, data, fmt, None) is None


class Upload:
    """What st.file_uploader hands the callback: a size and the bytes."""

    def __init__(self, data: bytes, size: int | None = None):
        self.data, self.size, self.read = data, len(data) if size is None else size, False

    def getvalue(self) -> bytes:
        self.read = True
        return self.data


def upload(data: bytes, fmt: str = "auto", size: int | None = None, limit: int = 500):
    """Run the upload widget's callback on `data`: (the trace it handed on or None, the error it left, the file)."""
    state = {"lang": "en", "up_file": Upload(data, size)}
    received = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(streamlit, "session_state", state)
        trace_sources._import("up", UploadForm(fmt=fmt, limit=limit), received.append)
    assert len(received) + (trace_sources.ERROR in state) == 1
    if received:
        assert_valid(received[0])
        assert len(received[0]) <= trace_sources.MAX_REQUESTS
    else:
        message, problems = state[trace_sources.ERROR]
        assert message and all(p.code in MESSAGES for p in problems)
    return (received or [None])[0], state.get(trace_sources.ERROR), state["up_file"]


@settings(FUZZ, max_examples=60)
@given(files(), st.integers(1, 20_000))
def test_the_upload_callback_hands_on_a_valid_trace_or_shows_an_error(file, limit):
    fmt, text = file
    trace, _, _ = upload(text.encode("utf-8", "surrogatepass"), fmt, limit=limit)
    note("accepted" if trace else "refused")


def test_upload_limits_get_their_clear_error():
    # Over the size limit: refused before the bytes are even read.
    trace, (message, _), file = upload(b"name,arrival,prompt,output\n", size=trace_sources.MAX_UPLOAD_MB * 2**20 + 1)
    assert trace is None and f"{trace_sources.MAX_UPLOAD_MB} MB" in message and not file.read
    # A native trace ignores the import limit, so the lab's request limit refuses it, before its rows are checked:
    # one problem, however bad they are (a 20 MB file of bad rows took a minute, to list a million problems).
    n = trace_sources.MAX_REQUESTS + 1
    big = ("name,arrival,prompt,output\n" + "".join(f"r{i},{i},-1,1\n" for i in range(n))).encode()
    trace, (message, problems), _ = upload(big, "native")
    assert trace is None and [(p.code, p.params) for p in problems] == [
        ("too_many_rows", {"rows": n, "max": trace_sources.MAX_REQUESTS})]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(streamlit, "session_state", {"lang": "en"})
        assert f"{n:,} requests" in problem_text(problems[0]) and "python -m sim run" in problem_text(problems[0])
    # A real trace stops at the import limit.
    rows = "".join(f"{i},m,3,4,7,ok\n" for i in range(50))
    trace, error, _ = upload(f"{BURSTGPT}\n{rows}".encode(), "burstgpt", limit=10)
    assert error is None and len(trace) == 10


@pytest.mark.parametrize(("row", "code"), [
    ({"arrival": MAX_TICK + 1}, "above_max"), ({"prompt": MAX_TOKENS + 1}, "above_max"),
    ({"output": 10**30}, "above_max"), ({"arrival": -1}, "below_min"), ({"prompt": 0}, "below_min"),
    ({"name": "x" * (MAX_NAME + 1)}, "too_long"), ({"tenant": "t" * (MAX_NAME + 1)}, "too_long"),
    ({"text": "t" * (MAX_TEXT + 1)}, "too_long"), ({"arrival": "9" * 5000}, "not_integer"),
    ({"name": "a\ud800"}, "unreadable"), ({"text": "\udc80"}, "unreadable"),
])
def test_values_over_a_limit_get_their_problem_code(row, code):
    with pytest.raises(TraceError) as error:
        validate([{"name": "a", "arrival": 0, "prompt": 1, "output": 1, **row}])
    assert [p.code for p in error.value.problems] == [code]


def test_a_csv_field_over_the_csv_modules_limit_is_named_by_line():
    with pytest.raises(TraceError, match="not valid CSV at line 3"):
        read_csv(f"name,arrival,prompt,output\nA,0,1,1\nB,0,1,{'x' * 200_000}\n")


# -- (c) share links ---------------------------------------------------------------------------------------------

def link(payload: object) -> str:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode()


def payload(rows: list[list], config: object = None) -> dict:
    config = {"token_budget": 8} if config is None else config
    return {"v": 1, "columns": list(REQUIRED), "rows": rows, "config": config, "policies": ["static", "continuous"]}


@FUZZ
@given(st.lists(st.lists(hostile_value, min_size=4, max_size=4), max_size=5),
       st.dictionaries(st.sampled_from(["token_budget", "max_seqs", "first_token", "kv_blocks", "x"]),
                       hostile_value, max_size=2))
def test_links_with_hostile_values_decode_or_fail_with_scenario_error(rows, config):
    good = [[f"r{i}", i, 1, 1] for i in range(3)]
    scenario_outcome(link(payload(good + rows, config={"token_budget": 8, **config})))  # NaN is packed as NaN


@FUZZ
@given(st.one_of(hostile_text, st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                                       max_size=200), hostile_value))
@example(None)
@example(b"eJwLAQ")
@example("A" * (MAX_LINK_CHARS + 1))
def test_any_text_decodes_or_fails_with_scenario_error(text):
    scenario_outcome(text)


def code_of(text: object) -> str:
    with pytest.raises(ScenarioError) as error:
        decode(text)
    return error.value.code


def test_link_limits_and_bombs_get_their_clear_error():
    assert code_of("A" * (MAX_LINK_CHARS + 1)) == "too_long"
    assert code_of("A" * 10**7) == "too_long"  # refused before any work
    bomb = link(b'{"v":1,"rows":"' + b" " * (MAX_JSON_BYTES * 8) + b'"}')
    assert len(bomb) <= MAX_LINK_CHARS and code_of(bomb) == "not_a_link"
    assert code_of(link(deep(10_000).encode())) == "not_a_link"
    deep_row = json.dumps(payload([["a", 0, 1, 1]])).replace('"a"', deep(10_000))
    assert code_of(link(deep_row.encode())) == "not_a_link"
    assert code_of(link(b'{"v":1,"x":' + b"9" * 5000 + b"}")) == "not_a_link"
    assert code_of(link(b'{"v":NaN}')) == "not_a_link"
    rows = [[f"r{i}", i, 1, 1] for i in range(MAX_REQUESTS_IN_LINK + 1)]
    assert code_of(link(payload(rows))) == "too_long"
    assert code_of(link(payload([["\ud800", 0, 1, 1], ["=1+1", 0, 1, 1]]))) == "bad_trace"
    assert code_of(link(payload([["a", 0, 1, 1]], config={"token_budget": 8, "first_token": "\ud800"}))) \
        == "bad_config"


def test_a_link_round_trips_hostile_but_valid_names():
    names = ["=cmd|' /C calc'!A0", "+1", "@SUM(1)", "-5", "'", "\u202eevil", "a\u200bb", "\U0001f680", "a\rb"]
    scenario = Scenario(validate([{"name": n, "arrival": i, "prompt": 1, "output": 1} for i, n in enumerate(names)]),
                        Config(8))
    assert decode(encode(scenario)).trace == scenario.trace


# -- CSV exports: safe in a spreadsheet, and the native CSV round-trips --------------------------------------------

def cells_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


FORMULA = ("=", "+", "-", "@", "\t", "\r")


def assert_safe(text: str) -> None:
    """No cell starts a formula, except a plain number; every line a spreadsheet sees is a row of the table."""
    for row in cells_of(text):
        for cell in row:
            if cell.startswith(FORMULA):
                float(cell.rstrip("%"))
    if "\r" in text:  # a CR inside a cell is only safe quoted, which CRLF line ends guarantee
        assert text.endswith("\r\n")


def test_a_formula_name_is_written_with_an_apostrophe():
    name = "=cmd|' /C calc'!A0"
    trace = validate([{"name": name, "arrival": 0, "prompt": 1, "output": 1, "tenant": "@evil"},
                      {"name": "-5", "arrival": 1, "prompt": 1, "output": 1, "priority": -3}])
    text = write_csv(trace)
    assert f"'{name}" in text.splitlines()[1] and ",'@evil" in text
    assert cells_of(text)[2][:5] == ["-5", "1", "1", "1", "-3"]  # plain numbers stay numbers
    assert read_csv(text) == trace


def test_metrics_and_sweep_tables_neutralize_text_but_not_numbers():
    rows = [["=1+1", "-10%", -3], ["@x", "+2.5e3", -0.5], ["'a", "ok", 2.4000001]]
    text = csv_text(["policy", "delta", "value"], rows)
    assert cells_of(text)[1:] == [["'=1+1", "-10%", "-3"], ["'@x", "+2.5e3", "-0.5"], ["''a", "ok", "2.4"]]
    assert_safe(text)


names = st.text(min_size=1, max_size=MAX_NAME).map(str.strip).filter(bool)
free_text = st.one_of(st.text(max_size=30), st.sampled_from(INJECTIONS + ODD_TEXT[:9]))


@settings(FUZZ, max_examples=300)
@given(st.lists(st.one_of(names, st.sampled_from(INJECTIONS + NUMBER_TEXT).map(str.strip).filter(bool)),
                min_size=1, max_size=8, unique=True),
       st.lists(st.tuples(free_text, free_text, st.integers(-MAX_TICK, MAX_TICK)), min_size=8, max_size=8),
       st.booleans())
@example(["'", "''", "'=", "a\rb", "=cmd|' /C calc'!A0", "-1", "\U0001f680"], [("\r=1", "x\ry", 5)] * 8, True)
def test_write_csv_then_read_csv_gives_the_same_trace(names, extras, optional):
    rows = [{"name": n, "arrival": i, "prompt": 1, "output": 1} for i, n in enumerate(names)]
    if optional:
        for row, (tenant, text, priority) in zip(rows, extras):
            row.update(tenant=tenant.strip()[:MAX_NAME], text=text, priority=priority)
    trace = outcome(validate, rows)
    assume(trace is not None)  # a name that holds a surrogate, say
    text = write_csv(trace)
    assert_safe(text)
    assert read_csv(text) == trace


@FUZZ
@given(st.lists(st.lists(st.one_of(hostile_text, st.integers(), st.floats(allow_nan=False)), min_size=3, max_size=3),
                max_size=5))
def test_every_csv_table_is_safe(rows):
    text = csv_table(["a", "b", "c"], rows)
    assert_safe(text)
    assert len(cells_of(text)) == len(rows) + 1


@pytest.mark.parametrize("lang, said", [("en", "1,001 problems in all: the first 1,000"), ("zh", "共 1,001 个问题")])
def test_a_long_list_of_problems_shows_its_first_thousand_and_says_how_many(lang, said):
    """show_problems: a table of 1,000 rows at most (a 20,000-row trace can have 100,000 problems), and a line
    saying how many there are; all of them when there are no more."""
    from streamlit.testing.v1 import AppTest

    def page(count: int, lang: str):
        import streamlit as st

        from sim.trace.trace import Problem
        from ui.problems import show_problems
        st.session_state["lang"] = lang
        show_problems(tuple(Problem("below_min", k, f"r{k}", "prompt", {"min": 1, "value": -1})
                            for k in range(1, count + 1)), "problems")

    for count, listed in ((1_001, 1_000), (1_000, 1_000)):
        at = AppTest.from_function(page, args=(count, lang)).run()
        assert not at.exception, at.exception
        assert len(at.dataframe[0].value) == listed
        captions = [c.value for c in at.caption]
        assert len(captions) == (count > listed) and all(said in c for c in captions)


@pytest.mark.parametrize("lang, said", [("en", "the trace has 20,001 requests, more than the 20,000"),
                                        ("zh", "trace 有 20,001 个请求，超过交互运行的上限 20,000")])
def test_a_problem_of_the_whole_file_is_a_sentence_not_a_table_row(lang, said):
    """A problem with no row, request or column (a file too large, or not a trace) is said in a sentence: as a
    table's one cell it was cut off at 1024 px, beside three empty columns (seen in Chromium)."""
    from streamlit.testing.v1 import AppTest

    def page(lang: str):
        import streamlit as st

        from sim.trace.trace import Problem
        from ui.problems import show_problems
        st.session_state["lang"] = lang
        show_problems((Problem("too_many_rows", params={"rows": 20_001, "max": 20_000}),
                       Problem("empty", 3, None, "name")), "problems")

    at = AppTest.from_function(page, args=(lang,)).run()
    assert not at.exception, at.exception
    assert [said in m.value.replace("\\", "") for m in at.markdown] == [True]  # (as it reads: escapes left out)
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 1  # (the empty name's row)
