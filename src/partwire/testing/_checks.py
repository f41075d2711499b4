"""The adapter laws of DESIGN §11 as plain functions over any object with the ``Adapter`` surface.

Each ``check_*`` function runs one law on one input and returns nothing, or raises
:class:`LawViolation` with a message that says which law, which adapter, which input, what was
seen and what to change. They need no pytest: :class:`partwire.testing.AdapterLaws` runs them as
tests, and a script may call them directly. Comparisons are of full JSON dumps (echo state
included), never ``==`` on models, which ignores ``provider_data``.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from partwire import parts as _parts
from partwire._base import replace
from partwire.errors import LossError, PartwireError
from partwire.history import HistoryEvent
from partwire.messages import AssistantMessage, ToolMessage
from partwire.projection import Loss
from partwire.streaming import Accumulator, MessageCompleteEvent, accumulate
from partwire.tools import ToolDefinition

__all__ = [
    "BAD_BODIES",
    "LawViolation",
    "Validator",
    "check_bad_input",
    "check_echo",
    "check_ids",
    "check_losses",
    "check_request_round_trip",
    "check_request_valid",
    "check_round_trip",
    "check_stream",
    "dumps",
    "in_body",
    "json_default",
    "neutral_dump",
    "part_marks",
    "silent_drops",
    "tools_called",
]

Validator = Callable[[dict[str, Any]], Iterable[str]]
"""Checks a request body against the API's own request types: the problems found, each a
sentence naming where (an empty iterable when the body is valid)."""


class LawViolation(AssertionError):
    """An adapter broke one of partwire's adapter laws on one input."""

    def __init__(self, law: str, adapter: str, example: str, what: str, fix: str) -> None:
        self.law = law
        """The law broken (``round trip``, ``losses``...)."""
        self.adapter = adapter
        """The adapter's ``NAME``."""
        self.example = example
        """The input it was broken on."""
        self.what = what
        """What was seen."""
        self.fix = fix
        """What an adapter must do to keep the law."""
        super().__init__(f"adapter {adapter!r} breaks the {law} law on {example}: {what}\n"
                         f"  To keep it: {fix}")


# -- helpers the laws share -----------------------------------------------------------------


def json_default(value: Any) -> Any:
    """What a request body holds besides JSON, as JSON: binary fields (boto3 takes ``bytes``) as
    the base64 text the HTTP body carries; anything else as its text."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def dumps(value: Any) -> str:
    """Canonical JSON text of a value, for comparisons that must see every key."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=json_default)


def neutral_dump(message: AssistantMessage) -> Any:
    """The message's full JSON dump, echo state included, with what each decoding makes fresh
    (the message's id and time, canonical tool-call ids) made neutral by position."""
    parts = tuple(replace(p, id=f"tu_{i}") if isinstance(p, _parts.ToolCallPart) else p
                  for i, p in enumerate(message.parts))
    return replace(message, id="m", created_at="2026-01-01T00:00:00Z", parts=parts).model_dump(mode="json")


def tools_called(history: Iterable[HistoryEvent]) -> tuple[ToolDefinition, ...]:
    """A definition of every tool the history's assistant messages call, in order: a real
    request carries them (an API may refuse tool calls without definitions)."""
    names = dict.fromkeys(p.name for e in history if isinstance(e, AssistantMessage)
                          for p in e.parts if isinstance(p, _parts.ToolCallPart))
    return tuple(ToolDefinition(name=n, input_schema={"type": "object"}, side_effects="none")
                 for n in names)


def _name(adapter: Any) -> str:
    return str(getattr(adapter, "NAME", None) or getattr(adapter, "__name__", type(adapter).__name__))


def _difference(first: Any, second: Any, path: str = "$") -> str:
    """Where two JSON values first differ, and how (for a failure message)."""
    if isinstance(first, dict) and isinstance(second, dict):
        for key in sorted(set(first) | set(second), key=str):
            if key not in second:
                return f"{path}.{key} is missing (it was {_short(first[key])})"
            if key not in first:
                return f"{path}.{key} appeared ({_short(second[key])})"
            if dumps(first[key]) != dumps(second[key]):
                return _difference(first[key], second[key], f"{path}.{key}")
    if isinstance(first, list) and isinstance(second, list):
        for i, (a, b) in enumerate(zip(first, second, strict=False)):
            if dumps(a) != dumps(b):
                return _difference(a, b, f"{path}[{i}]")
        if len(first) != len(second):
            return f"{path} has {len(second)} items instead of {len(first)}"
    return f"{path} was {_short(first)} and became {_short(second)}"


def _short(value: Any) -> str:
    text = dumps(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _losses(losses: Sequence[Loss]) -> str:
    return "; ".join(f"{loss.path} ({loss.part_type}) {loss.action}" for loss in losses) or "none"


# -- round trip -----------------------------------------------------------------------------


def check_round_trip(adapter: Any, history: Sequence[HistoryEvent], *, example: str = "a history",
                     model: str = "law", options: Mapping[str, Any] | None = None,
                     projection_options: Mapping[str, Any] | None = None) -> None:
    """The request ``to_wire`` makes from ``history`` reads back with ``from_wire_request`` and
    is written again, by ``to_wire``, as the same JSON, with no loss the second time."""
    opts = {**(options or {}), **(projection_options or {})}
    first = adapter.to_wire(list(history), model=model, tools=tools_called(history), **opts).request
    _check_reads_back(adapter, first, first, example=example, model=model, options=options,
                      projection_options=projection_options)


def check_request_round_trip(adapter: Any, request: dict[str, Any], *, example: str = "a request",
                             model: str = "law", options: Mapping[str, Any] | None = None,
                             projection_options: Mapping[str, Any] | None = None,
                             expected: dict[str, Any] | None = None) -> None:
    """A request body written for the adapter's API reads back with ``from_wire_request`` and is
    written again by ``to_wire`` as the same JSON (``expected``, when the adapter writes keys in
    another order or style), with no loss."""
    _check_reads_back(adapter, request, request if expected is None else expected, example=example,
                      model=model, options=options, projection_options=projection_options)


def _check_reads_back(adapter: Any, request: dict[str, Any], expected: dict[str, Any], *, example: str,
                      model: str, options: Mapping[str, Any] | None,
                      projection_options: Mapping[str, Any] | None) -> None:
    law, name = "round trip", _name(adapter)
    imported = adapter.from_wire_request(request, **(options or {}))
    kwargs = imported.to_wire_kwargs()
    kwargs["model"] = kwargs.get("model") or model
    again = adapter.to_wire(imported.history, **{**(projection_options or {}), **kwargs})
    if dumps(again.request) not in (dumps(expected), dumps({**expected, "model": kwargs["model"]})):
        raise LawViolation(law, name, example,
                           "the request read by from_wire_request and written again by to_wire "
                           f"differs: {_difference(expected, again.request)}",
                           "from_wire_request must read every field to_wire writes (ids, echo state, "
                           "settings), and to_wire must write back what it read, in the same form")
    if again.losses:
        raise LawViolation(law, name, example,
                           f"writing the read request again reported losses: {_losses(again.losses)}",
                           "what from_wire_request reads from a body of this API must go back "
                           "without a loss: keep its issuer the adapter's own")


def check_echo(adapter: Any, message: AssistantMessage, response: dict[str, Any],
               response_for: Callable[[AssistantMessage], dict[str, Any]], *,
               example: str = "a message", options: Mapping[str, Any] | None = None) -> None:
    """A response body ``response`` that carries ``message`` decodes (``from_wire``) to that
    message, echo state included, and the decoded message gives the same body back."""
    law, name = "round trip", _name(adapter)
    decoded = adapter.from_wire(response, **(options or {}))
    if neutral_dump(decoded) != neutral_dump(message):
        raise LawViolation(law, name, example,
                           "from_wire of the response differs from the message it carries: "
                           f"{_difference(neutral_dump(message), neutral_dump(decoded))}",
                           "from_wire must keep every part, in order, with its echo state "
                           "(signatures, provider ids, provider_data) and the response's fields")
    again = response_for(decoded)
    if dumps(again) != dumps(response):
        raise LawViolation(law, name, example,
                           f"the response made from the decoded message differs: {_difference(response, again)}",
                           "from_wire must keep what the adapter needs to write the same body again")


# -- losses ---------------------------------------------------------------------------------


def part_marks(part: _parts.Part) -> list[str]:
    """Strings that must appear in a request body that carries ``part`` (its text, signature,
    URL, data or name), empty for a part with nothing to look for (an empty text)."""
    match part:
        case _parts.TextPart() | _parts.RefusalPart():
            return [part.text[:200]] if part.text.strip() else []
        case _parts.ThinkingPart():
            if part.signature is not None:
                return [part.signature.value[:200]]
            return [part.text[:200]] if part.text.strip() else []
        case _parts.RedactedThinkingPart():
            return [part.data.value[:200]]
        case _parts.ToolCallPart():
            return [part.name]
        case _parts.ImagePart() | _parts.DocumentPart() | _parts.AudioPart():
            source = part.source
            if isinstance(source, _parts.UrlSource):
                return [source.url]
            if isinstance(source, _parts.Base64Source):
                return [source.data[:200]]
            if isinstance(source, _parts.ProviderFileSource):
                return [source.file_id]
            if isinstance(source, _parts.TextSource):
                return [source.text[:200]] if source.text.strip() else []
            return []
        case _parts.ServerToolCallPart():
            return [part.id] if part.id else []
        case _parts.ServerToolResultPart():
            return [part.call_id] if part.call_id else []
        case _parts.UnknownPart():
            return [part.original_type] if part.original_type else []
    return []


def _escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


_TEXT_FILE = re.compile(r"data:text/plain;base64,([A-Za-z0-9+/=]+)")


def in_body(mark: str, body: str) -> bool:
    """Whether ``mark`` is in the JSON ``body``, as text or inside a ``text/plain`` file's base64
    (a text document may travel as such a file)."""
    if _escaped(mark) in body:
        return True
    return any(mark in base64.b64decode(found).decode("utf-8", "replace")
               for found in _TEXT_FILE.findall(body))


def silent_drops(history: Sequence[HistoryEvent], request: dict[str, Any],
                 losses: Sequence[Loss]) -> list[str]:
    """The paths of the history's parts (and tool outputs) that are neither in the request body
    nor named by a loss: what was dropped in silence."""
    body = json.dumps(request, ensure_ascii=False, default=json_default)
    named = {loss.path for loss in losses}
    missing = []
    for i, event in enumerate(history):
        if not isinstance(event, AssistantMessage | ToolMessage) and not hasattr(event, "parts"):
            continue
        path = f"history[{i}]"
        if path in named:
            continue
        parts: tuple[_parts.Part, ...] = getattr(event, "parts", ())
        if isinstance(event, ToolMessage) and event.output_text.strip() \
                and _escaped(event.output_text[:200]) not in body:
            missing.append(f"{path}.output_text")
        for j, part in enumerate(parts):
            here = f"{path}.parts[{j}]"
            if any(p == here or p.startswith(here + ".") for p in named):
                continue
            if not all(in_body(mark, body) for mark in part_marks(part)):
                missing.append(here)
    return missing


def check_losses(adapter: Any, history: Sequence[HistoryEvent], *, example: str = "a history",
                 model: str = "law", options: Mapping[str, Any] | None = None,
                 accept_issuers: Iterable[str] | None = None, tools: bool = True) -> None:
    """Every part of ``history`` is in the request body or named by a loss, and
    ``strict=True`` raises :class:`~partwire.errors.LossError` with exactly those losses (or,
    when there are none, gives the same body)."""
    law, name = "losses", _name(adapter)
    kwargs: dict[str, Any] = {"model": model, **(options or {})}
    if tools:
        kwargs["tools"] = tools_called(history)
    if accept_issuers is not None:
        kwargs["accept_issuers"] = set(accept_issuers)
    lenient = adapter.to_wire(list(history), **kwargs)
    dropped = silent_drops(history, lenient.request, lenient.losses)
    if dropped:
        raise LawViolation(law, name, example,
                           f"{', '.join(dropped)} neither reached the request nor is named by a loss "
                           f"(losses: {_losses(lenient.losses)})",
                           "for everything to_wire does not send as it is, add a Loss with its path "
                           "(history[i].parts[j]) and what happened (dropped, downgraded, rewritten...)")
    try:
        strict = adapter.to_wire(list(history), strict=True, **kwargs)
    except LossError as refused:
        raised = cast(Sequence[Loss], refused.losses)
        if not lenient.losses:
            raise LawViolation(law, name, example,
                               f"strict=True raised although the lenient call reported no loss: {refused}",
                               "raise LossError under strict=True only for the losses the lenient "
                               "call reports") from None
        if list(raised) != list(lenient.losses):
            raise LawViolation(law, name, example,
                               f"strict=True raised with other losses ({_losses(raised)}) than "
                               f"the lenient call reported ({_losses(lenient.losses)})",
                               "under strict=True, raise LossError with the very losses of the "
                               "lenient projection") from None
        return
    if lenient.losses:
        raise LawViolation(law, name, example,
                           f"strict=True sent the request although the lenient call lost "
                           f"{_losses(lenient.losses)}",
                           "under strict=True, raise partwire.errors.LossError when there is any loss")
    if dumps(strict.request) != dumps(lenient.request):
        raise LawViolation(law, name, example,
                           f"strict=True gave another body: {_difference(lenient.request, strict.request)}",
                           "strict=True changes only whether losses raise, never the body")


# -- ids ------------------------------------------------------------------------------------


def _calls(history: Sequence[HistoryEvent]) -> list[_parts.ToolCallPart]:
    return [p for e in history if isinstance(e, AssistantMessage) for p in e.parts
            if isinstance(p, _parts.ToolCallPart)]


def _pairing(history: Sequence[HistoryEvent]) -> list[int | None]:
    """For each tool message, in order, the position of the call it answers (``None``: none)."""
    where = {call.id: k for k, call in enumerate(_calls(history))}
    return [where.get(e.call_id) for e in history if isinstance(e, ToolMessage)]


def check_ids(adapter: Any, history: Sequence[HistoryEvent], *, example: str = "a history",
              model: str = "law", options: Mapping[str, Any] | None = None) -> None:
    """Tool-call ids survive the wire: the request reads back with every sent call, each tool
    result answering the same call as before; reading the same body twice gives the same ids
    (an adapter keeps each call's wire id in ``provider_ids`` and never invents one); and an id the adapter rewrote is named by an ``id_mapped``
    loss."""
    law, name = "ids", _name(adapter)
    projection = adapter.to_wire(list(history), model=model, tools=tools_called(history), **(options or {}))
    body = json.dumps(projection.request, ensure_ascii=False, default=json_default)
    named = {loss.path for loss in projection.losses}
    mapped = any(loss.action == "id_mapped" for loss in projection.losses)
    capabilities = getattr(adapter, "CAPABILITIES", None)
    issuer = getattr(capabilities, "issuer", None)
    # An API whose calls carry no id (Capabilities.call_ids false: Ollama) sends none; its
    # results must still answer the same calls when the request is read back (below).
    for i, event in enumerate(history if getattr(capabilities, "call_ids", True) else ()):
        for j, part in enumerate(getattr(event, "parts", ())):
            if not isinstance(part, _parts.ToolCallPart) or f"history[{i}].parts[{j}]" in named \
                    or f"history[{i}]" in named or mapped:
                continue
            ids = {part.id, *part.provider_ids.values()}
            if not any(_escaped(call_id) in body for call_id in ids):
                raise LawViolation(law, name, example,
                                   f"the call history[{i}].parts[{j}] ({part.name}) went out under none "
                                   f"of its ids {sorted(ids)} and no id_mapped loss says so",
                                   f"send the call's id for this API (provider_ids[{issuer!r}] when "
                                   "present, else the id it arrived with, else the canonical id), or "
                                   "report an id_mapped loss when the API's id rules refuse it")
    first = adapter.from_wire_request(projection.request, **(options or {})).history
    second = adapter.from_wire_request(projection.request, **(options or {})).history
    # Canonical ids come from partwire's id source on each read; the wire ids must not change.
    # A call may carry none (Gemini's often do not): then there is nothing to keep.
    ids_first = [c.provider_ids for c in _calls(first)]
    ids_second = [c.provider_ids for c in _calls(second)]
    fix = ("keep each read call's wire id in provider_ids (under the issuer that gave it) exactly "
           "as the body has it; never make one up")
    if ids_first != ids_second:
        raise LawViolation(law, name, example,
                           f"reading the same request twice gave the calls the wire ids {ids_first}, "
                           f"then {ids_second}", fix)
    invented = [i_d for ids in ids_first for i_d in ids.values() if _escaped(i_d) not in body]
    if invented:
        raise LawViolation(law, name, example,
                           f"from_wire_request gave calls the wire ids {invented}, which the body does not hold",
                           fix)
    gone = {loss.path for loss in projection.losses if loss.action == "dropped"}
    sent = sum(1 for i, event in enumerate(history) if f"history[{i}]" not in gone
               for j, part in enumerate(getattr(event, "parts", ()))
               if isinstance(part, _parts.ToolCallPart) and f"history[{i}].parts[{j}]" not in gone)
    lost = len(_calls(history)) - sent
    if len(_calls(first)) != sent:
        raise LawViolation(law, name, example,
                           f"the request holds {sent} tool calls but reads back with {len(_calls(first))}",
                           "from_wire_request must read every tool call of the body as a tool_call part")
    dropped_results = sum(1 for i, e in enumerate(history)
                          if isinstance(e, ToolMessage) and f"history[{i}]" in gone)
    before, after = _pairing(history), _pairing(first)
    # Two calls under one id make the pairing ambiguous before the trip: nothing to keep then.
    unique = len({c.id for c in _calls(history)}) == len(_calls(history))
    if unique and not lost and not dropped_results and before != after:
        raise LawViolation(law, name, example,
                           f"tool results answer other calls after the trip: call positions {before} "
                           f"became {after}",
                           "write each tool result with the wire id of its call, and read it back "
                           "pointing at that call's id (ToolMessage.call_id)")


# -- streams --------------------------------------------------------------------------------


def check_stream(adapter: Any, chunks: Any, *, final: Any = None, example: str = "a stream",
                 options: Mapping[str, Any] | None = None, pieces: int | None = 7) -> None:
    """A stream folds to a complete message that keeps one id and ``created_at`` from its first
    event to its last, and equals (echo state included) what ``from_wire`` gives for ``final``,
    the whole response, when given. Raw bytes or text are also fed in ``pieces``-byte pieces."""
    law, name = "stream", _name(adapter)
    opts = dict(options or {})
    whole = neutral_dump(adapter.from_wire(final, **opts)) if final is not None else None
    feeds: list[tuple[str, Any]] = [("whole", chunks)]
    if pieces and isinstance(chunks, bytes | str):
        feeds.append((f"in {pieces}-byte pieces", [chunks[i:i + pieces] for i in range(0, len(chunks), pieces)]))
    for how, feed in feeds:
        ui = Accumulator()
        seen: set[tuple[str, Any]] = set()
        done: AssistantMessage | None = None
        for event in adapter.stream(feed, **opts):
            ui.feed(event)
            seen.add((ui.message.id, ui.message.created_at))
            if isinstance(event, MessageCompleteEvent):
                done = event.message
        if done is None:
            raise LawViolation(law, name, f"{example} ({how})", "the stream ended without a message_complete event",
                               "end every stream with MessageCompleteEvent carrying the final message")
        if seen != {(done.id, done.created_at)}:
            raise LawViolation(law, name, f"{example} ({how})",
                               f"the snapshots showed {len(seen)} identities where one was due: {sorted(map(str, seen))[:3]}",
                               "give every event of one stream the same message id and created_at "
                               "(the kernel's Translator owns them)")
        if whole is not None:
            streamed = neutral_dump(accumulate(adapter.stream(feed, **opts)))
            if streamed != whole:
                raise LawViolation(law, name, f"{example} ({how})",
                                   f"the streamed message differs from from_wire's: {_difference(whole, streamed)}",
                                   "stream must give the same parts, usage, stop reason and echo state "
                                   "as from_wire on the whole response")


# -- request validity -----------------------------------------------------------------------


def check_request_valid(adapter: Any, history: Sequence[HistoryEvent], validator: Validator, *,
                        example: str = "a history", model: str = "law",
                        options: Mapping[str, Any] | None = None,
                        accept_issuers: Iterable[str] | None = None, tools: bool = True) -> None:
    """The request ``to_wire`` makes from ``history`` passes ``validator`` (the API's own request
    types, as the user who wrote the adapter knows them)."""
    kwargs: dict[str, Any] = {"model": model, **(options or {})}
    if tools:
        kwargs["tools"] = tools_called(history)
    if accept_issuers is not None:
        kwargs["accept_issuers"] = set(accept_issuers)
    request = adapter.to_wire(list(history), **kwargs).request
    problems = list(validator(request))
    if problems:
        raise LawViolation("request validity", _name(adapter), example,
                           f"the request does not validate: {'; '.join(problems[:5])}",
                           "write only what the API's request types accept; what it cannot take "
                           "is a Loss, not a field")


# -- bad input ------------------------------------------------------------------------------

BAD_BODIES: tuple[tuple[str, Any], ...] = (
    ("None", None), ("the number 42", 42), ("a float", 3.5), ("text that is not JSON", "not json {"),
    ("a list of numbers", [1, 2]), ("undecodable bytes", b"\xff\xfe"), ("an empty object", {}),
    ("an object of unknown fields", {"unexpected": True}),
)
"""Inputs no API's reader can take, by name: every decoder must refuse them with partwire's own
error."""


def check_bad_input(adapter: Any, bodies: Sequence[tuple[str, Any]] = BAD_BODIES) -> None:
    """``from_wire`` and ``from_wire_request`` refuse each bad body with a
    :class:`~partwire.errors.PartwireError` (never another exception, never a result); ``stream``
    raises nothing but partwire's errors."""
    law, name = "bad input", _name(adapter)
    fix = ("catch what the parser raises on it and raise a partwire error that names what and where "
           "(partwire.errors.WireFormatError(provider, what, reason, path) from exc)")
    for label, body in bodies:
        for function in ("from_wire", "from_wire_request"):
            try:
                result = getattr(adapter, function)(body)
            except PartwireError:
                continue
            except Exception as exc:
                raise LawViolation(law, name, f"{function}({label})",
                                   f"it raised {type(exc).__name__}: {exc}", fix) from exc
            raise LawViolation(law, name, f"{function}({label})",
                               f"it returned {type(result).__name__} instead of refusing the input", fix)
        try:
            for _ in adapter.stream(body):
                pass
        except PartwireError:
            continue
        except Exception as exc:
            raise LawViolation(law, name, f"stream({label})",
                               f"it raised {type(exc).__name__}: {exc}", fix) from exc
