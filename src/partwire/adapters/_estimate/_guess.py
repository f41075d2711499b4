"""Media whose size the request does not carry: what the estimate assumed, its bounds, and hints.

A body estimator that meets an image by URL, a file id, an S3 location, or inline media whose
header it cannot read, counts a documented default (docs/accounting.md) and, when a ledger is
open (:func:`recording`), writes down a :class:`Guess`: the part's key, what was assumed, and
the least and most the provider could bill for it. A caller who knows the size gives a
:class:`Hint` under the same key, and the estimator counts that size instead of guessing.

The ledger is a context variable, so the int-returning estimators keep their signatures and
pay one lookup per guessed part when no ledger is open.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field

from partwire._memo import memo

__all__ = [
    "UNKNOWN_IMAGE",
    "UNKNOWN_SECONDS",
    "Guess",
    "Hint",
    "Ledger",
    "guess_duration",
    "guess_image",
    "guess_pages",
    "guess_seconds",
    "hint_for",
    "image_bounds",
    "note_server_tool",
    "note_unknown",
    "recording",
]


@dataclass(frozen=True, slots=True)
class Hint:
    """What a caller knows of one medium's size (any field may be missing)."""

    width: int | None = None
    height: int | None = None
    seconds: float | None = None
    pages: int | None = None


@dataclass(frozen=True, slots=True)
class Guess:
    """One medium counted without knowing its size."""

    key: str
    """Its URL, file id or S3 URI, or its base64 payload when its header could not be read."""
    kind: str
    """``image``, ``document``, ``audio``, ``video`` or ``file`` (a media type Gemini is not told)."""
    tokens: float
    """What the estimate counted for it."""
    low: float
    """The least the provider bills for a medium of this kind."""
    high: float
    """The most the provider bills for one (its resizing limit, page or duration limit)."""
    assumed: str
    """The size the estimate assumed, in words (``512x512 px``, ``60 s``, ``1 page``)."""


@dataclass
class Ledger:
    """The guesses of one estimate, and the hints it may use."""

    hints: Mapping[str, Hint] = field(default_factory=dict)
    guesses: list[Guess] = field(default_factory=list)


_LEDGER: ContextVar[Ledger | None] = ContextVar("partwire_estimate_ledger", default=None)


@contextlib.contextmanager
def recording(hints: Mapping[str, Hint] | None = None) -> Iterator[Ledger]:
    """Open a ledger for the estimates made inside the block (nested blocks get their own)."""
    ledger = Ledger(dict(hints or {}))
    token = _LEDGER.set(ledger)
    try:
        yield ledger
    finally:
        _LEDGER.reset(token)


def hint_for(key: str | None) -> Hint | None:
    """The hint the open ledger holds for ``key``, if any."""
    ledger = _LEDGER.get()
    if ledger is None or not key:
        return None
    return ledger.hints.get(key)


def _note(key: str | None, kind: str, tokens: float, low: float, high: float,
          assumed: str) -> None:
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger.guesses.append(Guess(key or "", kind, tokens, min(low, tokens), max(high, tokens),
                                    assumed))


# An image whose size is unknown is counted as this size (docs/accounting.md: "default").
UNKNOWN_IMAGE = (512, 512)
# Sizes the bounds of an unknown image are taken over: the smallest image, and long edges up to
# 3072 px at the aspect ratios of photos, screens and panoramas (every provider's resizing
# caps the larger ones, except Gemini 2's tiling, which this bounds at 3072 px).
_SIDES = (1, 28, 64, 128, 256, 384, 512, 768, 1024, 1092, 1280, 1536, 1568, 2048, 3072)
_RATIOS = (1.0, 4 / 3, 3 / 2, 16 / 9, 2.0, 3.0, 4.0)
_BOUNDS: dict[tuple[str, ...], tuple[float, float]] = memo({})


def image_bounds(formula: Callable[[int, int], float], rule: tuple[str, ...]) -> tuple[float, float]:
    """The least and most ``formula`` (``(width, height) -> tokens``) gives over image sizes.

    ``rule`` names the formula and its settings (``("openai", detail, model)``): the bounds are
    remembered by it, since each call may bring a new closure.
    """
    known = _BOUNDS.get(rule)
    if known is None:
        values = [formula(max(1, round(side / ratio)), side) for side in _SIDES for ratio in _RATIOS]
        values += [formula(side, max(1, round(side / ratio))) for side in _SIDES for ratio in _RATIOS]
        if len(_BOUNDS) >= 256:
            _BOUNDS.clear()
        known = _BOUNDS[rule] = (min(values), max(values))
    return known


def guess_image(key: str | None, formula: Callable[[int, int], float],
                rule: tuple[str, ...], floor: float | None = None) -> float:
    """The tokens of an image of unknown size: the hint's size, else 512x512 (a guess).

    ``floor``: a least below the formula's (a lower media resolution the body may not show).
    """
    hint = hint_for(key)
    if hint is not None and hint.width and hint.height:
        return formula(hint.width, hint.height)
    tokens = formula(*UNKNOWN_IMAGE)
    low, high = image_bounds(formula, rule)
    low = low if floor is None else min(low, floor)
    _note(key, "image", tokens, low, high, f"{UNKNOWN_IMAGE[0]}x{UNKNOWN_IMAGE[1]} px")
    return tokens


# Audio or video whose length is unknown (a URI, a file id) is counted as this many seconds.
UNKNOWN_SECONDS = 60.0


def guess_duration(key: str | None, kind: str, per_second: float, limit: float,
                   least: float | None = None) -> float:
    """Tokens of audio or video by reference: the hint's seconds, else a minute (a guess).

    ``limit`` is the longest clip the provider takes, in seconds (the upper bound); ``least``
    the fewest tokens a one-second clip is billed (``per_second`` when not given).
    """
    hint = hint_for(key)
    if hint is not None and hint.seconds is not None:
        return math.ceil(per_second * max(0.0, hint.seconds))
    seconds = UNKNOWN_SECONDS
    tokens = math.ceil(per_second * seconds)
    _note(key, kind, tokens, math.ceil(per_second if least is None else least),
          math.ceil(per_second * limit), f"{seconds:g} s")
    return tokens


def guess_seconds(key: str | None, kind: str, seconds: float, per_second: float,
                  limit: float) -> float:
    """Like :func:`guess_duration` for inline media whose header could not be read.

    ``seconds`` is the length its size suggests at a typical bit rate (the point estimate).
    """
    hint = hint_for(key)
    if hint is not None and hint.seconds is not None:
        return math.ceil(per_second * max(0.0, hint.seconds))
    tokens = math.ceil(per_second * seconds)
    _note(key, kind, tokens, math.ceil(per_second), math.ceil(per_second * limit),
          f"{seconds:.1f} s (from the payload's size; its header could not be read)")
    return tokens


def guess_pages(key: str | None, per_page: float, low_page: float, high_page: float,
                limit: int) -> float:
    """Tokens of a document by reference: the hint's pages, else one page.

    ``per_page`` is what the estimate counts a page (its page image with no text, the default);
    ``low_page`` and ``high_page`` the least and most a page is billed, text included, and
    ``limit`` the provider's page limit.
    """
    hint = hint_for(key)
    if hint is not None and hint.pages:
        return per_page * hint.pages
    _note(key, "document", per_page, low_page, high_page * limit, "1 page")
    return per_page


def note_unknown(key: str | None, kind: str, tokens: float, low: float, high: float,
                 assumed: str) -> None:
    """Record a guess made by the caller's own rule (a file whose kind is unknown)."""
    _note(key, kind, tokens, low, high, assumed)


# What a server tool reads (search results, fetched pages, files) is billed as input and is not
# in the request; it is bounded only by the model's context window, taken as this when the
# estimate does not know it (the window of current Claude, GPT and Gemini models is 200,000
# tokens or more).
SERVER_TOOL_READS = 200_000


def note_server_tool(index: int, kind: str, tokens: float) -> None:
    """Record a server tool of ``tools[index]``: its definition counted, what it reads not."""
    _note(f"tools[{index}] ({kind})", "server tool", tokens, tokens, tokens + SERVER_TOOL_READS,
          "no calls (what its calls read is not in the request)")
