"""Hostile input: the code paths that could run a user's code or render their text as HTML do not exist, the
upload and link limits are in place, and a classroom deployment's settings are the ones the README states."""
import ast
import tomllib
from pathlib import Path

import pytest

from ui.scenario import MAX_LINK_CHARS, ScenarioError, decode
from ui.trace_sources import MAX_UPLOAD_MB

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(path for folder in ("sim", "ui", "pages", "gpu_demo") for path in (ROOT / folder).rglob("*.py"))
SOURCES += [ROOT / "app.py", ROOT / "classroom.py"]
UNSAFE_MODULES = {"pickle", "marshal", "shelve", "dill", "cloudpickle"}


def calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            yield name, node


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_code_runs_from_data_and_no_html_is_rendered(path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            assert not {m.split(".")[0] for m in modules} & UNSAFE_MODULES, f"line {node.lineno}: imports {modules}"
        if isinstance(node, ast.keyword) and node.arg == "unsafe_allow_html":
            pytest.fail(f"line {node.value.lineno}: unsafe_allow_html")
    for name, call in calls(tree):
        assert not (isinstance(call.func, ast.Name) and name in {"eval", "exec", "compile", "__import__"}), \
            f"line {call.lineno}: {name}()"
        if name == "load" and isinstance(call.func, ast.Attribute) and getattr(call.func.value, "id", "") == "torch":
            options = {k.arg: k.value for k in call.keywords}
            assert isinstance(options.get("weights_only"), ast.Constant) and options["weights_only"].value is True, \
                f"line {call.lineno}: torch.load without weights_only=True"
        if name in {"html", "components_html", "iframe"} and isinstance(call.func, ast.Attribute):
            pytest.fail(f"line {call.lineno}: {name}() renders raw HTML")
        if name == "file_uploader":
            assert "max_upload_size" in {k.arg for k in call.keywords}, f"line {call.lineno}: an uncapped uploader"


def test_the_sources_were_found():
    assert len(SOURCES) > 20 and ROOT / "ui" / "trace_sources.py" in SOURCES


def test_the_deployment_settings_cap_uploads_and_hide_tracebacks():
    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert settings["server"]["maxUploadSize"] == MAX_UPLOAD_MB
    assert settings["server"]["enableXsrfProtection"] is True
    assert settings["server"]["headless"] is True
    assert settings["client"]["showErrorDetails"] in {"type", "none"}
    assert settings["client"]["toolbarMode"] == "viewer"


def test_a_huge_share_link_is_refused_before_any_work():
    with pytest.raises(ScenarioError) as caught:
        decode("A" * 50_000_000)
    assert caught.value.code == "too_long"
    with pytest.raises(ScenarioError):
        decode("A" * (MAX_LINK_CHARS + 1))
