"""The API reference shows no Sphinx role as text: the griffe extension renders every role used in
partwire's docstrings, and the site check (``nox -s docs``) finds one that slipped through."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.docs.check_site import raw_roles
from tests.docs.reference import ROOT, public_modules


def _extension() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sphinx_roles", ROOT / "docs" / "_ext" / "sphinx_roles.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROLES = _extension()
ANY_ROLE = re.compile(r"(?<![\w/`:]):[a-z]+(?::[a-z]+)?:`")  # not ``sqlite://:memory:``, a literal


@pytest.mark.parametrize(("text", "identifier", "title"), [
    (":class:`~partwire.projection.Projection`", "partwire.projection.Projection", "Projection"),
    (":func:`partwire.codec.load`", "partwire.codec.load", "partwire.codec.load"),
    (":py:meth:`~partwire.Session.open`", "partwire.Session.open", "open"),
    (":class:`the projection <partwire.projection.Projection>`", "partwire.projection.Projection",
     "the projection"),
    (":func:`stream`", "partwire.adapters.google.stream", "stream"),
    (":class:`~._parts.Thing`", "partwire.adapters.google._parts.Thing", "Thing"),
])
def test_a_role_becomes_an_optional_reference(text: str, identifier: str, title: str) -> None:
    """Each role form becomes an autorefs reference to its target, titled as Sphinx would title it."""
    rendered = ROLES.render_roles(f"See {text}.", "partwire.adapters.google")
    assert rendered == f'See <autoref identifier="{identifier}" optional><code>{title}</code></autoref>.'


def _docstrings() -> list[tuple[str, str]]:
    found = []
    for module in public_modules():
        found.append((module.__name__, module.__doc__ or ""))
        for name in module.__all__:
            obj = getattr(module, name)
            found.append((f"{module.__name__}.{name}", inspect.getdoc(obj) or ""))
            members: Any = vars(obj) if isinstance(obj, type) else {}
            for member, value in members.items():
                doc = getattr(value, "__doc__", None)
                if isinstance(doc, str) and not member.startswith("__"):
                    found.append((f"{module.__name__}.{name}.{member}", doc))
    return found


def test_no_docstring_keeps_a_role_once_rendered() -> None:
    """Every role in every public docstring is one the extension renders (no ``:ref:`` it misses)."""
    docstrings = _docstrings()
    assert sum(bool(ROLES.ROLE.search(doc)) for _, doc in docstrings) > 10  # roles are in use
    left = [(where, m.group()) for where, doc in docstrings
            for m in ANY_ROLE.finditer(ROLES.render_roles(doc, where.rsplit(".", 1)[0]))]
    assert left == []


def test_the_site_check_finds_a_raw_role(tmp_path: Path) -> None:
    """A page showing a role as text (as the reference did: ``:class:<code>...</code>``) is reported;
    a page with the rendered link is not."""
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "index.html").write_text(
        "<p>Returns a :class:<code>~partwire.projection.Projection</code>.</p>", encoding="utf-8")
    (tmp_path / "good.html").write_text(
        '<p>Returns a <a class="autorefs" href="#p"><code>Projection</code></a>: a body.</p>', encoding="utf-8")
    found = raw_roles(tmp_path)
    assert len(found) == 1
    assert found[0].startswith("bad/index.html: ")
