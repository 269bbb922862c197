"""Every text in both languages: each entry has English and Chinese with the same fields, every key the code
asks for exists, and so do the keys it builds (a phase, a problem code, a metric, a policy): a missing one
would otherwise fail only when its page draws it, in the one language that lacks it."""
import ast
import re
import string
from dataclasses import fields as dataclass_fields
from pathlib import Path

import pytest

from sim.core.config import Policy
from sim.core.schedule import PHASES
from ui import story
from ui.charts import EVENT_MARKERS
from ui.strings import STRINGS
from ui.tables import EXTRA, OVERALL, PER_REQUEST

ROOT = Path(__file__).resolve().parents[1]
CODE = [*sorted((ROOT / "ui").glob("*.py")), *sorted((ROOT / "pages").glob("*.py")), ROOT / "classroom.py"]
SIM = sorted((ROOT / "sim").rglob("*.py")) + sorted((ROOT / "gpu_demo").glob("*.py"))


def fields(text: str) -> set[str] | None:
    """The str.format fields of a text; None for a text that is never formatted (a LaTeX formula's braces)."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}
    except ValueError:
        return None


def calls_of_t(path: Path):
    """Every t(...) call's first argument in a source file."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "t" and node.args:
            yield node.args[0]


def test_the_translations_are_one_file_a_language_with_the_same_keys():
    from ui.lang import en, zh
    assert en.TEXTS.keys() == zh.TEXTS.keys() == STRINGS.keys()
    assert all(STRINGS[key] == {"en": en.TEXTS[key], "zh": zh.TEXTS[key]} for key in STRINGS)


def test_each_text_has_both_languages_with_the_same_fields():
    assert len(STRINGS) > 400
    assert [key for key, entry in STRINGS.items() if set(entry) != {"en", "zh"} or not entry["en"].strip()
            or not entry["zh"].strip() or fields(entry["en"]) != fields(entry["zh"])] == []


def test_every_key_the_code_names_exists():
    named = {(path.name, arg.value) for path in CODE for arg in calls_of_t(path)
             if isinstance(arg, ast.Constant)}
    assert len(named) > 200
    assert {key for _, key in named} - STRINGS.keys() == set(), sorted(k for k in named if k[1] not in STRINGS)


def test_every_built_key_has_a_family():
    """A key built as t(f"prefix_{...}") has at least one text of that prefix (the families below check each
    member where the code lists the members)."""
    prefixes = set()
    for path in CODE:
        for arg in calls_of_t(path):
            if isinstance(arg, ast.JoinedStr) and isinstance(arg.values[0], ast.Constant):
                prefixes.add(arg.values[0].value)
    assert len(prefixes) > 30
    assert [p for p in sorted(prefixes) if not any(key.startswith(p) for key in STRINGS)] == []


FAMILIES = {
    "phase": PHASES,
    "event": EVENT_MARKERS,
    "hover_event": EVENT_MARKERS,
    "m": (*OVERALL, *EXTRA, *PER_REQUEST),
    "policy": ("static", "continuous"),
    "unit": ("tick", "ms"),
    "per": ("tick", "ms"),
    "wc_unit": ("tick", "ms"),
    "reason": ("finished", "cancelled", "disconnected", "rejected"),
    "opt_short": tuple(f.name for f in dataclass_fields(Policy) if f.name != "batching"),
    "opt": tuple(f.name for f in dataclass_fields(Policy) if f.name != "batching"),
    "short": PER_REQUEST,
    "ex_m": story.OVERALL,
    "why": tuple(f"{rule}_{n}" for rule in ("static_admit", "static_padding", "static_wait", "static_batch",
                                            "continuous_finish", "continuous_admit", "continuous_wait",
                                            "continuous_all") for n in ("one", "many")),
    "policy_rule": ("static", "continuous"),
    "short_policy": ("static", "continuous"),
    "ex_speed": ("one", "many"),
    "ex_rate": ("one", "many"),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_member_of_a_built_family_has_its_text(family):
    assert [m for m in FAMILIES[family] if f"{family}_{m}" not in STRINGS] == []


def test_every_problem_code_the_validators_raise_has_its_text():
    codes = set()
    for path in SIM + CODE:
        codes |= set(re.findall(r'Problem\(\s*"([a-z_]+)"', path.read_text()))
    assert {"no_rows", "empty", "missing_column", "no_prompt"} <= codes
    assert sorted(code for code in codes if f"prob_{code}" not in STRINGS) == []


def test_a_chinese_value_takes_no_space_beside_a_chinese_character():
    """A template keeps a space around a value for a Latin name ("vLLM V1 的拐点"); a Chinese name fills it
    without one ("连续批处理的拐点"). Spaces the template puts elsewhere, and beside a number, stay."""
    from ui.i18n import fill_chinese, speaking, t
    template = "{policy} 的拐点：{value}"
    assert fill_chinese(template, {"policy": "连续批处理", "value": "3 个请求"}) == "连续批处理的拐点：3 个请求"
    assert fill_chinese(template, {"policy": "vLLM V1", "value": "3"}) == "vLLM V1 的拐点：3"
    assert fill_chinese("把 {n} 个 token 用作请求 {name} 的 prompt", {"n": 5, "name": "甲"}) == \
        "把 5 个 token 用作请求甲的 prompt"
    assert fill_chinese("必须是 {pair} 的配对", {"pair": "a=1"}) == "必须是 a=1 的配对"
    assert fill_chinese("在 **{policy}** 下", {"policy": "连续"}) == "在**连续**下"  # (in bold too)
    assert fill_chinese("在 **{policy}** 下", {"policy": "vLLM"}) == "在 **vLLM** 下"
    assert fill_chinese("{name:>4} 的", {"name": "甲"}) == "   甲 的"  # (a padded value keeps its width)
    with speaking("zh"):
        assert t("sw_knee_label", policy=t("policy_continuous"), value="2x") == "连续批处理的拐点：2x"
    with speaking("en"):
        assert " " in t("sw_knee_label", policy="continuous", value="2x")
