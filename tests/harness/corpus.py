"""Where the real traffic is: ``../shared/corpus`` beside the checkout, else the repository's own
copy of it (``tests/corpus``), so a clone anywhere runs the laws and the round-trip bench on the
same payloads instead of on nothing. ``PARTWIRE_SHARED_CORPUS`` names another folder."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CORPUS"]

_ROOT = Path(__file__).resolve().parents[2]
_SHARED = _ROOT.parent / "shared" / "corpus"
CORPUS = Path(os.environ.get("PARTWIRE_SHARED_CORPUS", _SHARED if _SHARED.is_dir() else _ROOT / "tests" / "corpus"))
"""The corpus folder, one subfolder per API (``anthropic``, ``openai-chat``, ...)."""
