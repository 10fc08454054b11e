"""The house rules, as tests: the floors' import contract (import-linter, stated in pyproject.toml), no import
circle anywhere in elotui/, no module over 600 lines without a stated reason, and no function over cyclomatic
complexity 15 (radon). Modules are split by concept, not by a counter: a module may run longer when one concept
needs it, and says so in a `# long module: <reason>` comment."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "elotui"
LONG_MODULE = 600
LONG_REASON = re.compile(r"^# long module: \S.{10,}", flags=re.MULTILINE)
MAX_COMPLEXITY = 15


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def test_the_layer_contract_holds() -> None:
    """`lint-imports` reads the contracts in pyproject.toml (floors, and no Textual in the core)."""
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.exists():
        pytest.skip("import-linter is not installed (it is in the test extra)")
    out = subprocess.run([str(exe), "--no-cache"], check=False, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "BROKEN" not in out.stdout and out.stdout.count("KEPT") >= 2


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """elotui modules `name` imports (at any depth in the file, TYPE_CHECKING blocks included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name and t != "elotui":
                found.add(t)
    return found


def test_no_import_circle() -> None:
    modules = _modules()
    known = set(modules)
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt.startswith(node + "."):  # a package importing its own submodules is not a circle
                continue
            if state.get(nxt) == 1 and not node.startswith(nxt + "."):
                cycle = stack[stack.index(nxt) :] + [nxt]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


def long_modules() -> dict[str, int]:
    """Modules over LONG_MODULE lines that do not say why (a `# long module: <reason>` comment)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > LONG_MODULE and not LONG_REASON.search(text):
            found[str(path.relative_to(ROOT))] = lines
    return found


def test_long_modules_say_why() -> None:
    long = long_modules()
    assert not long, f"modules over {LONG_MODULE} lines without a '# long module: <reason>' comment: {long}"


def test_the_long_module_rule_reads_its_reason() -> None:
    assert LONG_REASON.search("x = 1\n# long module: one state machine, its states read together\n")
    assert not LONG_REASON.search("# long module:\n") and not LONG_REASON.search(
        "x = 1  # long module: why not"
    )


def test_no_function_is_too_complex() -> None:
    radon = pytest.importorskip("radon.complexity")
    too_complex = []
    for path in PACKAGE.rglob("*.py"):
        for block in radon.cc_visit(path.read_text(encoding="utf-8")):
            functions = (
                [block, *getattr(block, "methods", [])] if not hasattr(block, "is_method") else [block]
            )
            for f in functions:
                if getattr(f, "letter", "F") in ("F", "M") and f.complexity > MAX_COMPLEXITY:
                    too_complex.append(f"{path.relative_to(ROOT)}:{f.lineno} {f.name} ({f.complexity})")
    assert not too_complex, f"functions over cyclomatic complexity {MAX_COMPLEXITY} (radon): {too_complex}"


def test_code_is_formatted() -> None:
    """`ruff format` is the house style (it is in the test extra, so CI checks it)."""
    pytest.importorskip("ruff")
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "elotui", "tests", "scripts"],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-1000:]
