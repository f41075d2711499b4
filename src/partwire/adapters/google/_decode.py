"""Gemini response -> canonical: a ``GenerateContentResponse`` becomes an ``AssistantMessage``.

A JSON array of responses (``streamGenerateContent`` without ``alt=sse``) is merged first, the
way a stream is (:func:`merge_chunks`, ``../shared/wire/google.md`` §5.4). Candidate metadata
(``finishMessage``, ``groundingMetadata``, ``citationMetadata``, ``urlContextMetadata``,
``safetyRatings``, logprobs, ``continuationToken``) and response metadata (``promptFeedback``,
``modelStatus``, ``createTime``, ...) are kept verbatim in the message's ``provider_data``.
"""

from __future__ import annotations

import base64
import copy
import itertools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from partwire._base import ProviderData
from partwire._json import as_json, usage_object
from partwire.adapters._formats import refuse_foreign_response
from partwire.adapters.google._parts import part_from_wire
from partwire.adapters.google._wire import (
    API,
    ISSUER,
    RETRYABLE_STATUSES,
    stop_reason,
    usage_from_wire,
)
from partwire.errors import ProviderError, WireFormatError
from partwire.history import ErrorEvent
from partwire.messages import AssistantMessage, StopReason
from partwire.parts import Part, RefusalPart, ToolCallPart

if TYPE_CHECKING:
    from partwire.adapters.google import Options

__all__ = [
    "CANDIDATE_FIELDS",
    "ChunkMerger",
    "error_event",
    "from_wire",
    "load_response",
    "merge_chunks",
    "message_from_response",
    "provider_error",
    "sdk_dump",
]

# Candidate keys with a canonical home; every other candidate key is kept as metadata.
CANDIDATE_FIELDS = frozenset({"content", "finishReason", "index"})
# Response keys with a canonical home.
_RESPONSE_FIELDS = frozenset({"candidates", "usageMetadata", "modelVersion", "responseId"})


def load_response(response: Any) -> Any:
    """A response as plain JSON: a dict, a list of chunks, or an SDK object dumped by alias."""
    if isinstance(response, list):
        return [_json(item) for item in response]
    return _json(response)


def _json(obj: Any) -> Any:
    if isinstance(obj, dict | list | str | bytes | bytearray):
        return as_json(obj)
    if hasattr(type(obj), "model_fields"):
        return sdk_dump(obj)
    return as_json(obj)


# Fields of the SDK's response models that are client-side only, never on the wire.
_CLIENT_FIELDS = frozenset({"sdk_http_response", "automatic_function_calling_history", "parsed"})


def sdk_dump(obj: Any) -> Any:
    """An SDK object as the JSON the server sent: camelCase, bytes as standard base64.

    The SDK decodes ``thoughtSignature`` and ``inlineData.data`` to bytes, and pydantic would dump
    them URL-safe; the server sent standard base64, which is what goes back to it.
    """
    dumped = obj.model_dump(mode="json", by_alias=True, exclude_none=True, exclude=_CLIENT_FIELDS)
    _restore_bytes(obj, dumped)
    return dumped


def _restore_bytes(obj: Any, dumped: Any) -> None:
    fields = getattr(type(obj), "model_fields", None)
    if not isinstance(fields, dict) or not isinstance(dumped, dict):
        return
    for name, info in fields.items():
        alias = info.alias or name
        if alias not in dumped:
            continue
        value = getattr(obj, name, None)
        if isinstance(value, bytes):
            dumped[alias] = base64.b64encode(value).decode("ascii")
        elif isinstance(value, list) and isinstance(dumped[alias], list):
            for item, out in zip(value, dumped[alias], strict=False):
                _restore_bytes(item, out)
        elif hasattr(type(value), "model_fields"):
            _restore_bytes(value, dumped[alias])




def provider_error(body: Mapping[str, Any], status: int | None = None) -> ProviderError:
    """The error a ``{"error": {code, message, status}}`` body stands for."""
    error = body.get("error")
    error = error if isinstance(error, dict) else {}
    code = error.get("status") or error.get("code")
    http = error.get("code") if isinstance(error.get("code"), int) else status
    return ProviderError(ISSUER, str(code) if code is not None else None,
                         str(error.get("message", "")), status=http, body=dict(body))


def error_event(body: Mapping[str, Any]) -> ErrorEvent:
    """The history event of an error body (in a stream, or a failed call)."""
    error = body.get("error")
    error = error if isinstance(error, dict) else {}
    status = error.get("status")
    http = error.get("code") if isinstance(error.get("code"), int) else None
    retryable = status in RETRYABLE_STATUSES or (http is not None and (http == 429 or http >= 500))
    return ErrorEvent(code=str(status) if status else (str(http) if http else None),
                      message=str(error.get("message", "")), provider=ISSUER,
                      retryable=bool(retryable), status=http)


def from_wire(response: Any, options: Options | None = None) -> AssistantMessage:
    """A response (dict, JSON text, bytes, the SDK's object, or a JSON array of chunks): the
    candidate ``options.candidate`` of it (the first by default)."""
    candidate = options.candidate if options is not None else 0
    data = load_response(response)
    if isinstance(data, list):
        data = merge_chunks(data, candidate=candidate)
    if not isinstance(data, dict):
        raise WireFormatError(ISSUER, "response", f"expected a JSON object, got {type(data).__name__}")
    if isinstance(data.get("error"), dict):
        raise provider_error(data)
    if not any(key in data for key in _RESPONSE_KEYS) and not any(key in data for key in _SNAKE_KEYS):
        # Every field of a response is optional, so another API's body (an Anthropic message)
        # would read as an empty answer: a body with none of them is not Gemini's.
        refuse_foreign_response(data, "google", ISSUER)
        raise WireFormatError(ISSUER, "response", f"it has none of {', '.join(_RESPONSE_KEYS)} "
                              f"(its keys: {', '.join(sorted(map(str, data))[:8]) or 'none'})")
    return message_from_response(data, candidate=candidate)


_RESPONSE_KEYS = ("candidates", "promptFeedback", "usageMetadata", "modelVersion", "responseId")
_SNAKE_KEYS = ("prompt_feedback", "usage_metadata", "model_version", "response_id")


def _candidate(data: Mapping[str, Any], index: int) -> Mapping[str, Any] | None:
    candidates = data.get("candidates")
    if candidates is None:
        return None
    if not isinstance(candidates, list):
        raise WireFormatError(ISSUER, "response", "candidates is not a list")
    for cand in candidates:
        if isinstance(cand, dict) and cand.get("index", 0) == index:
            return cand
    return None


def message_from_response(data: Mapping[str, Any], *, candidate: int = 0,
                          call_ids: Iterable[str] | None = None) -> AssistantMessage:
    """The assistant message of one whole (or merged) response.

    ``call_ids`` gives the canonical ids of its function calls in order (a stream made them
    already); otherwise each call gets its id from :func:`~._parts.call_identity`.
    """
    model_version = data.get("modelVersion")
    model = model_version if isinstance(model_version, str) and model_version else None
    cand = _candidate(data, candidate)
    parts: list[Part] = []
    meta: dict[str, Any] = {k: v for k, v in data.items() if k not in _RESPONSE_FIELDS}
    raw_finish: Any = None
    if cand is not None:
        content = cand.get("content")
        wire_parts = content.get("parts") if isinstance(content, dict) else None
        if wire_parts is not None and not isinstance(wire_parts, list):
            raise WireFormatError(ISSUER, "response", "candidates[].content.parts is not a list")
        ids = iter(call_ids) if call_ids is not None else None
        for raw in wire_parts or ():
            if not isinstance(raw, dict):
                raise WireFormatError(ISSUER, "response", "a part is not a JSON object")
            part = part_from_wire(raw, model)
            if ids is not None and isinstance(part, ToolCallPart):
                given = next(ids, None)
                if given is not None:
                    part = part.model_copy(update={"id": given})
            parts.append(part)
        raw_finish = cand.get("finishReason")
        rest = {k: v for k, v in cand.items() if k not in CANDIDATE_FIELDS}
        if isinstance(content, dict):
            extra = {k: v for k, v in content.items() if k not in ("parts", "role")}
            if extra:
                rest["content"] = extra
        if rest:
            meta["candidate"] = rest
    feedback = data.get("promptFeedback")
    block = feedback.get("blockReason") if isinstance(feedback, dict) else None
    if cand is None and isinstance(block, str):
        # A blocked prompt: HTTP 200 with no candidates. The user learns why from the refusal.
        message = feedback.get("blockReasonMessage") if isinstance(feedback, dict) else None
        parts.append(RefusalPart(text=message if isinstance(message, str) and message
                                 else f"The prompt was blocked ({block})."))
        stop: StopReason | None = "refusal"
        raw_stop: Any = block
    else:
        calls = any(isinstance(p, ToolCallPart) for p in parts)
        stop, raw_stop = stop_reason(raw_finish, tool_calls=calls), raw_finish
    usage = usage_object(data, "usageMetadata", ISSUER)
    response_id = data.get("responseId")
    return AssistantMessage(
        parts=tuple(parts),
        status="complete",
        stop_reason=stop,
        stop_reason_raw=raw_stop if isinstance(raw_stop, str) else None,
        model=f"{ISSUER}:{model}" if model else None,
        provider=ISSUER,
        api=API,
        response_id=response_id if isinstance(response_id, str) else None,
        usage=usage_from_wire(usage) if usage is not None else None,
        provider_data=ProviderData(issuer=ISSUER, data=meta) if meta else None,
    )


# -- merging chunks ---------------------------------------------------------------------------


def _plain_text(part: Mapping[str, Any] | None) -> bool:
    """A part that is text and nothing but text metadata (thought flag, signature)."""
    return part is not None and isinstance(part.get("text"), str) and all(
        k in ("text", "thought", "thoughtSignature") for k in part)


class ChunkMerger:
    """Folds stream chunks (each a delta) into one response, by the §5.4 algorithm.

    Text deltas of the same kind (thought or not) in successive chunks join (parts side by side
    in one chunk stay apart, as in a whole response); a part that carries only a signature
    (``{"text": "", "thoughtSignature": ...}``) hands it to the text part before it; function
    calls never merge, except a Vertex call whose arguments stream as ``partialArgs`` until
    ``willContinue`` ends. Usage and metadata: the last value wins, never a sum.
    """

    def __init__(self, candidate: int = 0) -> None:
        self.candidate = candidate
        self.top: dict[str, Any] = {}
        self.cand: dict[str, Any] = {}
        self.parts: list[dict[str, Any]] = []
        self.open_call: _PartialCall | None = None
        self.role: Any = None
        self.chunk_start = 0

    def feed(self, chunk: Mapping[str, Any]) -> list[tuple[str, int, str]]:
        """Fold one chunk in; returns what changed as ``(what, index, text)`` for a translator:
        ``new`` (a part appended), ``text`` (``text`` appended to a part), ``sig`` (a signature
        moved onto a part), ``open`` / ``call`` (a streamed call began / has its arguments)."""
        changes: list[tuple[str, int, str]] = []
        for key, value in chunk.items():
            if key != "candidates":
                self.top[key] = value
        candidates = chunk.get("candidates")
        for cand in candidates if isinstance(candidates, list) else ():
            if not isinstance(cand, dict) or cand.get("index", 0) != self.candidate:
                continue
            for key, value in cand.items():
                if key != "content":
                    self.cand[key] = value
            content = cand.get("content")
            if not isinstance(content, dict):
                continue
            if "role" in content:
                self.role = content["role"]
            # Parts side by side in one chunk are distinct parts; only the first of a chunk can
            # continue the last part of the chunk before.
            self.chunk_start = len(self.parts)
            for raw in content.get("parts") or ():
                if isinstance(raw, dict):
                    changes.extend(self._part(raw))
        return changes

    def _part(self, raw: dict[str, Any]) -> list[tuple[str, int, str]]:
        call = raw.get("functionCall")
        if isinstance(call, dict) and self.open_call is not None and "name" not in call:
            done = self.open_call.extend(call)
            index = self.open_call.index
            if done:
                self.parts[index]["functionCall"] = self.open_call.result()
                self.open_call = None
                return [("call", index, "")]
            return []
        if self.open_call is not None:
            # A new part while a streamed call is open: the call ends where it stands.
            index = self.open_call.index
            self.parts[index]["functionCall"] = self.open_call.result()
            self.open_call = None
            changes = [("call", index, "")]
        else:
            changes = []
        if _plain_text(raw) and not raw["text"] and "thoughtSignature" not in raw:
            return changes  # an empty delta (a stream's closing chunk) carries nothing
        last = self.parts[-1] if self.parts and self.chunk_start == len(self.parts) else None
        if _plain_text(raw) and _plain_text(last) and last is not None \
                and bool(raw.get("thought")) == bool(last.get("thought")) \
                and not ("thoughtSignature" in last and "thoughtSignature" in raw):
            index = len(self.parts) - 1
            if raw["text"]:
                last["text"] += raw["text"]
                changes.append(("text", index, raw["text"]))
            if "thoughtSignature" in raw:
                last["thoughtSignature"] = raw["thoughtSignature"]
                changes.append(("sig", index, ""))
            return changes
        part = copy.deepcopy(raw)
        self.parts.append(part)
        index = len(self.parts) - 1
        if isinstance(call, dict) and call.get("willContinue") is True:
            self.open_call = _PartialCall(index, call)
            return [*changes, ("open", index, "")]
        return [*changes, ("new", index, "")]

    def finish(self) -> list[tuple[str, int, str]]:
        """End of input: a streamed call still open ends with the arguments it has."""
        if self.open_call is None:
            return []
        index = self.open_call.index
        self.parts[index]["functionCall"] = self.open_call.result()
        self.open_call = None
        return [("call", index, "")]

    def response(self) -> dict[str, Any]:
        """The merged response as one ``GenerateContentResponse``."""
        out = dict(self.top)
        if self.cand or self.parts:
            cand: dict[str, Any] = {}
            content: dict[str, Any] = {"parts": self.parts}
            if self.role is not None:
                content["role"] = self.role
            cand["content"] = content
            cand.update(self.cand)
            out["candidates"] = [cand]
        return out


class _PartialCall:
    """A Vertex function call whose arguments arrive as ``partialArgs`` fragments."""

    def __init__(self, index: int, head: Mapping[str, Any]) -> None:
        self.index = index
        self.head = {k: v for k, v in head.items() if k not in ("partialArgs", "willContinue")}
        self.args: dict[str, Any] = dict(head.get("args") or {}) if isinstance(
            head.get("args"), dict) else {}
        self.pending: dict[str, str] = {}
        self._apply(head.get("partialArgs"))

    def extend(self, fragment: Mapping[str, Any]) -> bool:
        """Apply one fragment; ``True`` when it is the call's last."""
        self._apply(fragment.get("partialArgs"))
        if isinstance(fragment.get("args"), dict):
            self.args.update(fragment["args"])
        return fragment.get("willContinue") is not True

    def _apply(self, partial: Any) -> None:
        for arg in partial if isinstance(partial, list) else ():
            if not isinstance(arg, dict) or not isinstance(arg.get("jsonPath"), str):
                continue
            path = arg["jsonPath"]
            if "stringValue" in arg:
                text = self.pending.get(path, "") + str(arg["stringValue"])
                self.pending[path] = text
                _set_path(self.args, path, text)
                if arg.get("willContinue") is not True:
                    self.pending.pop(path, None)
            elif "numberValue" in arg:
                value = arg["numberValue"]
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
                _set_path(self.args, path, value)
            elif "boolValue" in arg:
                _set_path(self.args, path, arg["boolValue"])
            elif "nullValue" in arg:
                _set_path(self.args, path, None)
            else:
                for key in ("structValue", "listValue"):
                    if key in arg:
                        _set_path(self.args, path, arg[key])

    def result(self) -> dict[str, Any]:
        out = dict(self.head)
        out["args"] = self.args
        return out


def _path_steps(path: str) -> list[str | int]:
    """``$.a.b[0]['c d']`` -> ``["a", "b", 0, "c d"]``."""
    steps: list[str | int] = []
    i = 1 if path.startswith("$") else 0
    while i < len(path):
        ch = path[i]
        if ch == ".":
            j = i + 1
            while j < len(path) and path[j] not in ".[":
                j += 1
            steps.append(path[i + 1:j])
            i = j
        elif ch == "[":
            j = path.index("]", i)
            inner = path[i + 1:j]
            if inner[:1] in ("'", '"'):
                steps.append(inner[1:-1])
            else:
                steps.append(int(inner))
            i = j + 1
        else:
            j = i
            while j < len(path) and path[j] not in ".[":
                j += 1
            steps.append(path[i:j])
            i = j
    return steps


def _set_path(root: dict[str, Any], path: str, value: Any) -> None:
    steps = _path_steps(path)
    if not steps:
        return
    node: Any = root
    for step, following in itertools.pairwise(steps):
        fresh: Any = [] if isinstance(following, int) else {}
        if isinstance(step, int):
            while len(node) <= step:
                node.append(None)
            if node[step] is None:
                node[step] = fresh
            node = node[step]
        else:
            node = node.setdefault(step, fresh)
    last = steps[-1]
    if isinstance(last, int):
        while len(node) <= last:
            node.append(None)
        node[last] = value
    else:
        node[last] = value


def merge_chunks(chunks: Iterable[Any], *, candidate: int = 0) -> dict[str, Any]:
    """One response from the chunks of a stream (or of a ``streamGenerateContent`` array).

    An ``{"error": ...}`` chunk raises the provider error it stands for.
    """
    merger = ChunkMerger(candidate)
    for chunk in chunks:
        if not isinstance(chunk, dict):
            raise WireFormatError(ISSUER, "response", "a chunk is not a JSON object")
        if isinstance(chunk.get("error"), dict):
            raise provider_error(chunk)
        merger.feed(chunk)
    merger.finish()
    return merger.response()
