"""Every budget or option error reaches a page in the page's language: each ConfigError carries a code with a text
in both languages (the same fields as sim's English), every field one names has a widget label, and the pages catch
one only to say it through ui.problems.config_error (a trace's problems, likewise, only through their codes)."""
import ast
import string
from dataclasses import fields
from pathlib import Path

import pytest

from sim.codec import LIST_FORMATS
from sim.core.config import Policy
from sim.core.errors import MESSAGES, ConfigError
from ui.lab_state import LabSettings
from ui.problems import label_key
from ui.strings import STRINGS

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted({*ROOT.glob("sim/**/*.py"), *ROOT.glob("gpu_demo/*.py"), *ROOT.glob("ui/*.py"),
                  *ROOT.glob("pages/*.py")})
PAGES = sorted({*ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py")})
CHECKS = ("ConfigError", "whole", "number", "choice")  # the calls that raise one, field first


def calls(paths, names):
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in names:
                yield path, node


def format_fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_config_error_is_raised_with_a_known_code_and_its_fields():
    raised = list(calls(SOURCES, {"ConfigError"}))
    assert len(raised) > 30
    wrong = []
    for path, call in raised:
        if len(call.args) != 2:
            wrong.append(f"{path.name}:{call.lineno}: not (field, code)")
        elif isinstance(call.args[1], ast.Constant):
            code, given = call.args[1].value, {k.arg for k in call.keywords}
            if code not in MESSAGES or given != format_fields(MESSAGES[code]):
                wrong.append(f"{path.name}:{call.lineno}: {code} with {sorted(given)}")
    assert wrong == []


def test_the_codes_made_at_run_time_are_known():
    """The two raise sites whose code is computed: a number out of its range, a list that cannot be read."""
    from sim.core.errors import number
    made = set(LIST_FORMATS.values())
    for bounds in ({}, {"open_low": True}, {"high": 1.0}, {"open_low": True, "high": 1.0}):
        with pytest.raises(ConfigError) as error:
            number("x", -5.0, **bounds)
        made.add(error.value.code)
    assert len(made) == 6 and made <= MESSAGES.keys()


def test_every_code_has_its_text_in_both_languages_with_the_same_fields():
    assert {key.removeprefix("cfg_err_") for key in STRINGS if key.startswith("cfg_err_")} == MESSAGES.keys()
    assert [code for code, english in MESSAGES.items()
            if not format_fields(english) == format_fields(STRINGS[f"cfg_err_{code}"]["en"])
            == format_fields(STRINGS[f"cfg_err_{code}"]["zh"])] == []


def named_fields(call: ast.Call) -> list[str]:
    """The fields a raising call names as constants: its first argument, or either branch of one (x if c else y)."""
    first = call.args[0] if call.args else None
    branches = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
    return [b.value for b in branches if isinstance(b, ast.Constant) and isinstance(b.value, str)]


def test_every_field_an_error_names_has_a_label():
    # (sim/core/profile.py checks a profile file with these: what it finds wrong is a ProfileError about the file)
    checked = [path for path in SOURCES if path != ROOT / "sim" / "core" / "profile.py"]
    named = {name for _, call in calls(checked, CHECKS) for name in named_fields(call)}
    settings = {f.name for f in fields(LabSettings)} - {"policy_a", "policy_b", "source"}  # (no error names source)
    options = {f.name for f in fields(Policy)} - {"batching"}  # (batching's error names "policy")
    assert {"policy", "cost_model", "token_budget", "kv_blocks", "weights", "device"} <= named
    assert sorted(f for f in named | settings | options if label_key(f) not in STRINGS) == []


def test_a_page_catches_a_config_or_trace_error_only_to_say_it_in_its_language():
    """In ui/ and pages/, an exception caught as ConfigError goes to config_error (or up to the caller that
    does), one caught as TraceError is read by its problems' codes, a ScenarioError by its code: never str()."""
    allowed = {"ConfigError": ({"config_error"}, {"field", "code", "params"}),
               "TraceError": ({"trace_error_text"}, {"problems"}), "ScenarioError": (set(), {"code"})}
    wrong, handlers = [], 0
    for path in PAGES:
        tree = ast.parse(path.read_text())
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        raised = {n for node in ast.walk(tree) if isinstance(node, ast.Raise) for n in ast.walk(node)}
        for handler in (n for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler) and n.name):
            caught = {n.id for n in ast.walk(handler.type) if isinstance(n, ast.Name)} & allowed.keys()
            if not caught:
                continue
            handlers += 1
            (kind,) = caught
            functions, attributes = allowed[kind]
            for use in (n for node in handler.body for n in ast.walk(node)
                        if isinstance(n, ast.Name) and n.id == handler.name):
                parent = parents[use]
                ok = (isinstance(parent, ast.Attribute) and parent.attr in attributes
                      or isinstance(parent, ast.Call) and getattr(parent.func, "id", None) in functions
                      or isinstance(parent, ast.Tuple | ast.Return)  # (handed to a caller that says it)
                      or use in raised)  # (in the coded error raised in its place, e.g. a ScenarioError)
                if not ok:
                    wrong.append(f"{path.name}:{use.lineno}: {kind} {handler.name} used as {type(parent).__name__}")
    assert handlers > 8
    assert wrong == []
