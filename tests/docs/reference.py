"""The API reference pages under docs/reference/: which public names exist and where they are.

``python -m tests.docs.reference`` rewrites the pages from the modules' ``__all__``: one page per
public module, one ``::: module.Name`` directive (rendered by mkdocstrings) per name it is the most
public home of. ``tests/docs/test_reference.py`` fails when a public name has no directive.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Sequence
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
    return _homes()[0]


def _homes() -> tuple[dict[str, list[str]], dict[str, list[tuple[str, str]]]]:
    """The names documented on each page, and the names each page only re-exports, with the path
    (``partwire.Session``) of the entry that documents them."""
    seen: list[tuple[Any, str]] = []
    pages: dict[str, list[str]] = {}
    elsewhere: dict[str, list[tuple[str, str]]] = {}
    for module in public_modules():
        names = pages.setdefault(module.__name__, [])
        for name in sorted(module.__all__):
            obj = getattr(module, name)
            home = next((path for s, path in seen if s is obj), None) if _documentable(obj) else None
            if home is not None:
                elsewhere.setdefault(module.__name__, []).append((name, home))
                continue
            seen.append((obj, f"{module.__name__}.{name}"))
            names.append(name)
    return pages, elsewhere


def _documentable(obj: Any) -> bool:
    """Classes, functions and modules are documented once; constants on every page that has them."""
    return isinstance(obj, type | ModuleType) or callable(obj)


def render(module: str, names: list[str], elsewhere: Sequence[tuple[str, str]] = ()) -> str:
    title = f"# `{module}`\n\n"
    doc = (importlib.import_module(module).__doc__ or "").strip().splitlines()
    lead = f"{doc[0]}\n\n" if doc else ""
    # A name this module re-exports is documented at its first home; the page links there, so
    # reading `partwire.session` finds `Session` (documented as `partwire.Session`).
    also = ("Also exported here, documented where first exported: "
            + ", ".join(f"[`{name}`][{home}]" for name, home in elsewhere) + ".\n") if elsewhere else ""
    if not names:
        return title + lead + (also or "Every name this module exports is documented where it is first exported.\n")
    directives = "\n".join(f"::: {module}.{name}\n" for name in names)
    return title + lead + (also + "\n" if also else "") + directives


def generated() -> dict[str, str]:
    """Every reference page this run would write, by file name (``index.md`` included)."""
    pages, elsewhere = _homes()
    files = {f"{module}.md": render(module, names, elsewhere.get(module, [])) for module, names in pages.items()}
    index = ["# API reference", "",
             "Every public name, one page per module, generated from the docstrings by mkdocstrings. "
             "A name exported by several modules is documented at the first (most public) of them.", ""]
    index += [f"- [`{m}`]({m}.md)" for m in pages]
    files["index.md"] = "\n".join(index) + "\n"
    return files


def main() -> None:
    PAGES.mkdir(parents=True, exist_ok=True)
    files = generated()
    for old in PAGES.glob("partwire*.md"):
        old.unlink()
    for name, text in files.items():
        (PAGES / name).write_text(text, encoding="utf-8")
    sys.stdout.write("\n".join(f"  - reference/{name}" for name in files if name != "index.md") + "\n")


if __name__ == "__main__":
    main()
