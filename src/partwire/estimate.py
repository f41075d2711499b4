"""Token estimates that say what they guessed: the count, its bounds, and the parts behind them.

Every adapter's ``estimate_input_tokens`` returns one number. :func:`estimate` counts the same
request and also says which media it counted without knowing their size (an image by URL, an
uploaded file, audio or video whose length the request does not carry, inline media whose
header could not be read), what it assumed for each, and the least and most the request can
cost given what it does not know (docs/accounting.md, "Estimates that say what they guessed")::

    from partwire.estimate import MediaHint, estimate

    result = estimate(history, target="google", model="gemini-2.5-flash")
    for part in result.guessed:
        print(part.path, part.kind, part.assumed, part.low, part.high)
    # Tell it the size, by the part's path or by its URL / file id:
    result = estimate(history, target="google", model="gemini-2.5-flash",
                      media_hints={"history[1].parts[0]": MediaHint(seconds=12.5)})

:func:`explain` is the same for any function that returns an adapter's int estimate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from partwire import parts as _parts
from partwire.adapters import ToolSpec, adapter_name, get_adapter
from partwire.adapters._estimate._guess import Guess, Hint, recording
from partwire.codec import context_messages
from partwire.errors import ArgumentError
from partwire.history import CompactionEvent, History

__all__ = ["MARGINS", "Estimate", "GuessedPart", "MediaHint", "estimate", "explain"]


@dataclass(frozen=True, slots=True)
class MediaHint:
    """What you know of one medium's size; give the fields that apply, leave the others out."""

    width: int | None = None
    """An image's width in pixels (with ``height``)."""
    height: int | None = None
    """An image's height in pixels (with ``width``)."""
    seconds: float | None = None
    """An audio clip's or a video's length in seconds."""
    pages: int | None = None
    """A document's page count (its text layer stays unknown: the page images are counted)."""

    def __post_init__(self) -> None:
        for name in ("width", "height", "seconds", "pages"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                      or value < 0):
                raise ArgumentError(name, f"expected a number of at least 0, not {value!r}",
                                    function="MediaHint")


@dataclass(frozen=True, slots=True)
class GuessedPart:
    """One part counted without knowing its size."""

    path: str
    """Where it is: ``history[3].parts[1]``; ``tools[0] (web_search)`` for a server tool; its URL
    or file id when no part of the history holds it (media inside ``params``)."""
    kind: str
    """``image``, ``document``, ``audio``, ``video``, ``file`` (a media type the request does
    not name), or ``server tool`` (a provider-run tool whose reads are billed as input)."""
    source: str
    """Its URL, file id or S3 URI, or ``inline`` for bytes whose header could not be read."""
    tokens: int
    """What the estimate counted for it."""
    low: int
    """The least the provider bills for a part of this kind."""
    high: int
    """The most the provider bills for one (its resizing, page or length limit)."""
    assumed: str
    """The size the estimate assumed, in words (``512x512 px``, ``60 s``, ``1 page``)."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """An input-token estimate with its bounds and the parts it guessed."""

    tokens: int
    """The estimate: the same number as the adapter's ``estimate_input_tokens``."""
    low: int
    """The least the request should cost: the counted content less its measured error, plus
    each guessed part's least."""
    high: int
    """The most it should cost: the counted content plus its measured error, plus each guessed
    part's most."""
    guessed: tuple[GuessedPart, ...] = ()
    """The parts counted without knowing their size, in history order."""
    left_out: tuple[str, ...] = ()
    """Media parts the request will not carry, so not counted: ``path: reason`` (an image by
    URL to Bedrock, which takes bytes or S3 locations only)."""
    target: str = ""
    """The adapter the request was counted for."""

    @property
    def exact_media(self) -> bool:
        """Whether no part was guessed (every medium's size was in the request or hinted)."""
        return not self.guessed


# How far the count of content carried in the request may be off, per adapter: one 5% step
# wider than the smallest step that holds the billed count of 90% of the corpus's fitted part
# (requests whose content is all in the request); tests/accounting/test_estimate_accuracy.py
# checks it on every request (docs/accounting.md, "Estimates that say what they guessed").
MARGINS: Mapping[str, float] = {
    "anthropic": 0.15,
    "openai_chat": 0.15,
    "openai_responses": 0.15,
    "google": 0.35,
    "bedrock": 0.40,
    "cohere": 0.25,
}
"""The relative error band of the counted content, per adapter name."""


def estimate(history: History, tools: Sequence[ToolSpec] = (), *, target: str,
             model: str | None = None, media_hints: Mapping[str, MediaHint] | None = None,
             **options: Any) -> Estimate:
    """The estimate of the next request of ``history`` to adapter ``target``.

    That request is ``to_wire(context_messages(history), tools=tools, model=model)``: the latest
    :class:`~partwire.history.CompactionEvent` stands for the messages it replaces, which are
    not counted. ``media_hints`` maps a part's path (``history[3].parts[1]``, in ``history``'s
    own numbering) or a medium's URL, file id or S3 URI to what you know of its size. Other
    keywords are the adapter's ``estimate_input_tokens``' own (``tool_choice``, ``params``,
    ``settings``, ``accept_issuers``, ``options``). Raises
    :class:`~partwire.errors.ArgumentError` for a hint whose path names no media part.
    """
    name = adapter_name(target)
    adapter = get_adapter(name)
    compacted = any(isinstance(event, CompactionEvent) for event in history)
    sent: History = context_messages(history) if compacted else history
    # A path names a part of `history`; the request is made of `sent`, whose messages are
    # history's own objects (and one new summary message).
    index = {id(event): i for i, event in enumerate(history)}
    numbering = [index.get(id(event), -1) for event in sent]

    def count() -> int:
        return adapter.estimate_input_tokens(sent, tools, model=model, **options)

    result = _explain(count, sent, numbering, target=name, media_hints=media_hints)
    if _by_reference(sent):
        # Only a medium by reference can be dropped for its source: ask to_wire what it drops.
        wire_options = {k: v for k, v in options.items()
                        if k in ("tool_choice", "params", "settings", "accept_issuers", "options")}
        projection = adapter.to_wire(sent, model=model or f"{name}:estimate", tools=tools,
                                     **wire_options)
        media = {f"history[{i}].parts[{j}]": f"history[{numbering[i]}].parts[{j}]"
                 for i, event in enumerate(sent)
                 for j, part in enumerate(getattr(event, "parts", ()))
                 if isinstance(part, _parts.ImagePart | _parts.DocumentPart | _parts.AudioPart)}
        dropped = tuple(f"{media[loss.path]}: {loss.reason}" for loss in projection.losses
                        if loss.action == "dropped" and loss.path in media)
        if dropped:
            result = replace(result, left_out=dropped)
    return result


def _by_reference(history: History) -> bool:
    return any(isinstance(part, _parts.ImagePart | _parts.DocumentPart | _parts.AudioPart)
               and not isinstance(part.source, _parts.Base64Source)
               for event in history for part in getattr(event, "parts", ()))


def explain(count: Callable[[], int], history: History, *, target: str,
            media_hints: Mapping[str, MediaHint] | None = None) -> Estimate:
    """Run ``count`` (an adapter's int estimate of ``history``) and say what it guessed.

    The hook for ``estimate_input_tokens(..., detail=True)``: ``target`` is the adapter's name
    (it picks the error margin of the counted content).
    """
    return _explain(count, history, list(range(len(history))), target=adapter_name(target),
                    media_hints=media_hints)


def _explain(count: Callable[[], int], history: History, numbering: Sequence[int], *,
             target: str, media_hints: Mapping[str, MediaHint] | None) -> Estimate:
    parts = _media_parts(history, numbering)
    hints = _hints(media_hints or {}, parts)
    with recording(hints) as ledger:
        tokens = count()
    return _summary(tokens, ledger.guesses, parts, target)


def _media_parts(history: History, numbering: Sequence[int]) -> dict[str, tuple[str, str]]:
    """``path -> (key, source)`` of every media part: the key estimators note guesses under."""
    found: dict[str, tuple[str, str]] = {}
    for i, event in enumerate(history):
        where = f"history[{numbering[i]}]" if numbering[i] >= 0 else "(compaction summary)"
        for j, part in enumerate(getattr(event, "parts", ())):
            if not isinstance(part, _parts.ImagePart | _parts.DocumentPart | _parts.AudioPart):
                continue
            source = part.source
            if isinstance(source, _parts.UrlSource):
                found[f"{where}.parts[{j}]"] = (source.url, source.url)
            elif isinstance(source, _parts.ProviderFileSource):
                found[f"{where}.parts[{j}]"] = (source.file_id, source.file_id)
            elif isinstance(source, _parts.Base64Source):
                found[f"{where}.parts[{j}]"] = (source.data, "inline")
    return found


def _hints(given: Mapping[str, MediaHint], parts: Mapping[str, tuple[str, str]]) -> dict[str, Hint]:
    out: dict[str, Hint] = {}
    for key, hint in given.items():
        if not isinstance(hint, MediaHint):
            raise ArgumentError("media_hints", f"the hint for {key!r} is a {type(hint).__name__}, "
                                "not a MediaHint", function="estimate")
        own = Hint(width=None if hint.width is None else int(hint.width),
                   height=None if hint.height is None else int(hint.height),
                   seconds=hint.seconds,
                   pages=None if hint.pages is None else int(hint.pages))
        if key.startswith("history["):
            if key not in parts:
                raise ArgumentError("media_hints", f"{key} is not an image, document or audio "
                                    "part of the history given by URL, file id or bytes",
                                    function="estimate")
            out[parts[key][0]] = own
        else:
            out[key] = own
    return out


def _summary(tokens: int, guesses: Sequence[Guess], parts: Mapping[str, tuple[str, str]],
             target: str) -> Estimate:
    where: dict[str, list[tuple[str, str]]] = {}
    for path, (key, source) in parts.items():
        where.setdefault(key, []).append((path, source))
    guessed: list[GuessedPart] = []
    seen: dict[str, int] = {}
    for guess in guesses:
        # One key may stand for several parts (the same URL twice): the n-th guess of a key is
        # its n-th part.
        places = where.get(guess.key, [])
        n = seen.get(guess.key, 0)
        seen[guess.key] = n + 1
        path, source = places[n] if n < len(places) else (
            guess.key if len(guess.key) <= 200 else "(inline media outside the history)",
            guess.key if len(guess.key) <= 200 else "inline")
        guessed.append(GuessedPart(path=path, kind=guess.kind, source=source,
                                   tokens=round(guess.tokens), low=round(guess.low),
                                   high=round(guess.high), assumed=guess.assumed))
    counted = max(0.0, tokens - sum(g.tokens for g in guesses))
    margin = MARGINS.get(target, 0.25)
    low = round(counted * (1 - margin) + sum(g.low for g in guesses))
    high = round(counted * (1 + margin) + sum(g.high for g in guesses))
    guessed.sort(key=_order)
    return Estimate(tokens=tokens, low=min(low, tokens), high=max(high, tokens),
                    guessed=tuple(guessed), target=target)


def _order(part: GuessedPart) -> tuple[int, int, str]:
    if part.path.startswith("history["):
        head, _, tail = part.path.partition("].parts[")
        try:
            return int(head[8:]), int(tail.rstrip("]")), ""
        except ValueError:
            pass
    return 1 << 30, 0, part.path
