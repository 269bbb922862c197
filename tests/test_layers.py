"""The layers hold: imports run down (pages -> ui -> sim; gpu_demo -> sim), the simulator's modules import one
another in one direction (no cycle), sim/core imports nothing inside a function (a cycle dodged), and no module
borrows another's private names (what several modules use is public in one)."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "ui", "gpu_demo", "kit")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def imported(name: str, tree: ast.AST) -> list[tuple[str, ast.stmt]]:
    """The project's modules `name` imports (outside `if TYPE_CHECKING:`), with each import statement."""
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and getattr(node.test, "id", None) == "TYPE_CHECKING" for n in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            found += [(t, node) for t in (target, *(f"{target}.{a.name}" for a in node.names)) if t in MODULES]
        elif isinstance(node, ast.Import):
            found += [(a.name, node) for a in node.names if a.name in MODULES]
    return [(t, node) for t, node in found if t != name]


TREES = {name: ast.parse(path.read_text()) for name, path in MODULES.items()}
GRAPH = {name: {t for t, _ in imported(name, tree)} for name, tree in TREES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on.discard(group[-1])
            if len(group) > 1:
                groups.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return groups


def test_no_import_cycle():
    assert cycles(GRAPH) == []


def test_imports_run_down_the_layers():
    wrong = [f"{name} imports {target}" for name, targets in GRAPH.items() for target in targets
             if name.startswith("sim") and not target.startswith("sim")
             or name.startswith("ui") and target.startswith("kit")
             or name.startswith("gpu_demo") and target.startswith(("ui", "kit"))]
    assert wrong == []


def test_sim_core_imports_nothing_inside_a_function():
    inside = [f"{name}:{node.lineno}" for name, tree in TREES.items() if name.startswith("sim.core")
              for function in ast.walk(tree) if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
              for node in ast.walk(function) if isinstance(node, ast.Import | ast.ImportFrom)]
    assert inside == []


def borrowed(name: str, tree: ast.AST) -> list[str]:
    """The private names (`_x`, not dunders) module `name` imports from another of the project's modules."""
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            out += [f"{name} imports {target}.{a.name}" for a in node.names
                    if target in MODULES and target != name and a.name.startswith("_") and not a.name.startswith("__")]
    return out


def test_no_module_borrows_anothers_private_names():
    assert [line for name, tree in TREES.items() for line in borrowed(name, tree)] == []


def test_the_layer_check_sees_a_cycle_and_a_late_import():
    """The checks themselves: a made-up cycle is found, and so is an import in a function."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    tree = ast.parse("def f():\n    from .policies import Continuous\n")
    assert any(isinstance(n, ast.ImportFrom) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
               for n in ast.walk(f))
    assert borrowed("ui.planner", ast.parse("from .charts import _base_layout, plotly_figure\n")) == [
        "ui.planner imports ui.charts._base_layout"]
