"""The README's two commands: the first installs what the app imports (requirements.txt) and nothing for the
tests; the second adds what the tests import (requirements-dev.txt) and builds vLLM's scheduler for its oracle test
(kit/vllm_oracle_env.sh); CI runs the README's test command."""
import ast
import os
import re
import sys
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The tokenizer's training script needs the `tokenizers` library of requirements-dev.txt: the app only reads the
# file it wrote (sim.trace.chat), so the script is held to the test tools' requirements, not the app's.
# Likewise the planner's Ray executor (`python -m sim plan --executor ray`): Ray is a test and cluster dependency,
# imported only when asked for; the app never imports it.
DEV_TOOLS = [ROOT / "gpu_demo" / "train_tokenizer.py", ROOT / "sim" / "report" / "ray_points.py"]
APP = [ROOT / "app.py", ROOT / "classroom.py", ROOT / "serve.py",
       *(path for folder in ("pages", "ui", "sim", "gpu_demo") for path in (ROOT / folder).rglob("*.py")
         if path not in DEV_TOOLS)]
# Run by an interpreter of its own, whose environment kit/vllm_oracle_env.sh builds: not the project's requirements'.
OWN_ENVIRONMENT = {ROOT / "kit" / "vllm_oracle.py"}
TESTS = [*(path for folder in ("tests", "kit", "bench") for path in (ROOT / folder).glob("*.py")
           if path not in OWN_ENVIRONMENT), *DEV_TOOLS]
LOCAL = {"app", "classroom", "serve", "pages", "ui", "sim", "gpu_demo", "tests", "kit", "bench", "common"}
TEST_TOOLS = {"pytest", "hypothesis", "playwright", "ruff"}


def requirement_names(path: Path) -> set[str]:
    """The distributions a requirements file asks for, following `-r` includes."""
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("-r"):
            names |= requirement_names(path.parent / line[2:].strip())
        elif line:
            names.add(canonical(re.split(r"[<>=!~;\[ ]", line)[0]))
    return names


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_closure(names: set[str]) -> set[str]:
    """These distributions and everything they require (unconditionally), as installed here."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            needs = requires(name) or []
        except PackageNotFoundError:
            continue
        todo += [canonical(re.split(r"[<>=!~;\[ (]", need)[0]) for need in needs if "extra ==" not in need]
    return seen


def third_party_imports(paths: list[Path]) -> dict[str, str]:
    """Top-level modules imported by these files that are neither the standard library's nor the project's,
    each with one place that imports it."""
    found = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top and top not in sys.stdlib_module_names and top not in LOCAL:
                    found.setdefault(top, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def distributions_of(module: str) -> set[str]:
    return {canonical(name) for name in packages_distributions().get(module, [])}


def test_the_app_requirements_hold_no_test_tools():
    assert not requirement_names(ROOT / "requirements.txt") & TEST_TOOLS


@pytest.mark.parametrize(("paths", "requirements", "seen"),
                         [(APP, "requirements.txt", {"streamlit", "torch"}),
                          (TESTS, "requirements-dev.txt", {"pytest", "playwright"})], ids=["app", "tests"])
def test_every_import_is_installed_by_its_requirements_file(paths, requirements, seen):
    provided = installed_closure(requirement_names(ROOT / requirements))
    imports = third_party_imports(paths)
    assert seen <= set(imports)  # the scan found the imports it is meant to check
    missing = {module: where for module, where in imports.items() if not distributions_of(module) & provided}
    assert missing == {}, f"imported but not installed by {requirements}: {missing}"


def test_the_app_does_not_import_the_test_tools():
    assert not set(third_party_imports(APP)) & TEST_TOOLS
    assert "ray" not in third_party_imports(APP)  # (nor Ray: only sim/report/ray_points.py, when asked for)


def test_the_readme_commands_install_each_kind_and_ci_runs_the_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```\n(.*?)\n```", readme, re.S)
    start, test = blocks[0], readme.split("<!-- test command -->", 1)[1].split("```\n", 2)[1].strip()
    assert "pip install -r requirements.txt" in start and "streamlit run app.py" in start
    assert "requirements-dev.txt" not in start
    assert "pip install -r requirements-dev.txt" in test and "-m pytest" in test
    # vLLM's own scheduler, which tests/test_vllm_oracle.py runs, is built before the tests, not skipped
    assert test.index("kit/vllm_oracle_env.sh &&") < test.index("-m pytest")
    assert os.access(ROOT / "kit" / "vllm_oracle_env.sh", os.X_OK)
    ci = (ROOT / ".ci" / "run").read_text()
    assert "-r requirements.txt" in ci and "requirements-dev.txt" not in ci  # the test command brings its tools
    assert "<!-- test command -->" in ci and 'eval "$test_command"' in ci
