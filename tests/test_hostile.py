"""Hostile input: the code paths that could run a user's code or render their text as HTML do not exist, the
upload and link limits are in place, and a classroom deployment's settings are the ones the README states."""
import ast
import json
import os
import subprocess
import sys
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
            # One exception: presenter mode's fixed style sheet, a constant of its module with no user text.
            fixed_css = path == ROOT / "ui" / "presenter.py" and [ast.dump(a) for a in call.args] == [
                ast.dump(ast.Name("CSS", ast.Load()))]
            if not fixed_css:
                pytest.fail(f"line {call.lineno}: {name}() renders raw HTML")
        if name == "file_uploader":
            assert "max_upload_size" in {k.arg for k in call.keywords}, f"line {call.lineno}: an uncapped uploader"


def test_the_sources_were_found():
    assert len(SOURCES) > 20 and ROOT / "ui" / "trace_sources.py" in SOURCES


def test_the_deployment_settings_cap_uploads_and_hide_tracebacks():
    settings = streamlit_settings("server.maxUploadSize", "server.enableXsrfProtection", "server.headless",
                                  "client.showErrorDetails", "client.toolbarMode")
    assert settings == {"server.maxUploadSize": MAX_UPLOAD_MB, "server.enableXsrfProtection": True,
                        "server.headless": True, "client.showErrorDetails": "type", "client.toolbarMode": "viewer"}


def test_the_server_neither_collects_nor_rescans_after_every_page_run():
    """The load settings the README names (a full collection after each page run was a third of the server's CPU
    under forty sessions; see bench/protocol_load.py)."""
    assert streamlit_settings("runner.postScriptGC", "server.fileWatcherType", "server.runOnSave") == {
        "runner.postScriptGC": False, "server.fileWatcherType": "none", "server.runOnSave": False}


def streamlit_settings(*names: str) -> dict:
    """The options as Streamlit itself reads them from the project's folder: a misspelt option in config.toml
    would be ignored without a word, and so would a value of the wrong type."""
    code = ("import json, sys; from streamlit import config; config.get_config_options(force_reparse=True); "
            "print(json.dumps({name: config.get_option(name) for name in sys.argv[1:]}))")
    env = {key: value for key, value in os.environ.items() if not key.startswith("STREAMLIT_")}
    answer = subprocess.run([sys.executable, "-c", code, *names], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120, check=True)
    return json.loads(answer.stdout.splitlines()[-1])


def test_a_huge_share_link_is_refused_before_any_work():
    with pytest.raises(ScenarioError) as caught:
        decode("A" * 50_000_000)
    assert caught.value.code == "too_long"
    with pytest.raises(ScenarioError):
        decode("A" * (MAX_LINK_CHARS + 1))
