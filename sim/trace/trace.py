"""Request traces: the Request record, validation with row-level problems, native CSV and JSON."""
from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from .chat import BYTES, Message, MessagesError, apply_template, conversation, count, parse_messages

REQUIRED = ("name", "arrival", "prompt", "output")
# Optional columns later features read; absent ones take the Request defaults.
OPTIONAL = ("priority", "deadline", "tenant", "cancel_at", "text", "read_rate", "disconnect_at", "system", "messages",
            "hash_ids")
COLUMNS = REQUIRED + OPTIONAL

# The design document's worked example: (arrival, prompt tokens, output tokens), with SEED_BUDGET.
SEED_CSV = "name,arrival,prompt,output\nA,0,4,5\nB,0,2,2\nC,3,3,4\n"
SEED_BUDGET = 8

MAX_TICK = 10**9
MAX_TOKENS = 10**7
MAX_NAME = 100
MAX_TEXT = 100_000
TEXT_COLUMNS = ("name", "tenant", "text", "system", "messages", "hash_ids")
# A prompt given as words: a user message (text), a system message, or a conversation (messages, JSON).
PROMPT_TEXT = ("text", "system", "messages")

# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection); OWASP's advice is a
# leading apostrophe. A cell that starts with an apostrophe gets one more, so a reader drops exactly one.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_QUOTED = (*FORMULA_START, "'")
# A plain number ("-3", "+2.5e3", "-10%") is read as a number, never as a formula: it is left alone.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?%?")
# A lone surrogate (legal as a JSON escape) cannot be written as UTF-8: every later export would fail.
_SURROGATE = re.compile("[\ud800-\udfff]")
_INVALID = "holds an invalid character"

# English text of each problem code; the UI translates the same codes.
MESSAGES = {
    "empty": "is empty",
    "no_prompt": "is empty, and so is the text that could stand in for it",
    "not_integer": "must be a whole number, got {value}",
    "not_rate": "must be a number of tokens a time unit above 0, got {value}",
    "bad_hash_ids": "must be whole numbers >= 0 (prefix-block hashes, as Mooncake's hash_ids), got {value}",
    "below_min": "must be at least {min}, got {value}",
    "above_max": "must be at most {max}, got {value}",
    "too_long": "is longer than {max} characters",
    "duplicate": "repeats the name of row {other}",
    "missing_column": "the column is missing",
    "before_arrival": "must not be before the arrival tick {arrival}",
    "no_rows": "the trace has no requests",
    "too_many_rows": "the trace has {rows:,} requests, more than the {max:,} read here",
    "unreadable": "cannot be read: {detail}",
    "over_budget": "prompt of {prompt} tokens is larger than the token budget {budget}: "
                   "it could never be admitted without chunked prefill",
    "over_context": "prompt and output need {tokens} positions; the model has {context}",
    "msg_not_json": "is not JSON: {detail}",
    "msg_not_list": 'must be a JSON list of messages, each {{"role": ..., "content": ...}}',
    "msg_bad_item": 'message {index} is not an object with a "role" and a "content"',
    "msg_bad_role": "message {index} has the role {role}; a role is system, user or assistant",
    "msg_empty": "message {index} has no text as its content",
    "msg_and_text": "holds a conversation, and the row also has a text or a system message: give one or the other",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input, located by data row (1-based), request name and column."""
    code: str
    row: int | None = None
    name: str | None = None
    column: str | None = None
    params: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self):
        if self.name and _SURROGATE.search(self.name):  # a problem table shows the name: keep it writable
            object.__setattr__(self, "name", _SURROGATE.sub("\ufffd", self.name))

    @property
    def message(self) -> str:
        return MESSAGES[self.code].format(**self.params)

    def __str__(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.name:
            where.append(f"request {self.name!r}")
        if self.column:
            where.append(f"column {self.column!r}")
        return (", ".join(where) + ": " if where else "") + self.message


class TraceError(ValueError):
    """Raised with every problem found, so a form can mark all bad rows at once."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = tuple(problems)
        super().__init__(str(self))

    def __str__(self) -> str:
        more = len(self.problems) - 1
        return str(self.problems[0]) + (f" (and {more} more problem{'s' * (more > 1)})" if more else "")


class Request(NamedTuple):
    """One request of a trace (a named tuple: a 100,000-request trace is built in a blink)."""
    name: str
    arrival: int
    prompt: int
    output: int
    priority: int = 0
    deadline: int | None = None
    tenant: str = ""
    cancel_at: int | None = None
    text: str | None = None
    read_rate: float | None = None  # tokens its client reads a time unit (None: as fast as they come)
    disconnect_at: int | None = None  # when its client goes away
    system: str | None = None  # a system message that goes with `text`
    messages: str | None = None  # a conversation: a JSON list of {"role", "content"} (checked, compact)
    hash_ids: tuple[int, ...] | None = None  # prefix-block hashes of its prompt (sim.core.prefix), as Mooncake's


@dataclass(frozen=True, slots=True)
class Trace:
    """Requests sorted by arrival (stable); `reordered` says the input was not."""
    requests: tuple[Request, ...]
    reordered: bool = False
    ignored_columns: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.requests)

    def __iter__(self):
        return iter(self.requests)

    def rows(self) -> list[dict]:
        """Plain dicts with the required columns and every optional column any request uses."""
        used = [c for c in OPTIONAL if any(getattr(r, c) != _DEFAULTS[c] for r in self.requests)]
        return [{c: getattr(r, c) for c in REQUIRED + tuple(used)} for r in self.requests]


_DEFAULTS = Request._field_defaults


def csv_cell(value: object) -> object:
    """A cell for a CSV file, safe to open in a spreadsheet: text a spreadsheet would run as a formula, or
    that starts with an apostrophe, gets a leading apostrophe; numbers and other text are unchanged."""
    if isinstance(value, str) and value.startswith(_QUOTED) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def _unquote(cell: str) -> str:
    """A text cell of a native CSV as it was before `csv_cell` (its spaces kept: a prompt's are part of it)."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(_QUOTED) else cell


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _integer(value: object) -> int | str:
    """The integer a cell holds, or the problem code saying why it holds none."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return "empty"
    if isinstance(value, bool):
        return "not_integer"
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return "not_integer"
    if math.isnan(number) and not isinstance(value, str):
        return "empty"  # an empty cell of a numeric table column
    if not math.isfinite(number) or not number.is_integer():
        return "not_integer"
    return int(number)


def _text(value: object) -> str:
    """A cell that names something (a name, a tenant): its surrounding spaces are not part of it."""
    return _words(value).strip()


def _words(value: object) -> str:
    """A cell of words a model reads (a prompt's text, a system message): kept byte for byte, its leading
    indentation and trailing newline included ("" when empty)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value if isinstance(value, str) else str(value)


def validate(rows: Iterable[Mapping[str, object]], columns: Iterable[str] | None = None) -> Trace:
    """Check every row; return the trace sorted by arrival or raise TraceError listing all problems.

    `columns` is the header when the input had one, so a missing column is reported once."""
    rows = list(rows)
    header = _checked_header(rows, columns)
    problems: list[Problem] = []
    ignored = tuple(c for c in header if c not in COLUMNS)
    requests, first_row = [], {}
    for number, row in enumerate(rows, start=1):
        request = _row_request(problems, row, number, header, first_row)
        if request is not None:
            requests.append(request)
    if problems:
        raise TraceError(problems)
    return _sorted(requests, ignored)


def _checked_header(rows: list[Mapping[str, object]], columns: Iterable[str] | None) -> list[str]:
    """The trace's columns, or a TraceError when a required column is missing or there are no rows."""
    if columns is None and not rows:
        raise TraceError([Problem("no_rows")])
    header = list(columns) if columns is not None else sorted({k for r in rows for k in r})
    # A `text` column stands in for `prompt`: a row with text and no prompt counts its UTF-8 bytes (the real
    # model's tokenizer is byte-level).
    missing = [c for c in REQUIRED if c not in header and not (c == "prompt" and set(PROMPT_TEXT) & set(header))]
    if missing:
        raise TraceError([Problem("missing_column", column=c) for c in missing])
    if not rows:
        raise TraceError([Problem("no_rows")])
    return header


def _row_request(problems: list[Problem], row: Mapping[str, object], number: int, header: list[str],
                 first_row: dict[str, int]) -> Request | None:
    """The Request of one data row, or None after recording each of its problems."""
    name = _text(row.get("name"))
    bad = len(problems)
    _check_name(problems, number, name, first_row)
    cell = (problems, row, number, name)
    arrival = _bounded(*cell, "arrival", 0, MAX_TICK)
    text = _words(row.get("text")) or None
    system, messages, said = _conversation_cells(cell, text)
    prompt = _prompt(cell, header, said)
    output = _bounded(*cell, "output", 1, MAX_TOKENS)
    priority = deadline = cancel_at = tenant = read_rate = disconnect_at = None
    if any(c in row for c in OPTIONAL):
        priority, deadline, cancel_at, tenant = _optional_cells(cell, arrival, text)
        read_rate, disconnect_at = _client_cells(cell, arrival)
    hash_ids = _hash_ids(cell) if "hash_ids" in row else None
    if len(problems) == bad:
        return Request(name, arrival, prompt, output, priority or 0, deadline, tenant or "", cancel_at, text,
                       read_rate, disconnect_at, system, messages, hash_ids)
    return None


MAX_HASH_IDS = 100_000


def _hash_ids(cell: tuple) -> tuple[int, ...] | None:
    """A row's prefix-block hashes: a list (JSON), or whole numbers separated by spaces or commas (CSV)."""
    problems, row, number, name = cell
    raw = row.get("hash_ids")
    if raw is None or (isinstance(raw, str) and not raw.strip()) or (isinstance(raw, float) and math.isnan(raw)):
        return None
    items = raw.strip().strip("[]").replace(",", " ").split() if isinstance(raw, str) else raw
    try:
        ids = tuple(int(item) for item in items) if isinstance(items, list | tuple) else None
    except (TypeError, ValueError, OverflowError):
        ids = None
    if ids is None or any(isinstance(item, bool | float) for item in items) or any(i < 0 for i in ids) \
            or len(ids) > MAX_HASH_IDS:
        problems.append(Problem("bad_hash_ids", number, name, "hash_ids", {"value": _short(raw)}))
        return None
    return ids or None


def _client_cells(cell: tuple, arrival: int | None) -> tuple[float | None, int | None]:
    """The streaming client of a row: the tokens it reads a time unit (a number > 0) and when it goes away."""
    problems, row, number, name = cell
    disconnect_at = _bounded(*cell, "disconnect_at", 0, MAX_TICK, optional=True)
    if disconnect_at is not None and arrival is not None and disconnect_at < arrival:
        problems.append(Problem("before_arrival", number, name, "disconnect_at", {"arrival": arrival}))
    raw = row.get("read_rate")
    if raw is None or (isinstance(raw, str) and not raw.strip()) or (isinstance(raw, float) and math.isnan(raw)):
        return None, disconnect_at
    try:
        rate = None if isinstance(raw, bool) else float(raw)
    except (TypeError, ValueError, OverflowError):
        rate = None
    if rate is None or not math.isfinite(rate) or rate <= 0:
        problems.append(Problem("not_rate", number, name, "read_rate", {"value": _short(raw)}))
        return None, disconnect_at
    return rate, disconnect_at


def _check_name(problems: list[Problem], number: int, name: str, first_row: dict[str, int]) -> None:
    """Record a name that is empty, unreadable, too long or repeated; remember the row of a new one."""
    if not name:
        problems.append(Problem("empty", number, None, "name"))
    elif _SURROGATE.search(name):
        problems.append(Problem("unreadable", number, name, "name", {"detail": _INVALID}))
    elif len(name) > MAX_NAME:
        problems.append(Problem("too_long", number, name[:MAX_NAME], "name", {"max": MAX_NAME}))
    elif name in first_row:
        problems.append(Problem("duplicate", number, name, "name", {"other": first_row[name]}))
    else:
        first_row[name] = number


def _prompt(cell: tuple, header: list[str], said: tuple[Message, ...] | None) -> int | None:
    """The prompt's token count: its cell, else the UTF-8 bytes of what the row says in words (its text, system
    message or messages, joined as they are: no chat template). `said` is None when its messages are wrong."""
    problems, row, number, name = cell
    if _integer(row.get("prompt")) != "empty" or not set(PROMPT_TEXT) & set(header):
        return _bounded(*cell, "prompt", 1, MAX_TOKENS)
    if said is None:
        return None
    if not said:
        problems.append(Problem("no_prompt", number, name, "prompt"))
        return None
    return count(BYTES, apply_template("none", said))


def _conversation_cells(cell: tuple, text: str | None) -> tuple[str | None, str | None, tuple | None]:
    """A row's system message, its messages (as compact JSON) and all it says (None when that cannot be read):
    a conversation is given either as messages or as a text with a system message, never both. Each problem is
    recorded."""
    problems, row, number, name = cell
    system = _words(row.get("system")) or None
    raw = row.get("messages")
    messages, parsed, bad = None, None, len(problems)
    if isinstance(raw, list | tuple) or _text(raw):
        try:
            parsed = parse_messages(raw.strip() if isinstance(raw, str) else raw)
        except MessagesError as error:
            problems.append(Problem(error.code, number, name, "messages", error.params))
            return system, None, None
        if text or system:
            problems.append(Problem("msg_and_text", number, name, "messages"))
        messages = json.dumps([m._asdict() for m in parsed], ensure_ascii=False, separators=(",", ":"))
    for column, value in (("system", system or ""), ("messages", messages or "")):
        if len(value) > MAX_TEXT:
            problems.append(Problem("too_long", number, name, column, {"max": MAX_TEXT}))
        elif _SURROGATE.search(value):
            problems.append(Problem("unreadable", number, name, column, {"detail": _INVALID}))
    return system, messages, conversation(text, system, parsed) if len(problems) == bad else None


def _optional_cells(cell: tuple, arrival: int | None, text: str | None) -> tuple:
    """Priority, deadline, cancel_at and tenant of a row, recording times before arrival and bad text."""
    problems, row, number, name = cell
    priority = _bounded(*cell, "priority", -MAX_TICK, MAX_TICK, optional=True)
    deadline = _bounded(*cell, "deadline", 0, MAX_TICK, optional=True)
    cancel_at = _bounded(*cell, "cancel_at", 0, MAX_TICK, optional=True)
    for column, value in (("deadline", deadline), ("cancel_at", cancel_at)):
        if value is not None and arrival is not None and value < arrival:
            problems.append(Problem("before_arrival", number, name, column, {"arrival": arrival}))
    tenant = _text(row.get("tenant"))
    for column, value, limit in (("tenant", tenant, MAX_NAME), ("text", text or "", MAX_TEXT)):
        if len(value) > limit:
            problems.append(Problem("too_long", number, name, column, {"max": limit}))
        elif _SURROGATE.search(value):
            problems.append(Problem("unreadable", number, name, column, {"detail": _INVALID}))
    return priority, deadline, cancel_at, tenant


def _sorted(requests: list[Request], ignored: tuple[str, ...] = ()) -> Trace:
    reordered = any(a.arrival > b.arrival for a, b in zip(requests, requests[1:]))
    ordered = sorted(requests, key=lambda r: r.arrival) if reordered else requests
    return Trace(tuple(ordered), reordered=reordered, ignored_columns=ignored)


def _plain(header: list[str], rows: list[list[str]]) -> Trace | None:
    """The common case, column at a time: only the required columns and every cell valid. Anything else
    returns None, and `validate` then finds each problem row by row."""
    if header != list(REQUIRED) or not rows or any(len(r) != 4 for r in rows):
        return None
    names = [r[0].strip() for r in rows]
    try:
        arrivals, prompts, outputs = ([int(r[i]) for r in rows] for i in (1, 2, 3))
    except ValueError:
        return None
    if (not all(names) or max(map(len, names)) > MAX_NAME or len(set(names)) < len(names)
            or _SURROGATE.search("".join(names))
            or min(arrivals) < 0 or max(arrivals) > MAX_TICK
            or min(prompts) < 1 or min(outputs) < 1 or max(max(prompts), max(outputs)) > MAX_TOKENS):
        return None
    return _sorted(list(map(Request, names, arrivals, prompts, outputs)))


def _bounded(problems, row, number, name, column, low, high, optional=False) -> int | None:
    """The integer in `row[column]` if it lies in [low, high]; otherwise record why and return None."""
    raw = row.get(column)
    # The common case first; int() refuses thousands of digits, so long ones go the slow way.
    fast = type(raw) is str and len(raw) < 20 and raw.isascii() and raw.isdigit()
    value = int(raw) if fast else _integer(raw)
    if type(value) is int and low <= value <= high:
        return value
    if value == "empty" and optional:
        return None
    if isinstance(value, str):
        problems.append(Problem(value, number, name, column, {"value": _short(raw)}))
    elif value < low:
        problems.append(Problem("below_min", number, name, column, {"min": low, "value": value}))
    else:
        problems.append(Problem("above_max", number, name, column, {"max": high, "value": value}))
    return None


def check_budget(trace: Trace, token_budget: int) -> None:
    """A prompt above the per-tick token budget can never be admitted without chunked prefill."""
    problems = [Problem("over_budget", None if trace.reordered else i, r.name, "prompt",
                        {"prompt": r.prompt, "budget": token_budget})
                for i, r in enumerate(trace.requests, start=1) if r.prompt > token_budget]
    if problems:
        raise TraceError(problems)


def read_csv(text: str, max_rows: int | None = None) -> Trace:
    """A native CSV (any line endings, an optional byte-order mark); cells quoted by `write_csv` unquoted. With
    more than `max_rows` rows it is refused before any row is checked (`too_many`)."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    try:
        header = [h.strip() for h in next(reader, [])]
        rows = [cells for cells in reader if cells]
    except csv.Error as error:  # a field over the csv module's limit, a stray quote in strict mode
        detail = f"not valid CSV at line {reader.line_num} ({error})"
        raise TraceError([Problem("unreadable", params={"detail": detail})]) from None
    too_many(rows, max_rows)
    if "'" in text:
        quoted = [i for i, column in enumerate(header) if column in TEXT_COLUMNS]
        for cells in rows:
            for i in quoted:
                if i < len(cells):
                    cells[i] = _unquote(cells[i])
    trace = _plain(header, rows)
    return validate([dict(zip(header, cells)) for cells in rows], header) if trace is None else trace


def read_json(text: str, max_rows: int | None = None) -> Trace:
    """A native JSON trace: a list of request objects, or {"requests": [...]}; refused past `max_rows` requests
    before any is checked."""
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except (json.JSONDecodeError, RecursionError) as error:
        raise TraceError([Problem("unreadable", params={"detail": f"not valid JSON ({error})"})]) from None
    except ValueError:  # int() refuses a number of thousands of digits
        raise TraceError([Problem("unreadable", params={"detail": "a number has thousands of digits"})]) from None
    if isinstance(data, dict):
        data = data.get("requests")
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        detail = 'expected a list of request objects or {"requests": [...]}'
        raise TraceError([Problem("unreadable", params={"detail": detail})])
    too_many(data, max_rows)
    return validate(data)


def too_many(rows: list, max_rows: int | None) -> None:
    """A trace with more rows than `max_rows` (None: any number) is refused at once: checking every row of a
    huge file (a 20 MB upload holds over a million) would take the server a minute, to list a million problems."""
    if max_rows is not None and len(rows) > max_rows:
        raise TraceError([Problem("too_many_rows", params={"rows": len(rows), "max": max_rows})])


def csv_table(header: list[str], rows: Iterable[Iterable[object]]) -> str:
    """CSV text, every cell through `csv_cell`, lines ending in LF. The csv module quotes only the line end's
    characters (before Python 3.13), and a spreadsheet starts a new row at an unquoted CR, where a formula
    could hide: a table with a CR in a cell ends its lines in CRLF, which quotes it."""
    rows = [[csv_cell(cell) for cell in row] for row in rows]
    crlf = any(isinstance(cell, str) and "\r" in cell for row in rows for cell in row)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n" if crlf else "\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def write_csv(trace: Trace) -> str:
    """The trace as native CSV; `read_csv` gives it back exactly, and a spreadsheet runs none of its text (hash
    ids are written as whole numbers separated by spaces)."""
    rows = trace.rows()
    return csv_table(list(rows[0]), [[" ".join(map(str, v)) if isinstance(v, tuple) else v for v in row.values()]
                                     for row in rows])


def write_json(trace: Trace) -> str:
    """The trace as native JSON; a conversation is a list of messages there, not the JSON text a CSV cell holds."""
    rows = [row | {"messages": json.loads(row["messages"])} if row.get("messages") else row for row in trace.rows()]
    return json.dumps({"requests": rows}, indent=1, ensure_ascii=False) + "\n"
