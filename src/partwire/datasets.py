"""Training and batch formats: canonical histories as the lines other systems take in bulk.

Each writer takes one history (with its tools and request settings) and gives a :class:`Line`:
the JSON object of one line of the format, and the losses, named like a projection's, for what
the format cannot hold. The request bodies are the adapters' own ``to_wire`` output, so a batch
line is exactly the request the provider would get one at a time.

- :func:`openai_finetune` — OpenAI chat fine-tuning (``messages``, ``tools``, a ``weight`` per
  assistant message);
- :func:`openai_batch` — OpenAI Batch API input (``custom_id``, ``method``, ``url``, ``body``) for
  Chat Completions or Responses;
- :func:`anthropic_batch` — one request of an Anthropic Message Batch (``custom_id``, ``params``);
- :func:`bedrock_batch` — a Bedrock batch inference record (``recordId``, ``modelInput``) of the
  ``Converse`` invocation type;
- :func:`trl_row` — a Hugging Face TRL conversational row (``messages``, ``tools``);
- :func:`read_batch_output` — an OpenAI or Anthropic batch *output* file back as canonical
  responses by ``custom_id``.

No SDK and no pyarrow is imported; ``docs/datasets.md`` shows each format.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from partwire import messages as _messages
from partwire.adapters import get_adapter
from partwire.errors import ArgumentError, DecodeError, PartwireError
from partwire.history import ErrorEvent, History, HistoryEvent
from partwire.parts import TextPart, ThinkingPart, ToolCallPart
from partwire.projection import Loss
from partwire.settings import RequestSettings
from partwire.tools import ServerToolDefinition, ToolDefinition

__all__ = [
    "BATCH_URLS",
    "Line",
    "anthropic_batch",
    "attach",
    "bedrock_batch",
    "openai_batch",
    "openai_finetune",
    "read_batch_output",
    "trl_row",
    "write_jsonl",
]

BATCH_URLS: dict[str, str] = {"openai_chat": "/v1/chat/completions", "openai_responses": "/v1/responses"}
"""The Batch API ``url`` of each OpenAI adapter's requests."""

# Anthropic refuses any other custom_id in a Message Batch.
_ANTHROPIC_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# What an OpenAI fine-tuning line may hold besides the messages.
_FINETUNE_KEYS = frozenset({"messages", "tools", "parallel_tool_calls"})

Tools = Sequence[ToolDefinition | ServerToolDefinition | Mapping[str, Any]]
Settings = RequestSettings | Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a training or batch format, and what the format could not hold."""

    value: dict[str, Any]
    """The line's JSON object."""
    losses: tuple[Loss, ...] = ()
    """Everything of the history (and its request) the line does not hold as it was."""

    def json(self) -> str:
        """The line as compact JSON text (no newline); bytes (Bedrock images) as base64."""
        return json.dumps(self.value, ensure_ascii=False, separators=(",", ":"), default=_json_default)


def write_jsonl(lines: Iterable[Line], path: str | os.PathLike[str]) -> int:
    """Write ``lines`` to ``path`` as JSONL, one at a time; returns how many were written."""
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        for line in lines:
            out.write(line.json() + "\n")
            count += 1
    return count


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON")


def _project(api: str, history: History, model: str, tools: Tools, settings: Settings,
             kwargs: Mapping[str, Any]) -> tuple[dict[str, Any], list[Loss]]:
    projection = get_adapter(api).to_wire(history, model=model, tools=tuple(tools), settings=settings, **kwargs)
    return dict(projection.request), list(projection.losses)


def _dropped(fmt: str, path: str, kind: str, reason: str, message_id: str | None = None) -> Loss:
    return Loss(path=path, part_type=kind, action="dropped", reason=reason, adapter=fmt, message_id=message_id)


def openai_finetune(history: History, *, tools: Tools = (), settings: Settings = None,
                    weights: Mapping[str, int] | None = None, model: str = "openai:gpt-4.1",
                    **to_wire: Any) -> Line:
    """An OpenAI chat fine-tuning line: the Chat Completions ``messages`` and ``tools`` of
    ``history``, and ``weight`` (0 or 1) on the assistant messages named in ``weights`` (by
    canonical message id). The request's other fields (sampling settings, limits) have no place
    in the line: each is a loss at ``request.<field>``."""
    fmt = "openai_finetune"
    request, losses = _project("openai_chat", history, model, tools, settings, to_wire)
    for key in request:
        if key not in _FINETUNE_KEYS and key != "model":
            losses.append(_dropped(fmt, f"request.{key}", "setting",
                                   "a fine-tuning line holds messages, tools and parallel_tool_calls only"))
    line = {key: value for key, value in request.items() if key in _FINETUNE_KEYS}
    if weights:
        assistants = [e for e in history if isinstance(e, _messages.AssistantMessage)]
        wire = [m for m in line["messages"] if m.get("role") == "assistant"]
        if len(assistants) != len(wire):
            raise ArgumentError("weights", "the assistant messages did not map one to one onto the wire's "
                                "(a message was dropped): weights cannot be placed", function=fmt)
        for message, wire_message in zip(assistants, wire, strict=True):
            if message.id in weights:
                weight = weights[message.id]
                if weight not in (0, 1):
                    raise ArgumentError("weights", f"{message.id}: a weight is 0 or 1, not {weight!r}",
                                        function=fmt)
                wire_message["weight"] = weight
    return Line(line, tuple(losses))


def openai_batch(history: History, *, custom_id: str, model: str,
                 api: Literal["openai_chat", "openai_responses"] = "openai_chat", tools: Tools = (),
                 settings: Settings = None, **to_wire: Any) -> Line:
    """An OpenAI Batch API input line: ``POST`` of ``api``'s request body for ``history``.

    A batch is not streamed: a ``stream`` field in the body (from ``params``) is a loss."""
    if api not in BATCH_URLS:
        raise ArgumentError("api", f"expected one of {', '.join(BATCH_URLS)}, not {api!r}", function="openai_batch")
    if not custom_id:
        raise ArgumentError("custom_id", "must not be empty", function="openai_batch")
    body, losses = _project(api, history, model, tools, settings, to_wire)
    _unstream(body, losses, "openai_batch")
    return Line({"custom_id": custom_id, "method": "POST", "url": BATCH_URLS[api], "body": body}, tuple(losses))


def anthropic_batch(history: History, *, custom_id: str, model: str, tools: Tools = (),
                    settings: Settings = None, **to_wire: Any) -> Line:
    """One request of an Anthropic Message Batch (``custom_id``, ``params``).

    ``custom_id`` is 1 to 64 letters, digits, ``_`` or ``-``, as the API requires."""
    if not _ANTHROPIC_ID.fullmatch(custom_id):
        raise ArgumentError("custom_id", f"{custom_id!r}: Anthropic takes 1 to 64 letters, digits, '_' or '-'",
                            function="anthropic_batch")
    params, losses = _project("anthropic", history, model, tools, settings, to_wire)
    _unstream(params, losses, "anthropic_batch")
    return Line({"custom_id": custom_id, "params": params}, tuple(losses))


def bedrock_batch(history: History, *, record_id: str, model: str, tools: Tools = (),
                  settings: Settings = None, **to_wire: Any) -> Line:
    """A Bedrock batch inference record for a job of the ``Converse`` invocation type: the
    Converse request body as ``modelInput`` (the job names the model, so the body does not);
    inline image and document bytes are base64 text in the JSON line."""
    if not record_id:
        raise ArgumentError("record_id", "must not be empty", function="bedrock_batch")
    body, losses = _project("bedrock", history, model, tools, settings, to_wire)
    body.pop("modelId", None)
    return Line({"recordId": record_id, "modelInput": body}, tuple(losses))


def _unstream(body: dict[str, Any], losses: list[Loss], fmt: str) -> None:
    if "stream" in body:
        del body["stream"]
        losses.append(_dropped(fmt, "request.stream", "setting", "batch requests are not streamed"))
    body.pop("stream_options", None)


# -- TRL ------------------------------------------------------------------------------------------


def trl_row(history: History, *, tools: Tools = ()) -> Line:
    """A TRL conversational row: ``messages`` (``role``, ``content``, ``reasoning_content``,
    ``tool_calls``, ``name``, ``tool_call_id``; every key on every message, so the rows have one
    Arrow schema) and ``tools`` (the function tools' JSON schemas, as JSON text).

    A tool call's ``arguments`` is its JSON text, as the model wrote it (chat templates accept a
    string). Text is all a TRL message holds: media, signatures, server tools, non-message events
    and the tool status are losses."""
    fmt = "trl"
    losses: list[Loss] = []
    messages: list[dict[str, Any]] = []
    for i, event in enumerate(history):
        path = f"history[{i}]"
        if isinstance(event, _messages.SystemMessage | _messages.DeveloperMessage | _messages.UserMessage):
            role = "user" if isinstance(event, _messages.UserMessage) else "system"
            if isinstance(event, _messages.DeveloperMessage):
                losses.append(Loss(path=path, part_type="developer_message", action="rewritten",
                                   reason="TRL has no developer role: sent as system", adapter=fmt,
                                   message_id=event.id))
            text = _text_only(event.parts, path, event.id, fmt, losses)
            messages.append(_trl_message(role, text))
        elif isinstance(event, _messages.AssistantMessage):
            texts: list[str] = []
            reasoning: list[str] = []
            calls: list[dict[str, Any]] = []
            for k, part in enumerate(event.parts):
                where = f"{path}.parts[{k}]"
                if isinstance(part, TextPart):
                    texts.append(part.text)
                elif isinstance(part, ThinkingPart):
                    reasoning.append(part.text)
                    if part.signature is not None:
                        losses.append(_dropped(fmt, where, "thinking",
                                               "the signature has no place in a TRL row (the text is kept)",
                                               event.id))
                elif isinstance(part, ToolCallPart):
                    calls.append({"id": part.id, "type": "function",
                                  "function": {"name": part.name, "arguments": part.arguments_json}})
                else:
                    losses.append(_dropped(fmt, where, part.type, "a TRL message holds text, reasoning "
                                           "and tool calls only", event.id))
            messages.append(_trl_message("assistant", "".join(texts),
                                         reasoning="\n\n".join(reasoning) if reasoning else None,
                                         calls=calls or None))
        elif isinstance(event, _messages.ToolMessage):
            for k, part in enumerate(event.parts):
                losses.append(_dropped(fmt, f"{path}.parts[{k}]", part.type,
                                       "a TRL tool message holds its text output only", event.id))
            if event.status != "success":
                losses.append(_dropped(fmt, f"{path}.status", "tool_message",
                                       f"TRL has no tool status ({event.status}); the output is kept",
                                       event.id))
            messages.append(_trl_message("tool", event.output_text, name=event.tool_name,
                                         call_id=event.call_id))
        else:
            losses.append(_dropped(fmt, path, event.type, "a TRL row holds messages only", event.id))
    schemas = []
    for k, tool in enumerate(tools):
        if isinstance(tool, ToolDefinition):
            schemas.append({"type": "function", "function": {
                "name": tool.name, "description": tool.description, "parameters": tool.input_schema}})
        else:
            losses.append(_dropped(fmt, f"tools[{k}]", "tool", "TRL rows hold function tools only"))
    return Line({"messages": messages, "tools": json.dumps(schemas, ensure_ascii=False)}, tuple(losses))


def _trl_message(role: str, content: str, *, reasoning: str | None = None,
                 calls: list[dict[str, Any]] | None = None, name: str | None = None,
                 call_id: str | None = None) -> dict[str, Any]:
    return {"role": role, "content": content, "reasoning_content": reasoning, "tool_calls": calls,
            "name": name, "tool_call_id": call_id}


def _text_only(parts: Sequence[Any], path: str, message_id: str, fmt: str, losses: list[Loss]) -> str:
    texts = []
    for k, part in enumerate(parts):
        if isinstance(part, TextPart):
            texts.append(part.text)
        else:
            losses.append(_dropped(fmt, f"{path}.parts[{k}]", part.type, "a TRL message holds text only",
                                   message_id))
    return "".join(texts)


# -- batch output ---------------------------------------------------------------------------------


def read_batch_output(source: str | os.PathLike[str] | Iterable[str | bytes | Mapping[str, Any]], *,
                      api: Literal["openai", "anthropic"]) -> dict[str, _messages.AssistantMessage | ErrorEvent]:
    """A batch output file (a path, or its lines) as ``{custom_id: response}``: each answer as the
    canonical assistant message its adapter reads, each failed request as an ``ErrorEvent``.

    ``api="openai"`` reads the Batch API's output and error files (Chat Completions and Responses
    bodies alike); ``api="anthropic"`` reads a Message Batch's results. A line of another shape
    raises :class:`~partwire.errors.DecodeError` naming the line."""
    if api not in ("openai", "anthropic"):
        raise ArgumentError("api", f"expected 'openai' or 'anthropic', not {api!r}", function="read_batch_output")
    name = os.fspath(source) if isinstance(source, str | os.PathLike) else None
    found: dict[str, _messages.AssistantMessage | ErrorEvent] = {}
    for number, record in _records(source, name):
        try:
            custom_id, result = _openai_result(record) if api == "openai" else _anthropic_result(record)
        except (KeyError, TypeError, AttributeError) as exc:
            raise DecodeError(f"not an {api} batch output line (no {exc})", file=name, line=number) from exc
        except PartwireError as exc:
            raise DecodeError(f"the response does not read: {exc}", file=name, line=number) from exc
        found[custom_id] = result
    return found


def _records(source: Any, name: str | None) -> Iterator[tuple[int, Mapping[str, Any]]]:
    if name is not None:
        with open(name, encoding="utf-8") as handle:
            yield from _parse(handle, name)
    else:
        yield from _parse(source, None)


def _parse(lines: Iterable[Any], name: str | None) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for number, line in enumerate(lines, 1):
        if isinstance(line, Mapping):
            yield number, line
            continue
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise DecodeError(f"not JSON: {exc}", file=name, line=number) from exc
        if not isinstance(value, dict):
            raise DecodeError(f"expected a JSON object, got {type(value).__name__}", file=name, line=number)
        yield number, value


def _openai_result(record: Mapping[str, Any]) -> tuple[str, _messages.AssistantMessage | ErrorEvent]:
    custom_id = record["custom_id"]
    error = record.get("error")
    if error:
        return custom_id, ErrorEvent(code=error.get("code"), message=error.get("message") or "batch request failed",
                                     provider="openai")
    response: Mapping[str, Any] = record["response"]
    status = response["status_code"]
    body: Mapping[str, Any] = response["body"]
    if status != 200:
        failure = body.get("error") or {}
        return custom_id, ErrorEvent(code=failure.get("code") or failure.get("type"),
                                     message=failure.get("message") or f"HTTP {status}", provider="openai",
                                     status=status, retryable=status in (408, 429) or status >= 500)
    api = "openai_responses" if body.get("object") == "response" else "openai_chat"
    return custom_id, get_adapter(api).from_wire(body)


def _anthropic_result(record: Mapping[str, Any]) -> tuple[str, _messages.AssistantMessage | ErrorEvent]:
    custom_id = record["custom_id"]
    result = record["result"]
    kind = result["type"]
    if kind == "succeeded":
        return custom_id, get_adapter("anthropic").from_wire(result["message"])
    if kind == "errored":
        error: Mapping[str, Any] = result.get("error") or {}
        nested = error.get("error")
        inner: Mapping[str, Any] = nested if isinstance(nested, dict) else error
        return custom_id, ErrorEvent(code=inner.get("type"), message=inner.get("message") or "errored",
                                     provider="anthropic")
    # canceled, expired: the request never ran; sending it again may succeed.
    return custom_id, ErrorEvent(code=kind, message=f"the batch request was {kind}", provider="anthropic",
                                 retryable=True)


def attach(histories: Mapping[str, Sequence[HistoryEvent]],
           results: Mapping[str, _messages.AssistantMessage | ErrorEvent]) -> dict[str, list[HistoryEvent]]:
    """Each history with its batch result appended, matched by ``custom_id`` (histories without
    a result are returned as they were)."""
    return {key: [*events, results[key]] if key in results else list(events) for key, events in histories.items()}
