"""Scenario links: round trips, size limits, and untrusted links that must fail only with ScenarioError."""
import base64
import json
import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.config import POLICIES, SLO, Config
from sim.trace.trace import Trace, validate
from tests.conftest import SEED_ROWS, make_trace
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

SEED = Scenario(make_trace(*SEED_ROWS), Config(8))
ENGINE = Scenario(make_trace(*SEED_ROWS), Config(16, max_seqs=2, first_token="prefill",
                                                  slo=SLO(ttft=4, tpot=1.5, e2e=None)), "continuous", "static")
OPTIONAL = Scenario(validate([
    {"name": "chat-1", "arrival": 5, "prompt": 3, "output": 2, "tenant": "alice", "priority": 2, "deadline": 9},
    {"name": "批处理", "arrival": 0, "prompt": 7, "output": 4, "tenant": "bob", "cancel_at": 3, "text": "hi there"},
]), Config(8))


def link(payload: object) -> str:
    """A link holding any JSON value, as encode would pack it."""
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode()


def payload(scenario: Scenario = SEED) -> dict:
    text = encode(scenario)
    return json.loads(zlib.decompress(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))))


def code_of(text: object) -> str:
    with pytest.raises(ScenarioError) as caught:
        decode(text)
    assert caught.value.code in CODES and str(caught.value)
    return caught.value.code


@pytest.mark.parametrize("scenario", [SEED, ENGINE, OPTIONAL], ids=["seed", "engine", "optional"])
def test_round_trip(scenario):
    text = encode(scenario)
    assert text.isascii() and len(text) <= MAX_LINK_CHARS and "=" not in text
    assert decode(text).trace.requests == scenario.trace.requests
    assert decode(text) == Scenario(validate(scenario.trace.rows()), scenario.config, scenario.policy_a,
                                    scenario.policy_b)
    assert encode(decode(text)) == text


def test_seed_link_is_exact_and_deterministic():
    assert decode(encode(SEED)) == SEED
    assert encode(SEED) == encode(Scenario(make_trace(*SEED_ROWS), Config(8)))
    data = payload(SEED)
    assert data["v"] == 1 and data["columns"] == ["name", "arrival", "prompt", "output"]
    assert data["rows"] == [list(row) for row in SEED_ROWS]
    assert data["config"]["slo"] == {"ttft": None, "tpot": None, "e2e": None}
    assert data["policies"] == ["static", "continuous"]
    assert set(payload(OPTIONAL)["columns"]) == {"name", "arrival", "prompt", "output", "priority", "deadline",
                                                 "tenant", "cancel_at", "text"}


def test_scenario_checks_its_fields():
    for policy in ("fifo", "", None, ["static"]):
        with pytest.raises(ScenarioError) as caught:
            Scenario(SEED.trace, Config(), policy_b=policy)
        assert caught.value.code == "bad_policy"
    assert all(Scenario(SEED.trace, Config(), p, p) for p in POLICIES)
    with pytest.raises(ScenarioError, match="at least one request"):
        Scenario(Trace(()), Config())
    with pytest.raises(ScenarioError) as caught:
        Scenario(SEED.trace, {"token_budget": 8})
    assert caught.value.code == "bad_config"


def test_too_many_requests_is_too_long():
    rows = [(f"r{i}", i, 1, 1) for i in range(MAX_REQUESTS_IN_LINK)]
    assert decode(encode(Scenario(make_trace(*rows), Config()))).trace.requests == make_trace(*rows).requests
    with pytest.raises(ScenarioError) as caught:
        encode(Scenario(make_trace(*rows, ("extra", 0, 1, 1)), Config()))
    assert caught.value.code == "too_long"
    data = payload()
    data["rows"] = [[f"r{i}", 0, 1, 1] for i in range(MAX_REQUESTS_IN_LINK + 1)]
    assert code_of(link(data)) == "too_long"


def test_incompressible_trace_is_too_long():
    rng = random.Random(0)
    rows = [("".join(rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=40)), rng.randrange(10**6),
             rng.randrange(1, 10**6), rng.randrange(1, 10**6)) for _ in range(MAX_REQUESTS_IN_LINK)]
    with pytest.raises(ScenarioError) as caught:
        encode(Scenario(make_trace(*rows), Config()))
    assert caught.value.code == "too_long" and "download the trace" in str(caught.value)


def test_long_or_foreign_text_is_refused():
    assert code_of("A" * (MAX_LINK_CHARS + 1)) == "too_long"
    assert code_of("A" * 10**8) == "too_long"  # refused by its length, before any work
    for text in ("", "   ", "=", "!!!!", "abc+/", "ä" * 10, "\ud800", "\x00", "eJ", "A", "AAAA", 'eyJ2IjoxfQ'):
        assert code_of(text) == "not_a_link"
    assert code_of(None) == "not_a_link"
    assert code_of(b"eJw") == "not_a_link"
    assert decode(" " + encode(SEED) + "==\n") == SEED  # a copied newline or restored padding is harmless


def test_tampered_links_fail_cleanly():
    text = encode(OPTIONAL)
    for i in range(len(text)):
        for replacement in {"A", "_", "z"} - {text[i]}:
            try:
                decode(text[:i] + replacement + text[i + 1:])
            except ScenarioError:
                pass
    for end in range(len(text)):
        assert code_of(text[:end]) == "not_a_link"
    for tail in ("A", "AA", "AAAA", "x" * 100, "%20", "&t=1"):
        assert code_of(text + tail) == "not_a_link"


def test_zlib_bomb_is_refused_quickly():
    bomb = base64.urlsafe_b64encode(zlib.compress(b"[" + b"0," * 2_000_000 + b"0]", 9)).rstrip(b"=").decode()
    assert len(bomb) <= MAX_LINK_CHARS  # so the size cap, not the length check, refuses it
    with pytest.raises(ScenarioError, match="inflates") as caught:  # stopped at the cap, not inflated in full
        decode(bomb)
    assert caught.value.code == "not_a_link"


def test_near_the_size_cap():
    assert code_of(link("x" * (MAX_JSON_BYTES - 2))) == "not_a_link"  # fits, but is no object
    assert code_of(link("x" * (MAX_JSON_BYTES - 1))) == "not_a_link"  # one byte over


@pytest.mark.parametrize("raw", [b"\xff\xfe{}", b'{"v":1', b"[" * 100_000, b'{"v":' + b"[" * 100_000,
                                 b'{"v":' + b"9" * 5000 + b"}", b'{"v":NaN}', b"null", b"1", b'"v"'])
def test_bad_utf8_json_or_nesting(raw):
    assert code_of(base64.urlsafe_b64encode(zlib.compress(raw)).decode()) == "not_a_link"


def test_trailing_data_after_the_stream():
    packed = zlib.compress(json.dumps(payload()).encode()) + b"junk"
    assert code_of(base64.urlsafe_b64encode(packed).decode()) == "not_a_link"


def _set(path, value, base=None):
    data = payload(base or SEED)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


WRONG = [
    (("v",), "1", "not_a_link"), (("v",), True, "not_a_link"), (("v",), None, "not_a_link"),
    (("v",), 2, "bad_version"), (("v",), 0, "bad_version"), (("v",), -(10**30), "bad_version"),
    (("columns",), "name", "bad_trace"), (("columns",), ["name", "arrival", "prompt"], "bad_trace"),
    (("columns",), ["name", "arrival", "prompt", 1], "bad_trace"),
    (("columns",), ["name", "arrival", "prompt", "colour"], "bad_trace"),
    (("columns",), ["name", "arrival", "prompt", "prompt"], "bad_trace"),
    (("columns",), ["name", "arrival", "prompt", "priority"], "bad_trace"),  # output missing
    (("rows",), {}, "bad_trace"), (("rows",), [], "bad_trace"), (("rows",), [None], "bad_trace"),
    (("rows", 0), ["A", 0, 4], "bad_trace"), (("rows", 0), ["A", 0, 4, 5, 6], "bad_trace"),
    (("rows", 0, 0), 5, "bad_trace"), (("rows", 0, 0), None, "bad_trace"), (("rows", 0, 0), ["A"], "bad_trace"),
    (("rows", 0, 0), "", "bad_trace"), (("rows", 0, 0), "B", "bad_trace"), (("rows", 0, 0), "x" * 101, "bad_trace"),
    (("rows", 0, 0), "\ud800", "bad_trace"),
    (("rows", 0, 1), "0", "bad_trace"), (("rows", 0, 1), 0.0, "bad_trace"), (("rows", 0, 1), 1.5, "bad_trace"),
    (("rows", 0, 1), True, "bad_trace"), (("rows", 0, 1), None, "bad_trace"), (("rows", 0, 1), -1, "bad_trace"),
    (("rows", 0, 1), 10**10, "bad_trace"), (("rows", 0, 2), 0, "bad_trace"),
    (("rows", 0, 2), {"a": 1}, "bad_trace"), (("rows", 0, 3), [5], "bad_trace"), (("rows", 0, 3), False, "bad_trace"),
    (("config",), None, "bad_config"), (("config",), [8], "bad_config"), (("config",), "8", "bad_config"),
    (("config", "token_budget"), "8", "bad_config"), (("config", "token_budget"), 8.0, "bad_config"),
    (("config", "token_budget"), 0, "bad_config"), (("config", "token_budget"), True, "bad_config"),
    (("config", "token_budget"), None, "bad_config"), (("config", "max_seqs"), 0, "bad_config"),
    (("config", "max_seqs"), "2", "bad_config"), (("config", "first_token"), "sample", "bad_config"),
    (("config", "first_token"), ["decode"], "bad_config"), (("config", "first_token"), None, "bad_config"),
    (("config", "slo"), None, "bad_config"), (("config", "slo"), [1, 2, 3], "bad_config"),
    (("config", "slo", "ttft"), "1", "bad_config"), (("config", "slo", "ttft"), 0, "bad_config"),
    (("config", "slo", "tpot"), True, "bad_config"),
    (("config", "slo", "goodput"), 1, "bad_config"), (("config", "chunk"), 4, "bad_config"),
    (("config", "__class__"), 4, "bad_config"), (("config", "seq_limit"), 4, "bad_config"),
    (("policies",), "static", "bad_policy"), (("policies",), ["static"], "bad_policy"),
    (("policies",), ["static", "continuous", "static"], "bad_policy"), (("policies",), None, "bad_policy"),
    (("policies", 0), "fifo", "bad_policy"), (("policies", 1), 1, "bad_policy"),
    (("policies", 1), None, "bad_policy"), (("policies", 0), ["static"], "bad_policy"),
    (("extra",), 1, "not_a_link"),
]


@pytest.mark.parametrize(("path", "value", "code"), WRONG, ids=lambda x: repr(x)[:30])
def test_wrong_types_and_values(path, value, code):
    assert code_of(link(_set(path, value))) == code


def test_infinite_numbers():
    assert code_of(link(_set(("config", "slo", "e2e"), float("inf")))) == "not_a_link"  # json writes Infinity
    overflow = json.dumps(_set(("config", "slo", "e2e"), 7)).replace('"e2e": 7', '"e2e": 1e999').encode()
    assert code_of(base64.urlsafe_b64encode(zlib.compress(overflow)).decode()) == "bad_config"
    overflow = json.dumps(_set(("rows", 0, 1), 7)).replace('["A", 7', '["A", 1e999').encode()
    assert code_of(base64.urlsafe_b64encode(zlib.compress(overflow)).decode()) == "bad_trace"


@pytest.mark.parametrize("column", ["priority", "deadline", "tenant", "cancel_at", "text"])
def test_wrong_types_in_optional_columns(column):
    data = payload(OPTIONAL)
    index = data["columns"].index(column)
    for value in (["x"], {"x": 1}, True, 1.5):
        data["rows"][0][index] = value
        assert code_of(link(data)) == "bad_trace"


def test_bad_trace_keeps_the_first_problem():
    with pytest.raises(ScenarioError) as caught:
        decode(link(_set(("rows", 2, 1), -1)))
    assert "row 3, request 'C', column 'arrival': must be at least 0, got -1" in str(caught.value)
    assert caught.value.problems[0].code == "below_min"
    with pytest.raises(ScenarioError, match="repeats the name of row 1"):
        decode(link(_set(("rows", 1, 0), "A")))


def test_missing_config_fields_take_defaults():
    data = payload(ENGINE)
    data["config"] = {"token_budget": 16}
    assert decode(link(data)).config == Config(16)
    data["config"] = {"slo": {"ttft": 3}}
    assert decode(link(data)).config == Config(slo=SLO(ttft=3))


def test_missing_top_level_field():
    for key in ("columns", "rows", "config", "policies"):
        data = payload()
        del data[key]
        assert code_of(link(data)) == "not_a_link"


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                           max_leaves=20)


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_random_text_fails_only_with_scenario_error(text):
    try:
        decode(text)
    except ScenarioError:
        pass


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=2000), st.booleans())
def test_random_bytes_fail_only_with_scenario_error(data, compress):
    try:
        decode(base64.urlsafe_b64encode(zlib.compress(data) if compress else data).rstrip(b"=").decode())
    except ScenarioError:
        pass


@settings(max_examples=500, deadline=None)
@given(st.sampled_from([SEED, ENGINE, OPTIONAL]), st.data(), json_values)
def test_random_json_anywhere_fails_only_with_scenario_error(scenario, data, value):
    document = payload(scenario)
    target, key = {"root": document}, "root"
    while isinstance(target[key], dict | list) and target[key] and data.draw(st.booleans()):
        target = target[key]
        key = data.draw(st.sampled_from(sorted(target) if isinstance(target, dict) else range(len(target))))
    target[key] = value
    try:
        decode(link(document))
    except ScenarioError:
        pass


names = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:", min_size=1, max_size=12)


@st.composite
def valid_scenarios(draw):
    n = draw(st.integers(1, 50))
    rows = [{"name": name, "arrival": draw(st.integers(0, 10**9)), "prompt": draw(st.integers(1, 10**7)),
             "output": draw(st.integers(1, 10**7))} for name in draw(st.lists(names, min_size=n, max_size=n,
                                                                              unique=True))]
    if draw(st.booleans()):
        for row in rows:
            row["tenant"] = draw(names | st.just(""))
            row["priority"] = draw(st.integers(-(10**9), 10**9))
            row["deadline"] = draw(st.none() | st.integers(row["arrival"], 10**9))
    config = Config(draw(st.integers(1, 10**6)), draw(st.none() | st.integers(1, 64)),
                    draw(st.sampled_from(("decode", "prefill"))),
                    SLO(*(draw(st.none() | st.floats(0.001, 1e6) | st.integers(1, 10**6)) for _ in range(3))))
    return Scenario(validate(rows), config, draw(st.sampled_from(POLICIES)), draw(st.sampled_from(POLICIES)))


@settings(max_examples=200, deadline=None)
@given(valid_scenarios())
def test_round_trip_of_random_scenarios(scenario):
    text = encode(scenario)
    decoded = decode(text)
    assert decoded.trace.requests == scenario.trace.requests
    assert (decoded.config, decoded.policy_a, decoded.policy_b) == (scenario.config, scenario.policy_a,
                                                                     scenario.policy_b)
    assert encode(decoded) == text
