"""The docs' lists of adapters, convert formats and extras match what the code registers."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from partwire.adapters import ADAPTER_NAMES
from partwire.cli._convert import FORMATS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def test_the_index_names_every_convert_format() -> None:
    """``docs/index.md``'s row for ``partwire convert`` names every format ``--to`` takes."""
    (row,) = [line for line in _text("index.md").splitlines() if line.startswith("| `partwire convert")]
    missing = [name for name in FORMATS if f"`{name}`" not in row]
    assert missing == []


def test_the_index_links_every_adapter_page_and_every_page() -> None:
    """The map of the docs links each adapter's page and every top-level page of the site."""
    index = _text("index.md")
    assert [name for name in ADAPTER_NAMES if f"(adapters/{name}.md)" not in index] == []
    pages = sorted(p.name for p in DOCS.glob("*.md") if p.name != "index.md")
    assert [page for page in pages if f"]({page})" not in index] == []


def test_getting_started_lists_every_extra_and_no_registry_install() -> None:
    """``docs/getting-started.md`` names each extra of pyproject and installs from the repository."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    text = _text("getting-started.md")
    assert [name for name in extras if f"`{name}`" not in text] == []
    assert re.search(r"pip install (-q )?partwire\b", text) is None


def test_no_page_counts_the_adapters_wrong() -> None:
    """No page says there are fewer adapters than are registered (``all four adapters``)."""
    words = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
    wrong = [f"{page.name}: {n}" for page in DOCS.rglob("*.md") for n, word in words.items()
             if n != len(ADAPTER_NAMES) and re.search(rf"\b(all|the) {word} adapters\b", page.read_text(), re.I)]
    assert wrong == []
