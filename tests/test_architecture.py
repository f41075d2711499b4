"""The architecture holds: layers import downward only, and an adapter's internals are its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import partwire
from partwire.adapters import ADAPTER_NAMES

SRC = Path(partwire.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path) -> list[tuple[str, int]]:
    """Every module (or module.name) an import statement of ``path`` names, with its line."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return found


def test_no_module_outside_an_adapter_imports_its_private_modules() -> None:
    """Only an adapter's own package imports ``partwire.adapters.<api>._<module>``: the bridges,
    the session and every other module use its public modules (``blocks`` and the package)."""
    offences = []
    for path in sorted(SRC.rglob("*.py")):
        importer = _module_name(path)
        for target, line in _imported(path):
            for api in ADAPTER_NAMES:
                package = f"partwire.adapters.{api}"
                private = target.startswith(f"{package}._")
                if private and not (importer == package or importer.startswith(f"{package}.")):
                    offences.append(f"{importer}:{line} imports {target}")
    assert offences == []


def test_the_architecture_contracts_are_kept() -> None:
    """``lint-imports`` (the contracts in pyproject.toml) passes: layers, independent adapters,
    private modules, no cycles."""
    root = SRC.parents[1]
    command = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    result = subprocess.run([sys.executable, "-c", command, "--no-cache"], cwd=root,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "0 broken" in result.stdout
