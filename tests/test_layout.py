"""The package's folders are the pipeline's stages and imports go one way (README, "How it
works"): no module imports a later stage at module level, the core imports no other stage
at all, and no module-level import cycle exists. Read from the sources with `ast`."""

from __future__ import annotations

import ast
import pathlib

import jitgrad

ROOT = pathlib.Path(jitgrad.__file__).parent
STAGES = {"utils": 0, "core": 0, "regularizer": 0, "vm": 1, "compile": 2, "ops": 3,
          "autograd": 4, "nn": 5, "optimizer": 5, "__main__": 8}   # others: 6, jitgrad: 7


def _modules() -> dict[str, tuple[pathlib.Path, bool]]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


MODULES = _modules()


def _imports(name: str, top_level_only: bool) -> set[str]:
    """The jitgrad modules `name` imports (a package's own submodules by their full names)."""
    path, is_pkg = MODULES[name]
    base = name if is_pkg else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.If) and getattr(child.test, "id", "") == "TYPE_CHECKING":
                continue
            if not (top_level_only and inner):
                if isinstance(child, ast.Import):
                    found.update(a.name for a in child.names if a.name in MODULES)
                elif isinstance(child, ast.ImportFrom):
                    if child.level:
                        parts = base.split(".")
                        mod = ".".join(parts[:len(parts) - child.level + 1])
                        mod += "." + child.module if child.module else ""
                    else:
                        mod = child.module or ""
                    for a in child.names:
                        sub = f"{mod}.{a.name}"
                        found.add(sub if sub in MODULES else mod)
            visit(child, inner)

    visit(ast.parse(path.read_text()), False)
    return {m for m in found if m in MODULES and m != name}


def _rank(name: str) -> int:
    parts = name.split(".")
    return STAGES.get(parts[1], 6) if len(parts) > 1 else 7


def test_no_module_imports_a_later_stage_at_module_level():
    upward = sorted((m, t) for m in MODULES for t in _imports(m, True) if _rank(t) > _rank(m))
    assert upward == []


def test_the_core_imports_no_other_stage_even_inside_functions():
    core = [m for m in MODULES if _rank(m) == 0]
    outside = sorted((m, t) for m in core for t in _imports(m, False) if _rank(t) != 0)
    assert outside == []


def test_module_level_imports_have_no_cycle():
    graph = {m: _imports(m, True) for m in MODULES}
    state: dict[str, int] = {}      # 1: on the current path, 2: done

    def cycle_from(m: str, path: list[str]) -> list[str] | None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                return path[path.index(t):] + [t] if t in path else [m, t]
            if t not in state:
                found = cycle_from(t, path + [t])
                if found:
                    return found
        state[m] = 2
        return None

    for m in sorted(MODULES):
        if m not in state:
            assert cycle_from(m, [m]) is None


def test_the_check_sees_imports():
    """The three checks above would pass on a parser that found nothing: it does not."""
    assert "jitgrad.core.tensor" in _imports("jitgrad.compile.binding", True)
    assert "jitgrad.ops.core" in _imports("jitgrad.autograd.eager", True)
