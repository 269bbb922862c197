"""A trace-lab scenario (trace, budgets, the two policies compared) as one URL query parameter.

A link is untrusted input from the internet, so `decode` checks the length before any work, caps the
decompressed size (a few kilobytes of zlib can inflate to gigabytes), checks the type of every value,
rebuilds the trace and the config through their own validation, and raises nothing but ScenarioError.
"""
from __future__ import annotations

import base64
import json
import re
import typing
import zlib
from dataclasses import dataclass

from sim import codec
from sim.core.config import POLICIES, Config, Policy
from sim.trace.trace import COLUMNS, Problem, Request, Trace, TraceError, validate

QUERY_KEY = "s"
VERSION = 1
MAX_LINK_CHARS = 8000  # the parameter alone; the whole URL then stays under common 8 KiB limits
MAX_REQUESTS_IN_LINK = 300
MAX_JSON_BYTES = 256 * 1024  # decompressed; encode refuses more too, so every link it makes opens

# English text of each error code; the UI translates the same codes.
CODES = {
    "too_long": "the scenario is too large for a link; download the trace instead",
    "not_a_link": "this is not a scenario link, or it was cut short or altered",
    "bad_version": "the link was made by another version of the app",
    "bad_trace": "the link's trace is invalid",
    "bad_config": "the link's budgets are invalid",
    "bad_policy": "the link names an unknown scheduling policy",
}

_KEYS = {"v", "columns", "rows", "config", "policies"}
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
# Each column's type from the Request record, so optional columns added later are checked too.
_TYPES = typing.get_type_hints(Request)


class ScenarioError(ValueError):
    """Why a scenario cannot become a link or a link cannot become a scenario; `code` is a CODES key.

    `problems` holds the trace's problems for "bad_trace" (their codes translate like the trace editor's)."""

    def __init__(self, code: str, detail: str = "", problems: tuple[Problem, ...] = ()):
        self.code, self.detail, self.problems = code, detail[:300], problems
        super().__init__(CODES[code] + (f": {self.detail}" if detail else ""))


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True, slots=True)
class Scenario:
    """What the trace lab runs: one trace under one config through two policies, side by side.
    A policy given by name ("static", "continuous") means that batching with every option at its default."""
    trace: Trace
    config: Config
    policy_a: Policy | str = "static"
    policy_b: Policy | str = "continuous"

    def __post_init__(self):
        if not isinstance(self.trace, Trace) or not self.trace.requests:
            raise ScenarioError("bad_trace", "a scenario needs a trace with at least one request")
        if not isinstance(self.config, Config):
            raise ScenarioError("bad_config", f"expected a Config, got {_short(self.config)}")
        for side in ("policy_a", "policy_b"):
            policy = getattr(self, side)
            if isinstance(policy, str) and policy in POLICIES:  # POLICIES grows; never a fixed list
                object.__setattr__(self, side, Policy(batching=policy))
            elif not isinstance(policy, Policy):
                raise ScenarioError("bad_policy", f"{_short(policy)} is not one of {', '.join(POLICIES)}")


def _policy_fields(policy: Policy) -> str | dict:
    """A policy by name when every option is at its default, else its batching and the options changed."""
    changes = policy.changes()
    return {"batching": policy.batching, **changes} if changes else policy.batching


def encode(scenario: Scenario) -> str:
    """Compact JSON, zlib level 9, URL-safe base64 without padding: the same scenario, the same text."""
    trace = scenario.trace
    if len(trace) > MAX_REQUESTS_IN_LINK:
        raise ScenarioError("too_long", f"{len(trace)} requests; a link carries at most {MAX_REQUESTS_IN_LINK}")
    rows = trace.rows()
    payload = {"v": VERSION, "columns": list(rows[0]), "rows": [list(row.values()) for row in rows],
               "config": codec.tree(scenario.config),
               "policies": [_policy_fields(scenario.policy_a), _policy_fields(scenario.policy_b)]}
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    text = base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode("ascii")
    if len(raw) > MAX_JSON_BYTES or len(text) > MAX_LINK_CHARS:
        raise ScenarioError("too_long", f"the link would have {len(text)} characters; at most {MAX_LINK_CHARS}")
    return text


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def _payload(text: str) -> dict:
    """The link's JSON object, checked for size and version only."""
    if not isinstance(text, str):
        raise ScenarioError("not_a_link", f"expected text, got {type(text).__name__}")
    if len(text) > MAX_LINK_CHARS:  # before any work: the text may be megabytes
        raise ScenarioError("too_long", f"the link has {len(text)} characters; at most {MAX_LINK_CHARS} are read")
    text = text.strip().rstrip("=")  # tolerate a copied newline and restored padding
    if not _BASE64URL.fullmatch(text):
        raise ScenarioError("not_a_link", "it holds characters a link never has")
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), MAX_JSON_BYTES)
    except (ValueError, zlib.error):
        raise ScenarioError("not_a_link", "it is not compressed scenario data") from None
    if inflater.unconsumed_tail:
        raise ScenarioError("not_a_link", f"it inflates to more than {MAX_JSON_BYTES // 1024} KiB")
    if not inflater.eof or inflater.unused_data:
        raise ScenarioError("not_a_link", "it is cut short or has extra data")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (ValueError, RecursionError):  # bad UTF-8, bad JSON, too-deep nesting, a huge integer
        raise ScenarioError("not_a_link", "it does not hold valid JSON") from None
    version = data.get("v") if isinstance(data, dict) else None
    if type(version) is not int:
        raise ScenarioError("not_a_link", "it has no version number")
    if version != VERSION:
        raise ScenarioError("bad_version", f"it is version {version}; this app reads version {VERSION}")
    if set(data) != _KEYS:
        raise ScenarioError("not_a_link", f"expected the fields {', '.join(sorted(_KEYS))}")
    return data


def _type_problems(number: int, row: dict) -> list[Problem]:
    """Values of the wrong JSON type; `validate` alone would turn a list into a name and "5" into 5.
    (`validate` itself refuses text it could not write, such as a lone surrogate.)"""
    name = row["name"] if isinstance(row.get("name"), str) else None
    problems = []
    for column, value in row.items():
        kind = _TYPES[column]
        if column == "hash_ids":  # a list of whole numbers, which `validate` checks
            continue
        kinds = typing.get_args(kind) or (kind,)
        if float in kinds:  # a rate: a whole number is a number too
            kind = kind | int
        if isinstance(value, bool) or not isinstance(value, kind):
            if float in kinds:
                problems.append(Problem("not_rate", number, name, column, {"value": _short(value)}))
            elif int in kinds:
                problems.append(Problem("not_integer", number, name, column, {"value": _short(value)}))
            else:
                detail = f"expected text, got {_short(value)}"
                problems.append(Problem("unreadable", number, name, column, {"detail": detail}))
    return problems


def _trace(columns: object, rows: object) -> Trace:
    if (not isinstance(columns, list) or not all(isinstance(c, str) and c in COLUMNS for c in columns)
            or len(set(columns)) < len(columns)):
        raise ScenarioError("bad_trace", f"the columns must be distinct names among {', '.join(COLUMNS)}")
    if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) == len(columns) for r in rows):
        raise ScenarioError("bad_trace", f"every row must be a list of {len(columns)} values")
    if len(rows) > MAX_REQUESTS_IN_LINK:
        raise ScenarioError("too_long", f"{len(rows)} requests; a link carries at most {MAX_REQUESTS_IN_LINK}")
    records = [dict(zip(columns, row)) for row in rows]
    try:
        problems = [p for number, record in enumerate(records, start=1) for p in _type_problems(number, record)]
        if problems:
            raise TraceError(problems)
        return validate(records, columns)
    except TraceError as error:
        raise ScenarioError("bad_trace", str(error), error.problems) from None


def _tuples(value: object) -> object:
    """JSON lists back to the tuples a frozen dataclass field holds (nested, as in tenant quotas)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _build(cls: type, data: object, code: str) -> Config | Policy:
    """A Config (nested dicts, as `encode` writes it) or a Policy (its fields) through their own checks. Fields a
    link leaves out take their defaults, so links made before a field was added still open."""
    try:
        values = codec.from_tree(cls, data, "policy." if cls is Policy else "")
        values = {name: _tuples(value) if codec.LEAVES[name].kind is tuple else value
                  for name, value in values.items()}
        return codec.build(cls, values)
    except (TypeError, ValueError) as error:  # ConfigError is a ValueError
        raise ScenarioError(code, str(error)) from None


def _policy(data: object) -> Policy:
    """A policy by name (links from before the options) or by its fields."""
    if isinstance(data, str):
        if data not in POLICIES:
            raise ScenarioError("bad_policy", f"{_short(data)} is not one of {', '.join(POLICIES)}")
        return Policy(batching=data)
    return _build(Policy, data, "bad_policy")


def decode(text: str) -> Scenario:
    """The scenario a link holds; any text at all either decodes or raises ScenarioError."""
    data = _payload(text)
    trace = _trace(data["columns"], data["rows"])
    config = _build(Config, data["config"], "bad_config")
    policies = data["policies"]
    if not isinstance(policies, list) or len(policies) != 2:
        raise ScenarioError("bad_policy", "expected two policies")
    return Scenario(trace, config, *map(_policy, policies))
