"""The Gemini half of the shared wire laws: responses, chunk streams and its view of a part."""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import strategies as st

from partwire import (
    AssistantMessage,
    Opaque,
    Part,
    ProviderData,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import google
from partwire.adapters.google._wire import FINISH_REASONS
from partwire.history import HistoryEvent
from tests.harness.laws import JSON_VALUES, WireLaws, object_arguments_view

__all__ = ["LAWS"]

MODEL = "gemini-3-flash-preview"

_text = st.text(min_size=1, max_size=20)
_sig = st.binary(min_size=8, max_size=40).map(lambda b: base64.b64encode(b).decode())
_ident = st.from_regex(r"[a-z0-9]{8}", fullmatch=True)
_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,15}", fullmatch=True)


def _pd(data: dict[str, Any]) -> ProviderData:
    return ProviderData(issuer="google", data=data)


@st.composite
def _call(draw: st.DrawFn, signed: bool) -> ToolCallPart:
    args = draw(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4))
    wire_id = draw(st.none() | _ident)
    data: dict[str, Any] = {}
    if signed:
        data = {"thoughtSignature": draw(_sig), "model": MODEL}
    if wire_id is None:
        data["no_id"] = True
    return ToolCallPart(id=f"tu_{draw(_ident)}", name=draw(_names),
                        arguments_json=json.dumps(args, ensure_ascii=False),
                        provider_ids={"google": wire_id} if wire_id else {},
                        provider_data=_pd(data) if data else None)


@st.composite
def echoable(draw: st.DrawFn) -> AssistantMessage:
    """An assistant message as Gemini's decoder gives it: thoughts, text, calls, signatures anywhere."""
    parts: list[Part] = []
    for _ in range(draw(st.integers(0, 2))):
        sig = draw(st.none() | _sig)
        parts.append(ThinkingPart(text=draw(_text),
                                  signature=Opaque(value=sig, issuer="google", model=MODEL) if sig else None,
                                  provider_data=None if sig else _pd({"model": MODEL})))
    for _ in range(draw(st.integers(0, 2))):
        sig = draw(st.none() | _sig)
        parts.append(TextPart(text=draw(_text),
                              provider_data=_pd({"thoughtSignature": sig, "model": MODEL}) if sig else None))
    count = draw(st.integers(0 if parts else 1, 3))
    parts += [draw(_call(signed=k == 0)) for k in range(count)]
    raw = draw(st.sampled_from(sorted(FINISH_REASONS)))
    stop = FINISH_REASONS[raw]
    if stop == "stop" and any(isinstance(p, ToolCallPart) for p in parts):
        stop = "tool_use"
    return AssistantMessage(parts=tuple(parts), model=f"google:{MODEL}", provider="google", api="google",
                            response_id=draw(_ident), stop_reason=stop, stop_reason_raw=raw)


def response_shaped(content: dict[str, Any], message: AssistantMessage) -> dict[str, Any]:
    """A response body whose candidate is ``content``, as the server would have sent it."""
    return {"candidates": [{"content": {**content, "role": "model"}, "finishReason": message.stop_reason_raw,
                            "index": 0}], "modelVersion": MODEL, "responseId": message.response_id}


@st.composite
def chunked(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A response body and a stream of chunks that carries the same message, cut anywhere."""
    message = draw(echoable())
    content = google.to_wire([UserMessage("q"), message], model=MODEL).request["contents"][1]
    body = response_shaped(content, message)
    head = {"modelVersion": MODEL, "responseId": message.response_id}

    def chunk(parts: list[dict[str, Any]], finish: bool = False) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            cand["finishReason"] = message.stop_reason_raw
        return {"candidates": [cand], **head}

    chunks: list[dict[str, Any]] = []
    whole: list[dict[str, Any]] = []
    parts = content["parts"]
    for n, part in enumerate(parts):
        nxt = parts[n + 1] if n + 1 < len(parts) else None
        mergeable_next = nxt is not None and "text" in nxt and bool(nxt.get("thought")) == bool(
            part.get("thought")) and "text" in part
        if "text" in part:
            text = part["text"]
            cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=3)))
            pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
            flag = {"thought": True} if part.get("thought") else {}
            if mergeable_next:
                # Two text parts of one kind side by side are one part in a stream; keep them apart
                # in the body too, by sending this one whole with nothing mergeable after it.
                return body, [chunk(parts, finish=True)]
            for piece in pieces[:-1]:
                chunks.append(chunk([{"text": piece, **flag}]))
            last = {"text": pieces[-1], **flag}
            if "thoughtSignature" in part:
                if draw(st.booleans()):  # the signature on an empty part after the text
                    chunks.append(chunk([last]))
                    last = {"text": "", **flag, "thoughtSignature": part["thoughtSignature"]}
                else:
                    last["thoughtSignature"] = part["thoughtSignature"]
            chunks.append(chunk([last]))
        else:
            chunks.append(chunk([part]))
        whole.append(part)
    chunks.append(chunk([], finish=True))
    return body, chunks




def _response_for(message: AssistantMessage, variant: str = "") -> dict[str, Any]:
    """The response body Gemini sends for ``message``: its content as ``to_wire`` writes it."""
    projection = google.to_wire([UserMessage("q"), message], model=MODEL)
    assert projection.losses == (), projection.losses
    return response_shaped(projection.request["contents"][1], message)


def _view(part: Part, event: HistoryEvent) -> dict[str, Any] | None:
    """A part as the model is told it by Gemini: arguments as an object, a refusal as text."""
    data = object_arguments_view(part, event)
    if data is None:
        return None
    for name in ("title", "filename", "detail"):  # no field of Gemini's parts holds them
        data.pop(name, None)
    if data.get("type") == "refusal":
        data["type"] = "text"  # Gemini has no refusal part: it travels as text (a reported loss)
    return data


def _tool_view(message: ToolMessage) -> Any:
    """The text, or the structured data when there is no text (an imported JSON result's text is
    its data written out)."""
    if message.data is not None and (not message.output_text or message.output_text == json.dumps(
            message.data, ensure_ascii=False)):
        return message.data
    return message.output_text


LAWS = WireLaws(
    messages=lambda variant: echoable(),
    response_for=_response_for,
    streams=lambda variant: chunked(),
    model=MODEL,
    view=_view,
    tool_view=_tool_view,
    foreign_issuers=frozenset({"google"}),
)
"""The Gemini wire laws."""
