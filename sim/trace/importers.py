"""Importers for public production traces (Azure LLM inference, Mooncake, BurstGPT) into a Trace."""
from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sim.trace.trace import (
    MAX_HASH_IDS,
    MAX_TICK,
    MAX_TOKENS,
    REQUIRED,
    Problem,
    Trace,
    TraceError,
    read_csv,
    read_json,
    validate,
)

FORMATS = ("native", "azure", "mooncake", "burstgpt")
TITLES = {"native": "native", "azure": "Azure LLM inference", "mooncake": "Mooncake", "burstgpt": "BurstGPT"}
# The columns each CSV format must have: arrival time, prompt tokens, output tokens.
CSV_COLUMNS = {"azure": ("TIMESTAMP", "ContextTokens", "GeneratedTokens"),
               "burstgpt": ("Timestamp", "Request tokens", "Response tokens")}
EXAMPLES = 5
OUTSIDE = "outside time window"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_LINE_END = re.compile("\r\n|\r|\n")

# A parsed row: (time in the format's own unit, raw prompt tokens, raw output tokens), or why it is unusable.
# (time, prompt, output) or (time, prompt, output, other columns kept), else why the record is dropped
Parsed = tuple[float, object, object] | tuple[float, object, object, dict] | str


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'s' * (number != 1)}"


def _unreadable(detail: str) -> TraceError:
    return TraceError([Problem("unreadable", params={"detail": detail})])


def _finite(value: object) -> bool:
    """A real number a float can hold (JSON integers can be far larger)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


@dataclass(frozen=True, slots=True)
class ImportOptions:
    """How to turn a real trace into ticks: the window [start_s, end_s) is in seconds after the first row."""
    ms_per_tick: float = 1000.0
    token_scale: float = 1.0
    start_s: float | None = None
    end_s: float | None = None
    limit: int | None = None  # keep at most this many requests, then stop reading
    max_rows: int | None = None  # a native trace (read whole, nothing dropped) with more rows is refused

    def __post_init__(self):
        for name in ("ms_per_tick", "token_scale"):
            value = getattr(self, name)
            if not _finite(value) or value <= 0:
                raise ValueError(f"{name} must be a finite number above 0, got {value!r}")
        for name in ("start_s", "end_s"):
            value = getattr(self, name)
            if value is not None and (not _finite(value) or value < 0):
                raise ValueError(f"{name} must be a finite number of seconds, at least 0, got {value!r}")
        if self.start_s is not None and self.end_s is not None and self.start_s >= self.end_s:
            raise ValueError(f"start_s ({self.start_s}) must be before end_s ({self.end_s})")
        for name in ("limit", "max_rows"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"{name} must be a whole number of requests, at least 1, got {value!r}")


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import read, kept and dropped, and why."""
    format: str
    rows_read: int = 0
    rows_kept: int = 0
    dropped: Counter = field(default_factory=Counter)  # reason -> rows dropped for it
    examples: tuple[tuple[int, str], ...] = ()  # the first few (data row, reason)
    rows_not_read: int = 0  # rows after `limit` requests were kept

    @property
    def rows_dropped(self) -> int:
        return sum(self.dropped.values())

    def __str__(self) -> str:
        text = f"Read {_count(self.rows_read, 'row')} in {TITLES[self.format]} format and kept {self.rows_kept:,}."
        if self.dropped:
            reasons = "; ".join(f"{reason}: {count:,}" for reason, count in self.dropped.most_common())
            first = ", ".join(f"row {row} ({reason})" for row, reason in self.examples)
            text += f" Dropped {self.rows_dropped:,} ({reasons}), for example {first}."
        if self.rows_not_read:
            text += (f" Stopped at the limit of {_count(self.rows_kept, 'request')};"
                     f" {_count(self.rows_not_read, 'more row')} not read.")
        return text


@dataclass(frozen=True, slots=True)
class ImportResult:
    trace: Trace
    report: ImportReport


def _text(text: str | bytes) -> str:
    """The input as text without a byte-order mark, or a TraceError if it is empty or binary."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise _unreadable("it is not UTF-8 text") from None
    if not isinstance(text, str):
        raise _unreadable(f"expected text, got {type(text).__name__}")
    # An upload decoded with errors="replace" is full of U+FFFD; a binary file has NUL bytes.
    if "\x00" in text or text[:4096].count("\ufffd") > 8:
        raise _unreadable("it looks like a binary file, not text")
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise _unreadable("it is empty")
    return text


def _tokens(raw: object, what: str, scale: float) -> int | str:
    """A token count scaled by `scale` (at least 1), or the reason the cell holds none."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return f"missing {what} tokens"
    value = raw
    if isinstance(raw, str):
        try:
            value = int(raw)
        except ValueError:
            try:
                value = float(raw)
            except ValueError:
                return f"non-integer {what} tokens"
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or (isinstance(value, float) and not (math.isfinite(value) and value.is_integer())):
        return f"non-integer {what} tokens"
    if value < 0:
        return f"negative {what} tokens"
    if value == 0:
        return f"zero {what} tokens"
    try:
        scaled = max(1, round(value * scale))
    except OverflowError:
        scaled = math.inf
    return f"more than {MAX_TOKENS:,} {what} tokens" if scaled > MAX_TOKENS else scaled


def _round(amount: float, factor: float) -> float:
    """amount * factor to 9 decimals, so a time that is a whole number of ticks or seconds in decimal
    is not floored to the one before by binary rounding (0.3 ms / 0.1 ms is 2.9999999999999996)."""
    return round(amount * factor, 9)


# A kept row: (data row, time in the format's own unit, prompt tokens, output tokens).
_Kept = tuple[int, float, int, int, dict]


def _convert(fmt: str, records: Iterable[tuple[int, object]], parse: Callable[[object], Parsed],
             unit_ms: float, options: ImportOptions | None) -> ImportResult:
    """The shared import loop: parse each record, apply the window, limit and scaling, then validate."""
    options = options or ImportOptions()
    dropped: Counter = Counter()
    examples: list[tuple[int, str]] = []

    def drop(row: int, reason: str) -> None:
        dropped[reason] += 1
        if len(examples) < EXAMPLES:
            examples.append((row, reason))

    kept, read, not_read, last = _keep(records, parse, unit_ms, options, drop)
    rows = _arrival_rows(fmt, kept, last, unit_ms, options, drop)
    report = ImportReport(fmt, read, len(rows), dropped, tuple(sorted(examples)[:EXAMPLES]), not_read)
    if not rows:
        if not read:
            raise TraceError([Problem("no_rows")])
        raise _unreadable(f"none of its rows is usable. {report}")
    return ImportResult(validate(rows, REQUIRED), report)


def _keep(records: Iterable[tuple[int, object]], parse: Callable[[object], Parsed], unit_ms: float,
          options: ImportOptions, drop: Callable[[int, str], None]) -> tuple[list[_Kept], int, int, int]:
    """The usable records inside the window and under the limit, with rows read, rows not read and the last row."""
    # Without a start, rows out of order before the first one are kept (validate sorts them).
    start = -math.inf if options.start_s is None else options.start_s
    end = math.inf if options.end_s is None else options.end_s
    kept: list[_Kept] = []
    origin, read, not_read, last = None, 0, 0, 0
    for row, record in records:
        last = row
        if options.limit is not None and len(kept) >= options.limit:
            not_read += 1
            continue
        read += 1
        parsed = parse(record)
        if isinstance(parsed, str):
            drop(row, parsed)
            continue
        time, raw_prompt, raw_output, *extra = parsed
        origin = time if origin is None else origin
        if not start <= _round(time - origin, unit_ms / 1000) < end:
            drop(row, OUTSIDE)
            continue
        prompt = _tokens(raw_prompt, "prompt", options.token_scale)
        output = _tokens(raw_output, "output", options.token_scale)
        if isinstance(prompt, str) or isinstance(output, str):
            drop(row, prompt if isinstance(prompt, str) else output)
            continue
        kept.append((row, time, prompt, output, extra[0] if extra and options.token_scale == 1 else {}))
    return kept, read, not_read, last


def _arrival_rows(fmt: str, kept: list[_Kept], last: int, unit_ms: float, options: ImportOptions,
                  drop: Callable[[int, str], None]) -> list[dict]:
    """Native rows of the kept records, named by data row, arriving in ticks after the earliest one."""
    # Arrivals count from the earliest kept row, so the first request arrives at tick 0.
    t0 = min((time for _, time, _, _, _ in kept), default=0)
    width = max(6, len(str(last)))
    rows = []
    for row, time, prompt, output, extra in kept:
        tick = _round(time - t0, unit_ms / options.ms_per_tick)
        if tick > MAX_TICK:
            drop(row, f"arrives after tick {MAX_TICK:,}")
            continue
        rows.append({"name": f"{fmt}-{row:0{width}d}", "arrival": math.floor(tick),
                     "prompt": prompt, "output": output} | extra)
    return rows


def _csv_records(text: str) -> Iterator[list[str] | None]:
    """CSV records, None where the csv module gave up on a line (it moves on to the next one)."""
    reader = csv.reader(io.StringIO(text, newline=""))
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error:
            yield None


def _import_csv(fmt: str, text: str | bytes, options: ImportOptions | None,
                parse_time: Callable[[str], float], unit_ms: float) -> ImportResult:
    records = _csv_records(_text(text))
    header = next((r for r in records if r is None or any(cell.strip() for cell in r)), None)
    if header is None:
        raise _unreadable("its header line cannot be read as CSV")
    names = [cell.strip().strip('"').casefold() for cell in header]
    missing = [c for c in CSV_COLUMNS[fmt] if c.casefold() not in names]
    if missing:
        raise TraceError([Problem("missing_column", column=c) for c in missing])
    at_time, at_prompt, at_output = (names.index(c.casefold()) for c in CSV_COLUMNS[fmt])

    def parse(record: list[str] | None) -> Parsed:
        if record is None:
            return "malformed CSV line"
        if not any(cell.strip() for cell in record):
            return "blank line"
        cells = record + [""] * (max(at_time, at_prompt, at_output) + 1 - len(record))
        if not cells[at_time].strip():
            return "missing timestamp"
        try:
            time = parse_time(cells[at_time].strip())
        except (ValueError, OverflowError):
            return "unparseable timestamp"
        return time, cells[at_prompt], cells[at_output]

    return _convert(fmt, enumerate(records, start=1), parse, unit_ms, options)


def _microseconds(text: str) -> int:
    """An ISO datetime as whole microseconds since 1970; naive times are taken as UTC (Azure's are)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _MICROSECOND


def _seconds(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def import_azure(text: str | bytes, options: ImportOptions | None = None) -> ImportResult:
    """Azure LLM inference trace CSV: TIMESTAMP (absolute datetime), ContextTokens, GeneratedTokens."""
    return _import_csv("azure", text, options, _microseconds, unit_ms=0.001)


def import_burstgpt(text: str | bytes, options: ImportOptions | None = None) -> ImportResult:
    """BurstGPT CSV: Timestamp (seconds from the trace start), Request tokens, Response tokens, ...;
    failed requests (0 response tokens) are dropped as "zero output tokens"."""
    return _import_csv("burstgpt", text, options, _seconds, unit_ms=1000.0)


def _mooncake_parse(line: str) -> Parsed:
    if not line.strip():
        return "blank line"
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return "bad JSON line"
    if not isinstance(data, dict):
        return "not a JSON object"
    raw = data.get("timestamp")
    if raw is None:
        return "missing timestamp"
    if not _finite(raw):
        return "unparseable timestamp"
    ids = data.get("hash_ids")
    kept = {"hash_ids": ids} if isinstance(ids, list) and all(
        type(i) is int and i >= 0 for i in ids) and len(ids) <= MAX_HASH_IDS else {}
    return float(raw), data.get("input_length"), data.get("output_length"), kept


def import_mooncake(text: str | bytes, options: ImportOptions | None = None) -> ImportResult:
    """Mooncake JSONL: {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [...]} a line.
    The hash ids (one a 512-token prefix block) are kept for prefix caching, unless token counts are scaled
    (the blocks would no longer match the prompts)."""
    lines = _LINE_END.split(_text(text))  # JSON text never holds a raw CR or LF, so any line ending will do
    if not lines[-1].strip():
        lines.pop()  # the newline that ends the last line starts no row
    return _convert("mooncake", enumerate(lines, start=1), _mooncake_parse, 1.0, options)


def _import_native(text: str | bytes, options: ImportOptions | None) -> ImportResult:
    """The project's own CSV or JSON; nothing is dropped, and of the options only `max_rows` applies."""
    text, max_rows = _text(text), options and options.max_rows
    trace = read_json(text, max_rows) if text.lstrip().startswith(("[", "{")) else read_csv(text, max_rows)
    return ImportResult(trace, ImportReport("native", len(trace), len(trace)))


def detect_format(text: str | bytes) -> str:
    """The format of a trace judged by its first line, or a TraceError naming the known ones."""
    first = next((line for line in _text(text).splitlines() if line.strip()), "").strip()
    if first.startswith("{") and '"input_length"' in first:
        return "mooncake"
    if first.startswith(("[", "{")):
        return "native"
    header = {cell.strip().strip('"').casefold() for cell in first.split(",")}
    for fmt, columns in CSV_COLUMNS.items():
        if all(c.casefold() in header for c in columns):
            return fmt
    if set(REQUIRED) & header:  # a native CSV, perhaps missing a column that read_csv will name
        return "native"
    raise _unreadable("it is not a known trace format (native, Azure, Mooncake or BurstGPT)")


_IMPORTERS = {"native": _import_native, "azure": import_azure,
              "mooncake": import_mooncake, "burstgpt": import_burstgpt}


def import_trace(text: str | bytes, fmt: str = "auto", options: ImportOptions | None = None) -> ImportResult:
    """Import `text` in format `fmt` (one of FORMATS, or "auto" to detect it from the first line).
    A native trace is read as it is: the options apply to the other formats."""
    if fmt == "auto":
        fmt = detect_format(text)
    if fmt not in _IMPORTERS:
        raise ValueError(f"fmt must be one of {', '.join(FORMATS)} or auto, got {fmt!r}")
    return _IMPORTERS[fmt](text, options)
