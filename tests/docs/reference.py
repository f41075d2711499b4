"""The API reference pages under docs/reference/: which public names exist and where they are.

``python -m tests.docs.reference`` rewrites the pages from the modules' ``__all__``: one page per
public module, one ``::: module.Name`` directive (rendered by mkdocstrings) per name it is the most
public home of. ``tests/docs/test_reference.py`` fails when a public name has no directive.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import partwire

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "docs" / "reference"
# Not library API: the command line's entry point is documented as a command (docs/index.md).
SKIP = frozenset({"partwire.cli", "partwire.__main__"})


def public_modules() -> list[ModuleType]:
    """Every importable public module of partwire that declares ``__all__``, shortest path first."""
    found: list[ModuleType] = [partwire]
    for info in pkgutil.walk_packages(partwire.__path__, "partwire."):
        if info.name in SKIP or any(p.startswith("_") for p in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "__all__"):
            found.append(module)
    return sorted(found, key=lambda m: (m.__name__.count("."), m.__name__))


def homes() -> dict[str, list[str]]:
    """Module -> the names documented on its page: each object at the first module exporting it."""
    seen: list[Any] = []
    pages: dict[str, list[str]] = {}
    for module in public_modules():
        names = pages.setdefault(module.__name__, [])
        for name in sorted(module.__all__):
            obj = getattr(module, name)
            if _documentable(obj) and any(obj is s for s in seen):
                continue
            seen.append(obj)
            names.append(name)
    return pages


def _documentable(obj: Any) -> bool:
    """Classes, functions and modules are documented once; constants on every page that has them."""
    return isinstance(obj, type | ModuleType) or callable(obj)


def render(module: str, names: list[str]) -> str:
    title = f"# `{module}`\n\n"
    doc = (importlib.import_module(module).__doc__ or "").strip().splitlines()
    lead = f"{doc[0]}\n\n" if doc else ""
    if not names:
        return title + lead + "Every name this module exports is documented where it is first exported.\n"
    directives = "\n".join(f"::: {module}.{name}\n" for name in names)
    return title + lead + directives


def main() -> None:
    PAGES.mkdir(parents=True, exist_ok=True)
    pages = homes()
    for old in PAGES.glob("partwire*.md"):
        old.unlink()
    for module, names in pages.items():
        (PAGES / f"{module}.md").write_text(render(module, names), encoding="utf-8")
    index = ["# API reference", "",
             "Every public name, one page per module, generated from the docstrings by mkdocstrings. "
             "A name exported by several modules is documented at the first (most public) of them.", ""]
    index += [f"- [`{m}`]({m}.md)" for m in pages]
    (PAGES / "index.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    sys.stdout.write("\n".join(f"  - reference/{m}.md" for m in pages) + "\n")


if __name__ == "__main__":
    main()
