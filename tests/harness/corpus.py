"""Where the real traffic is: each API's folder of ``../shared/corpus`` beside the checkout when
it is there, else the repository's own copy of it (``tests/corpus/<api>``), so a clone anywhere
runs the laws and the round-trip bench on the same payloads instead of on nothing, and an API the
shared corpus does not hold yet (Cohere, Ollama) is still read from the repository.
``PARTWIRE_SHARED_CORPUS`` names another folder to look in first."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CORPUS", "sources"]

_ROOT = Path(__file__).resolve().parents[2]
_OWN = _ROOT / "tests" / "corpus"


class _Corpus:
    """The corpus root: ``CORPUS / "cohere"`` is the first root holding a ``cohere`` folder."""

    def __init__(self, *roots: Path) -> None:
        self.roots = [root for root in roots if root.is_dir()]

    def __truediv__(self, relative: str) -> Path:
        folder, _, rest = str(relative).partition("/")
        for root in self.roots:
            if (root / folder).is_dir():
                return root / folder / rest if rest else root / folder
        return _OWN / relative

    def __str__(self) -> str:
        return " then ".join(str(root) for root in self.roots) or str(_OWN)


_FIRST = os.environ.get("PARTWIRE_SHARED_CORPUS")
CORPUS = _Corpus(*([Path(_FIRST)] if _FIRST else []), _ROOT.parent / "shared" / "corpus", _OWN)
"""The corpus, one subfolder per API (``anthropic``, ``openai-chat``, ...), each from the first root that has it."""


def sources() -> dict[str, str]:
    """Per API folder, where it was read from and how many files it holds (for the benchmarks
    page: a figure over the corpus depends on which corpus it read)."""
    found: dict[str, str] = {}
    names = sorted({child.name for root in (*CORPUS.roots, _OWN) if root.is_dir()
                    for child in root.iterdir() if child.is_dir()})
    for name in names:
        folder = CORPUS / name
        if folder.is_relative_to(_OWN):
            where = "tests/corpus"
        elif folder.is_relative_to(_ROOT.parent / "shared" / "corpus"):
            where = "../shared/corpus"
        else:
            where = "$PARTWIRE_SHARED_CORPUS"
        count = sum(1 for path in folder.rglob("*") if path.is_file())
        found[name] = f"{where}, {count} files"
    return found
