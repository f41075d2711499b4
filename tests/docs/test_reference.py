"""The API reference names every public name, and the site's navigation names every page."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from tests.docs.reference import PAGES, ROOT, generated, public_modules

DIRECTIVE = re.compile(r"^::: ([\w.]+)\s*$", re.MULTILINE)


def documented() -> tuple[set[str], list[Any]]:
    """The dotted paths the reference renders, and the objects they resolve to."""
    paths: set[str] = set()
    objects: list[Any] = []
    for page in PAGES.glob("*.md"):
        for path in DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            module, _, name = path.rpartition(".")
            objects.append(getattr(importlib.import_module(module), name))
            paths.add(path)
    return paths, objects


def _is_documented(module: ModuleType, name: str, paths: set[str], objects: list[Any]) -> bool:
    if f"{module.__name__}.{name}" in paths:
        return True
    obj = getattr(module, name)
    # A class, function or module re-exported elsewhere is documented once, at its first home.
    return (isinstance(obj, type | ModuleType) or callable(obj)) and any(obj is o for o in objects)


@pytest.mark.parametrize("module", public_modules(), ids=lambda m: m.__name__)
def test_every_public_name_is_in_the_reference(module: ModuleType) -> None:
    """Each name in the module's ``__all__`` has a mkdocstrings directive (python -m tests.docs.reference)."""
    paths, objects = documented()
    missing = [n for n in module.__all__ if not _is_documented(module, n, paths, objects)]
    assert not missing, f"{module.__name__}: not in docs/reference: {missing}"


def test_every_directive_resolves() -> None:
    """Every ``::: path`` in the reference names a real object, so a rename cannot leave a dead entry."""
    paths, objects = documented()
    assert len(paths) == len(objects) > 100


def _nav_files(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [f for item in node for f in _nav_files(item)]
    if isinstance(node, dict):
        return [f for value in node.values() for f in _nav_files(value)]
    return []


def test_every_page_is_in_the_navigation_and_every_entry_exists() -> None:
    """The site's nav lists every Markdown page under docs/, and nothing that is not there."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = set(_nav_files(config["nav"]))
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert sorted(pages - nav) == []
    assert sorted(nav - pages) == []
    assert Path(ROOT / "docs" / "index.md").exists()


def test_the_reference_pages_are_current() -> None:
    """The committed pages are what ``python -m tests.docs.reference`` writes today, so a new module,
    a moved name or a changed docstring's first line cannot leave the reference behind."""
    expected = generated()
    committed = {p.name: p.read_text(encoding="utf-8") for p in PAGES.glob("*.md")}
    stale = sorted(name for name in expected.keys() | committed.keys() if expected.get(name) != committed.get(name))
    assert stale == [], f"out of date (run python -m tests.docs.reference): {stale}"
