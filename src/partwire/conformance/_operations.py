"""partwire's own answers to the protocol's requests, and checking a case in process.

:func:`perform` takes one protocol request (``{"operation", "api", "input"}``) and gives the
reply partwire's reference implementation makes: ``{"output": ...}`` or ``{"error": {"kind",
"message"}}``. ``partwire conformance serve`` is this function on a loop over standard input;
:func:`check_case` runs one case on an adapter object in this process (a third-party adapter
module implementing :class:`~partwire.adapters.Adapter` included) and judges the reply.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Mapping
from typing import Any

from partwire.adapters import Adapter, get_adapter
from partwire.codec import encode, iter_records
from partwire.codec import read as read_history
from partwire.conformance._cases import API_NAMES, OPERATIONS, Case
from partwire.conformance._compare import CaseResult, judge
from partwire.errors import (
    DecodeError,
    LossError,
    PartwireError,
    ProviderError,
    StreamProtocolError,
    WireFormatError,
)
from partwire.streaming import accumulate
from partwire.tools import ServerToolDefinition, ToolDefinition

__all__ = ["ERROR_KINDS", "check_case", "error_kind", "perform"]

ERROR_KINDS: dict[str, str] = {
    "wire_format": "the input does not have the shape its API defines (another API's body, say)",
    "provider_error": "the response is the provider's error body",
    "decode_error": "a history line cannot be decoded",
    "stream_protocol": "a stream event does not fit the part it addresses",
    "loss": "a strict projection would lose data",
    "invalid_input": "any other input the implementation refuses",
    "unsupported": "the implementation does not do this operation or API (the case is skipped)",
}
"""The error kinds a reply may carry, and what each means."""


def error_kind(exc: BaseException) -> str:
    """The protocol's error kind for an exception partwire raised."""
    for kind, types in (("wire_format", WireFormatError), ("provider_error", ProviderError),
                        ("decode_error", DecodeError), ("stream_protocol", StreamProtocolError),
                        ("loss", LossError)):
        if isinstance(exc, types):
            return kind
    return "invalid_input"


def perform(request: Mapping[str, Any], adapter: Adapter | None = None) -> dict[str, Any]:
    """partwire's reply to one protocol request (without the request's ``id``).

    ``adapter`` answers the wire operations instead of partwire's adapter for the request's API.
    Errors partwire raises become ``{"error": {"kind", "message"}}``; anything else propagates.
    """
    operation = request.get("operation")
    if operation not in OPERATIONS:
        return _error("unsupported", f"unknown operation {operation!r}; known: {', '.join(OPERATIONS)}")
    data = request.get("input")
    if not isinstance(data, dict):
        return _error("invalid_input", "the request's input must be a JSON object")
    try:
        if operation == "validate":
            return {"output": _validate(data)}
        if adapter is None:
            api = request.get("api")
            if api not in API_NAMES:
                return _error("unsupported", f"unknown API {api!r}; known: {', '.join(API_NAMES)}")
            adapter = get_adapter(str(api))
        if operation == "to_wire":
            return {"output": _to_wire(adapter, data)}
        if operation == "from_wire":
            return {"output": _from_wire(adapter, data)}
        return {"output": _read_request(adapter, data)}
    except PartwireError as exc:
        return _error(error_kind(exc), str(exc))


def check_case(case: Case, adapter: Adapter) -> CaseResult:
    """Run ``case`` on ``adapter`` in this process and judge the answer.

    ``adapter`` is any object with the :class:`~partwire.adapters.Adapter` surface (an adapter
    module, partwire's or another's); ``validate`` cases use partwire's codec, not the adapter.
    Exceptions other than partwire's errors count as failures, with the exception in the diff.
    """
    try:
        reply = perform(case.request(), adapter)
    except Exception as exc:
        return CaseResult(case, "failed", f"raised {type(exc).__name__}: {exc}")
    return judge(case, reply)


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"kind": kind, "message": message}}


def _json(value: Any) -> Any:
    """Plain JSON of a body; bytes (Bedrock's boto3 arguments) become base64 text, as on the wire."""
    def binary(obj: object) -> str:
        if isinstance(obj, bytes | bytearray):
            return base64.b64encode(obj).decode("ascii")
        raise TypeError(f"{type(obj).__name__} is not JSON")
    return json.loads(json.dumps(value, default=binary, ensure_ascii=False))


def _line(event: Any) -> Any:
    return json.loads(encode(event))


def _history(data: dict[str, Any]) -> list[Any]:
    text = data.get("history", "")
    if not isinstance(text, str):
        raise DecodeError("input.history must be the JSONL text of a history")
    return read_history(io.BytesIO(text.encode("utf-8", "surrogatepass"))).events


def _tools(data: dict[str, Any]) -> list[ToolDefinition | ServerToolDefinition]:
    tools = []
    for spec in data.get("tools", []):
        model = ServerToolDefinition if isinstance(spec, dict) and "kind" in spec else ToolDefinition
        tools.append(model.model_validate(spec))
    return tools


def _to_wire(adapter: Adapter, data: dict[str, Any]) -> dict[str, Any]:
    projection = adapter.to_wire(_history(data), model=str(data.get("model", "")), tools=_tools(data),
                                 settings=data.get("settings"), strict=data.get("strict") is True)
    return {"request": _json(projection.request),
            "losses": [{"path": loss.path, "action": loss.action, "part_type": loss.part_type}
                       for loss in projection.losses]}


def _from_wire(adapter: Adapter, data: dict[str, Any]) -> dict[str, Any]:
    if "response" in data:
        message = adapter.from_wire(data["response"])
    elif "sse" in data:
        message = accumulate(adapter.stream(str(data["sse"]).encode("utf-8")))
    elif "chunks" in data:
        message = accumulate(adapter.stream(list(data["chunks"])))
    else:
        raise WireFormatError(adapter.NAME, "a from_wire input", "it holds none of response, sse, chunks")
    return {"message": _line(message)}


def _read_request(adapter: Adapter, data: dict[str, Any]) -> dict[str, Any]:
    imported = adapter.from_wire_request(data.get("request"))
    tools = [t.model_dump(mode="json") if isinstance(t, ToolDefinition | ServerToolDefinition) else dict(t)
             for t in imported.tools]
    return {"history": [_line(e) for e in imported.history], "tools": _json(tools)}


def _validate(data: dict[str, Any]) -> dict[str, Any]:
    text = data.get("jsonl")
    if not isinstance(text, str):
        raise DecodeError("input.jsonl must be the text of a history file")
    written: list[Any] = []
    problems: list[dict[str, Any]] = []
    for record in iter_records(io.BytesIO(text.encode("utf-8", "surrogatepass"))):
        problems.extend({"line": p.line, "kind": p.kind} for p in record.problems)
        if record.understood:
            written.append(_line(record.event))
        else:
            # What is not understood is written back as it came: its JSON, or null when the
            # line is not JSON at all (torn, malformed).
            try:
                written.append(json.loads(record.raw))
            except ValueError:
                written.append(None)
    return {"written": written, "problems": problems}
