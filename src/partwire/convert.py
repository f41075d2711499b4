"""Convert between the canonical form and provider wire formats (``partwire convert``).

A *format* is ``canonical`` (a history as JSONL bytes or text, or a list of events) or an
adapter name (``anthropic``; ``openai-chat`` and the others as they land). From a wire format,
a request body becomes a history (``from_wire_request``) and a response body becomes one
assistant message (``from_wire``); to a wire format, the history becomes a request body
(``to_wire``). Every conversion returns what it lost beside its output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire.adapters import get_adapter
from partwire.codec import MAX_DEPTH, dumps, loads
from partwire.codec._limits import exceeds_depth
from partwire.errors import LossError, WireFormatError
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.messages import AssistantMessage
from partwire.projection import Loss

if TYPE_CHECKING:
    from partwire.adapters._common import ImportedRequest

__all__ = ["CANONICAL", "convert"]

CANONICAL = "canonical"
"""The name of the canonical format."""

# Top-level keys that mark a body as a request (Anthropic/Chat "messages", Gemini "contents",
# Responses "input"); anything else is read as a response.
_REQUEST_KEYS = ("messages", "contents", "input")


def convert(data: Any, *, source: str, target: str, model: str | None = None,
            strict: bool = False) -> tuple[Any, tuple[Loss, ...]]:
    """Convert ``data`` from ``source`` to ``target``; returns ``(output, losses)``.

    The output is JSONL ``bytes`` for ``canonical``, a request body (``dict``) for an adapter.
    ``model`` names the model of a request body; without it, a request read from the same
    adapter keeps its own, else the last assistant message's model is used when it belongs to
    the target. ``strict=True`` raises :class:`~partwire.errors.LossError` on any loss.
    """
    history, imported = _read(data, source)
    losses: list[Loss] = []
    if target == CANONICAL:
        if imported is not None and (imported.tools or imported.params or imported.tool_choice):
            losses.append(Loss("request", "request", "dropped",
                               "a canonical history holds no tool definitions or request "
                               "parameters", _name(source)))
        if strict and losses:
            raise LossError(tuple(losses), _name(source))
        return dumps(history), tuple(losses)
    adapter = get_adapter(target)
    kwargs: dict[str, Any] = {}
    own_model: str | None = None
    if imported is not None:
        kwargs = imported.to_wire_kwargs()
        own_model = kwargs.pop("model") or None
        if _name(source) != adapter.NAME:
            # Body fields belong to the API that defined them; tools and limits carry over.
            own_model = None
            if kwargs["params"]:
                losses.append(Loss("request", "request", "dropped",
                                   f"request fields {sorted(kwargs['params'])} are specific to "
                                   f"{source}", adapter.NAME))
            kwargs["params"] = {}
            if isinstance(kwargs["tool_choice"], dict):
                losses.append(Loss("request.tool_choice", "request", "dropped",
                                   f"a {source} tool_choice does not apply to {target}",
                                   adapter.NAME))
                kwargs["tool_choice"] = None
    chosen = model or own_model or _last_model(history, adapter.CAPABILITIES.issuer)
    if not chosen:
        raise ValueError(f"converting to {target} needs a model: pass model=")
    if strict and losses:
        raise LossError(tuple(losses), adapter.NAME)
    projection = adapter.to_wire(history, model=chosen, strict=strict, **kwargs)
    return projection.request, (*losses, *projection.losses)


def _read(data: Any, source: str) -> tuple[list[HistoryEvent], ImportedRequest | None]:
    if source == CANONICAL:
        return _read_canonical(data), None
    adapter = get_adapter(source)
    body = _body(data, adapter.NAME)
    # A bare list is a stored chat log (OpenAI's list of messages): a request without its body.
    if isinstance(body, list) or (isinstance(body, dict) and any(key in body for key in _REQUEST_KEYS)):
        imported = adapter.from_wire_request(body)
        return list(imported.history), imported
    return [adapter.from_wire(body)], None


def _body(data: Any, api: str) -> Any:
    """The JSON of a wire body given as text, bytes or parsed JSON; an object or a list, or a WireFormatError."""
    if isinstance(data, str | bytes | bytearray):
        if exceeds_depth(bytes(data) if not isinstance(data, str) else data, MAX_DEPTH):
            raise WireFormatError(api, "body", f"JSON nested deeper than {MAX_DEPTH} levels")
        try:
            data = json.loads(data)
        except UnicodeDecodeError as exc:
            raise WireFormatError(api, "body", f"not UTF-8: {exc.reason} at byte {exc.start}") from exc
        except json.JSONDecodeError as exc:
            raise WireFormatError(api, "body", f"invalid JSON: {exc.msg} at line {exc.lineno} "
                                               f"column {exc.colno}") from exc
        except (ValueError, RecursionError) as exc:
            raise WireFormatError(api, "body", f"invalid JSON: {exc}") from exc
    elif callable(getattr(data, "to_dict", None)):  # an SDK object: its dump of what the server sent
        data = data.to_dict(mode="json")
    elif callable(getattr(data, "model_dump", None)):
        data = data.model_dump(mode="json", exclude_unset=True, by_alias=True)
    elif isinstance(data, Mapping):
        data = dict(data)
    if not isinstance(data, dict | list):
        raise WireFormatError(api, "body", f"a JSON {_json_kind(data)}, not an object (a request or response body)")
    return data


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__ if not isinstance(value, list | dict) else "array"


def _read_canonical(data: Any) -> list[HistoryEvent]:
    if isinstance(data, bytes | bytearray | str):
        # Strict: a conversion of a damaged history would hide the damage; the error names the
        # line, and `partwire validate` / `rewrite` are the tools for repairing it first.
        return loads(bytes(data) if not isinstance(data, str) else data, strict=True)
    if isinstance(data, Sequence):
        return [e if not isinstance(e, dict) else EVENT_ADAPTER.validate_python(e) for e in data]
    raise TypeError(f"canonical input must be JSONL bytes or text or a list of events, "
                    f"not {type(data).__name__}")


def _last_model(history: list[HistoryEvent], issuer: str) -> str | None:
    for event in reversed(history):
        if isinstance(event, AssistantMessage) and event.model and event.model.startswith(f"{issuer}:"):
            return event.model
    return None


def _name(fmt: str) -> str:
    return fmt.replace("-", "_")
