"""Bridge to LangChain: its messages (v1 content blocks) <-> canonical history events, both ways.

The mapping table and what each direction keeps are in ``docs/migrate/langchain.md``.

Import reads each message's standard ``content_blocks`` (LangChain's v1 view, whatever format the
message was stored in) plus ``invalid_tool_calls``; export writes v1 messages
(``response_metadata["output_version"] == "v1"``) with ``tool_calls`` beside the content blocks.
What one side has no field for rides along: LangChain fields in the canonical ``provider_data``
(issuer ``langchain``), checked at import time by rebuilding the message; canonical fields in
``response_metadata["partwire"]``, which LangChain never sends to a model, checked at export
time by importing the result. So ``to_messages(from_messages(m))`` dumps exactly as ``m``, and a
canonical history comes back equal unless a loss says why not.

Requires ``langchain-core`` (``pip install 'partwire[langchain]'``); imported on first call.
"""

from __future__ import annotations

import base64
import json
import warnings
from collections import ChainMap
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, assert_never

from partwire import messages as _messages
from partwire import parts as _parts
from partwire._base import ProviderData, replace
from partwire._media import decode_base64
from partwire.adapters.bedrock.blocks import part_from_wire as converse_part
from partwire.adapters.bedrock.blocks import part_to_wire as converse_block
from partwire.adapters.cohere.blocks import stop_reason_from_wire as cohere_stop_reason
from partwire.adapters.google.blocks import stop_reason_from_wire as gemini_stop_reason
from partwire.bridges import _common
from partwire.bridges._common import UNKNOWN_FIELDS, Export, LossLog
from partwire.history import HistoryEvent, UnknownEvent
from partwire.ids import derive_id
from partwire.usage import Usage

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["ISSUER", "NAME", "from_messages", "read_dump", "to_messages"]

NAME = "langchain"
"""The bridge's name, as losses name it."""
ISSUER = "langchain"
"""The issuer of the ``provider_data`` this bridge writes and reads back."""

_MISSING = object()
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
# Provider stop reasons as LangChain passes them through (Anthropic's, OpenAI's and Bedrock
# Converse's words; Converse's normalised as the Bedrock adapter does).
_STOPS: dict[str, _messages.StopReason] = {
    "end_turn": "stop", "stop": "stop", "stop_sequence": "stop", "max_tokens": "length",
    "length": "length", "tool_use": "tool_use", "tool_calls": "tool_use",
    "content_filter": "content_filter", "refusal": "refusal", "pause_turn": "pause",
    "model_context_window_exceeded": "length", "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter", "malformed_model_output": "error",
    "malformed_tool_use": "error",
}
# LangChain's model_provider names that are not partwire's issuer names, and back.
# langchain-aws's ChatBedrockConverse says bedrock_converse, its ChatBedrock (InvokeModel)
# bedrock; either's reasoning signatures are Bedrock's. langchain-google-genai's chat model says
# google_genai (on the Gemini API and on Vertex AI alike), langchain-google-vertexai's
# ChatVertexAI google_vertexai; both carry Gemini's thought signatures, which Vertex and the
# Gemini API share. An export names the integration whose input conversion treats the blocks as
# its own (echoes a v1 reasoning block's signature): ChatBedrockConverse, ChatGoogleGenerativeAI.
_PROVIDERS = {"bedrock_converse": "bedrock", "google_genai": "google", "google_vertexai": "google"}
_LC_PROVIDERS = {"bedrock": "bedrock_converse", "google": "google_genai"}
_GOOGLE = "google"
# langchain-google-genai keeps a function call's thought signature beside the message's calls,
# keyed by call id (a text part's in its block's extras).
_GEMINI_SIGNATURES = "__gemini_function_call_thought_signatures__"
# Where each provider's integration keeps the raw stop reason in response_metadata.
_STOP_KEYS = {"anthropic": "stop_reason", "bedrock": "stopReason"}
# Canonical fields that LangChain has no place for; carried in response_metadata["partwire"].
_CARRIED = ("id", "created_at", "metadata", "parent_id", "status", "stop_reason", "stop_reason_raw",
            "api", "response_id", "routing", "usage", "call_id", "tool_name", "data",
            "started_at", "finished_at", "truncated", "full_output_ref", "ui_extra", "side_effects",
            "model", "provider", "output_text")
_DEVELOPER = {"__openai_role__": "developer"}  # how LangChain's OpenAI integration marks one


def from_messages(messages: Sequence[BaseMessage]) -> list[HistoryEvent]:
    """Import LangChain messages (any content format) as canonical history events."""
    _common.require("langchain_core", "langchain")
    ctx = _Context()
    return [_from_lc(i, m.model_dump(), ctx) for i, m in enumerate(messages)]


def read_dump(data: bytes | str | Sequence[Mapping[str, Any]]) -> list[HistoryEvent]:
    """Import a JSON dump of LangChain messages.

    Takes ``messages_to_dict`` output (``[{"type": "human", "data": {...}}]``), ``dumpd`` output
    (``{"lc": 1, "type": "constructor", ...}`` per message), or plain message dicts
    (``[{"type": "human", "content": ...}]``).
    """
    _common.require("langchain_core", "langchain")
    from langchain_core.load import load
    from langchain_core.messages import convert_to_messages, messages_from_dict

    items = json.loads(data) if isinstance(data, bytes | bytearray | str) else list(data)
    if not isinstance(items, list):
        raise ValueError(f"a LangChain dump is a JSON list of messages, not {type(items).__name__}")
    messages: list[BaseMessage] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"message {i} of the dump is not a JSON object")
        if item.get("lc") == 1:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # load() is marked beta; its message subset is stable
                # A dump is untrusted input: let it construct chat messages and nothing else.
                messages.append(load(item, allowed_objects="messages"))
        elif set(item) == {"type", "data"}:
            messages.extend(messages_from_dict([item]))
        else:
            messages.extend(convert_to_messages([item]))
    return from_messages(messages)


def to_messages(history: Sequence[HistoryEvent], *, strict: bool = False) -> Export[BaseMessage]:
    """Export canonical events as LangChain v1 messages, with a loss for what they cannot hold.

    ``strict=True`` raises :class:`~partwire.errors.LossError` instead of losing anything.
    """
    _common.require("langchain_core", "langchain")
    from langchain_core.messages import messages_from_dict

    log = LossLog(NAME)
    out_ctx, trial_ctx = _Context(), _Context()
    dumps: list[dict[str, Any]] = []
    for i, event in enumerate(history):
        path = f"history[{i}]"
        if not isinstance(event, _messages.SystemMessage | _messages.DeveloperMessage | _messages.UserMessage
                          | _messages.AssistantMessage | _messages.ToolMessage):
            log.add(path, event.type, "dropped", f"a LangChain message list has no {event.type} event",
                    event.id)
            continue
        dumped = _to_lc(event, out_ctx, log, path)
        # Import the result to see which canonical fields it would not bring back; carry those.
        back = _from_lc(len(dumps), dumped, trial_ctx, verify=False)
        carried = _differences(event, back)
        calls = {out_ctx.lc_ids[p.id]: p.id for p in event.parts if isinstance(p, _parts.ToolCallPart)
                 and derive_id(ISSUER, out_ctx.lc_ids[p.id], prefix="tu_") != p.id}
        if calls:
            carried["calls"] = calls  # canonical ids import would not derive from LangChain's
        spelled = {p.id: p.arguments_json for p in event.parts if isinstance(p, _parts.ToolCallPart)
                   and (args := _object_args(p.arguments_json)) is not None
                   and _common.compact_json(args) != p.arguments_json}
        if spelled:
            carried["arguments"] = spelled  # the exact text of arguments LangChain holds as objects
        signatures = {_standard_base64(sig): sig for p in event.parts
                      if (sig := _gemini_signature(p)) is not None and _standard_base64(sig) != sig}
        if signatures:
            carried["signatures"] = signatures  # Gemini signatures as spelled before LangChain's form
        if _common.extras_of(event.provider_data, ISSUER).get("untimed"):
            carried.pop("created_at", None)  # LangChain gave it no time; import gives it one
        if carried:
            dumped["response_metadata"] = {**dumped["response_metadata"], "partwire": carried}
        dumps.append(dumped)
    messages = messages_from_dict([{"type": d["type"], "data": d} for d in dumps])
    return log.finish(messages, strict=strict)


@dataclass
class _Context:
    """Tool-call ids seen so far, both ways."""

    lc_ids: MutableMapping[str, str] = field(default_factory=dict)  # canonical -> LangChain
    canonical: MutableMapping[str, str] = field(default_factory=dict)  # LangChain -> canonical
    signatures: Mapping[str, Any] = field(default_factory=dict)  # the message's Gemini call signatures

    def call_id(self, lc_id: str) -> str:
        return self.canonical.get(lc_id) or derive_id(ISSUER, lc_id, prefix="tu_")

    def trial(self) -> _Context:
        """A context that reads this one and writes only itself: a trial encoding learns the ids
        it makes without touching this one, and without the copy of every id seen so far that
        made an import quadratic in its tool calls."""
        return _Context(ChainMap({}, self.lc_ids), ChainMap({}, self.canonical))


def _differences(event: HistoryEvent, back: HistoryEvent) -> dict[str, Any]:
    a = event.model_dump(mode="json")
    b = back.model_dump(mode="json")
    carried = {k: a[k] for k in _CARRIED if k in a and a[k] != b.get(k, _MISSING)}
    if unknown := _common.unknown_fields(event):
        carried[UNKNOWN_FIELDS] = unknown
    return carried


def _mark(model: Any, data: dict[str, Any]) -> Any:
    merged = {**_common.extras_of(model.provider_data, ISSUER), **_jsonable(data)}
    return replace(model, provider_data=ProviderData(issuer=ISSUER, data=merged))


# ---------------------------------------------------------------------------------------------
# LangChain -> canonical


def _from_lc(i: int, dumped: dict[str, Any], ctx: _Context, *, verify: bool = True) -> HistoryEvent:
    from langchain_core.messages import messages_from_dict

    kind = dumped.get("type")
    role = _ROLES.get(kind) if isinstance(kind, str) else None
    carried = as_carried = dumped.get("response_metadata", {}).get("partwire")
    spelled: dict[str, Any] = {}
    respelled: dict[str, Any] = {}
    if isinstance(carried, dict):
        carried = dict(carried)
        if isinstance(carried.get("calls"), dict):
            ctx.canonical.update(carried.pop("calls"))
        if isinstance(carried.get("arguments"), dict):
            spelled = carried.pop("arguments")
        if isinstance(carried.get("signatures"), dict):
            respelled = carried.pop("signatures")
    message = messages_from_dict([{"type": kind, "data": dumped}])[0] if role else None
    common: dict[str, Any] = {"id": dumped.get("id") or derive_id(ISSUER, str(i))}
    if message is None:
        return UnknownEvent(original_type=f"{ISSUER}:{kind}", raw=dumped, **common)
    lc_provider = dumped.get("response_metadata", {}).get("model_provider")
    issuer = _PROVIDERS.get(lc_provider, lc_provider) or ISSUER
    blocks: list[dict[str, Any]] = [dict(b) for b in message.content_blocks]
    signatures = dumped.get("additional_kwargs", {}).get(_GEMINI_SIGNATURES)
    ctx.signatures = signatures if isinstance(signatures, dict) else {}
    if kind == "ai":
        blocks += [dict(b) for b in dumped.get("invalid_tool_calls") or []]
    parts = tuple(_part_from_block(b, issuer, ctx) for b in blocks)
    if respelled:
        parts = tuple(replace(p, provider_data=_gemini_data(respelled[sig]))
                      if (sig := _gemini_signature(p)) is not None and isinstance(respelled.get(sig), str) else p
                      for p in parts)
    if spelled:
        parts = tuple(replace(p, arguments_json=spelled[p.id])
                      if isinstance(p, _parts.ToolCallPart) and isinstance(spelled.get(p.id), str) else p
                      for p in parts)
    if kind != "tool":  # a tool message's text is its output text, which holds no provider data
        parts = _fold_cache_points(parts)
    event: HistoryEvent
    if kind == "human":
        event = _messages.UserMessage(parts=parts, **common)
    elif kind == "system":
        developer = all(dumped.get("additional_kwargs", {}).get(k) == v for k, v in _DEVELOPER.items())
        cls = _messages.DeveloperMessage if developer else _messages.SystemMessage
        event = cls(parts=parts, **common)
    elif kind == "tool":
        texts = [p.text for p in parts if isinstance(p, _parts.TextPart) and not p.citations]
        event = _messages.ToolMessage(
            call_id=ctx.call_id(dumped.get("tool_call_id") or ""), tool_name=dumped.get("name") or "",
            status="error" if dumped.get("status") == "error" else "success",
            output_text="".join(texts),
            parts=tuple(p for p in parts if not (isinstance(p, _parts.TextPart) and not p.citations)),
            data=dumped.get("artifact"), **common)
    else:
        meta = dumped.get("response_metadata", {})
        provider = _PROVIDERS.get(meta.get("model_provider"), meta.get("model_provider"))
        model_name = meta.get("model_name")
        raw = meta.get("stop_reason") or meta.get("finish_reason") or meta.get("stopReason")
        stop = _STOPS.get(raw) if isinstance(raw, str) else None
        if provider == "google":  # Gemini's finishReason, read as the Google adapter reads it
            stop = gemini_stop_reason(raw, tool_calls=any(isinstance(p, _parts.ToolCallPart) for p in parts))
        elif provider == "cohere":  # langchain-cohere keeps Cohere's own finish_reason (TOOL_CALL)
            stop = cohere_stop_reason(raw)
        event = _messages.AssistantMessage(
            parts=parts, provider=provider,
            model=_common.model_id(provider, model_name),
            stop_reason=stop,
            stop_reason_raw=raw if isinstance(raw, str) else None,
            usage=_usage_from_lc(dumped.get("usage_metadata")), **common)
    if isinstance(carried, dict) and carried:
        event = type(event).model_validate(_common.with_unknown_fields(event.model_dump(), carried))
    untimed = not (isinstance(carried, dict) and "created_at" in carried)
    if not verify:
        return event
    rebuilt = _to_lc(event, ctx.trial(), None, "")
    if isinstance(as_carried, dict) and as_carried:
        rebuilt["response_metadata"] = {**rebuilt["response_metadata"], "partwire": as_carried}
    again = messages_from_dict([{"type": kind, "data": rebuilt}])[0].model_dump()
    extras = _common.differences(dumped, again)
    marks: dict[str, Any] = {"fields": extras} if extras else {}
    if untimed:
        marks["untimed"] = True
    return _mark(event, marks) if marks else event


def _part_from_block(block: dict[str, Any], issuer: str, ctx: _Context) -> _parts.Part:
    kind = block.get("type")
    part: _parts.Part
    if kind == "text":
        signature = (block.get("extras") or {}).get("signature")
        # Only langchain-google-genai signs text blocks: a signature there is Gemini's.
        part = _parts.TextPart(text=block.get("text", ""), provider_data=_gemini_data(signature))
    elif kind == "reasoning" and isinstance(_redacted(block), bytes):
        part = _parts.RedactedThinkingPart(data=_parts.Opaque(value=_b64(_redacted(block)), issuer=issuer))
    elif (native := _converse_native_block(block)) is not None:
        # Converse's own block (guardContent, document, video...): the Bedrock adapter's decoder
        # reads it, so the part is the one that adapter sends back; Bedrock's, whatever the
        # message says of its provider. Its Bedrock marks are its provider data, so a block
        # written in another form (langchain-aws's typed one) is kept by the message's check.
        return converse_part(native)[0]
    elif kind == "non_standard" and isinstance(_converse_redacted(block), bytes):
        # Converse's own block: Bedrock's, whatever the message says of its provider.
        part = _parts.RedactedThinkingPart(data=_parts.Opaque(value=_b64(_converse_redacted(block)), issuer="bedrock"))
    elif kind == "reasoning":
        signature = (block.get("extras") or {}).get("signature")
        part = _parts.ThinkingPart(text=block.get("reasoning", ""),
                                   signature=_parts.Opaque(value=signature, issuer=issuer)
                                   if isinstance(signature, str) else None)
    elif kind in ("tool_call", "invalid_tool_call"):
        lc_id = block.get("id") or ""
        args = block.get("args")
        canonical = ctx.call_id(lc_id)
        part = _parts.ToolCallPart(id=canonical, name=block.get("name") or "",
                                   arguments_json=args if isinstance(args, str) else _common.compact_json(args or {}),
                                   provider_ids={} if lc_id == canonical else {issuer: lc_id})
        ctx.lc_ids[canonical] = lc_id
        ctx.canonical[lc_id] = canonical
        if (data := _gemini_data(ctx.signatures.get(lc_id))) is not None:
            part = replace(part, provider_data=data)
    elif kind == "server_tool_call":
        part = _parts.ServerToolCallPart(id=block["id"], name=block["name"], input=block.get("args"),
                                         issuer=_issuer_of(block, issuer))
    elif kind == "server_tool_result":
        block_type = (block.get("extras") or {}).get("block_type")
        part = _parts.ServerToolResultPart(call_id=block["tool_call_id"], output=block.get("output"),
                                           name=block_type if isinstance(block_type, str) else "",
                                           issuer=_issuer_of(block, issuer))
    elif kind == "refusal":
        part = _parts.RefusalPart(text=block["refusal"])
    elif kind in ("image", "audio", "file") and _source_of(block, issuer) is not None:
        source = _source_of(block, issuer)
        detail = (block.get("extras") or {}).get("detail")
        if kind == "image" and detail in ("auto", "low", "high", "original"):
            part = _parts.ImagePart(source=source, media_type=block.get("mime_type"), detail=detail)
        else:
            kinds: dict[str, type[_parts.ImagePart | _parts.AudioPart | _parts.DocumentPart]] = {
                "image": _parts.ImagePart, "audio": _parts.AudioPart, "file": _parts.DocumentPart}
            cls = kinds[kind]
            part = cls(source=source, media_type=block.get("mime_type"))
            if isinstance(part, _parts.DocumentPart):
                part = replace(part, filename=_filename(block))
    elif kind == "text-plain" and isinstance(block.get("text"), str):
        extras = block.get("extras") or {}
        part = _parts.DocumentPart(source=_parts.TextSource(text=block["text"]), title=block.get("title"),
                                   media_type=extras.get("media_type", "text/plain"), filename=_filename(block))
    elif kind == "non_standard" and isinstance(block.get("value"), dict) \
            and block["value"].get("type") == "redacted_thinking" and isinstance(block["value"].get("data"), str):
        part = _parts.RedactedThinkingPart(data=_parts.Opaque(value=block["value"]["data"], issuer=issuer))
    else:
        return _parts.UnknownPart(original_type=f"{ISSUER}:{kind}", raw=_jsonable(block), issuer=ISSUER)
    rebuilt = _block_from_part(part, issuer, ctx.trial(), None, "")
    extras = _common.differences(block, rebuilt or {})
    if kind == "server_tool_result":
        extras.pop("tool_call_id", None)
    return _mark(part, {"block": extras}) if extras else part


def _fold_cache_points(parts: tuple[_parts.Part, ...]) -> tuple[_parts.Part, ...]:
    """Each Converse ``cachePoint`` block (a non-standard block to LangChain) on the part before
    it, where the Bedrock adapter records one, so a history sent to Bedrock keeps its cache
    points; kept as an unknown part when that part already carries data of its own."""
    out: list[_parts.Part] = []
    for part in parts:
        point = _cache_point(part)
        before = out[-1].provider_data if out else None
        marks = {} if before is None else _converse_marks(before)
        if point is not None and out and not isinstance(out[-1], _parts.UnknownPart) \
                and marks is not None and "cache_point" not in marks:
            out[-1] = replace(out[-1], provider_data=ProviderData(
                issuer="bedrock", data={**marks, "cache_point": point}))
            continue
        out.append(part)
    return tuple(out)


def _cache_point(part: _parts.Part) -> dict[str, Any] | None:
    if not (isinstance(part, _parts.UnknownPart) and part.issuer == ISSUER
            and part.original_type == f"{ISSUER}:non_standard" and isinstance(part.raw, dict)
            and set(part.raw) == {"type", "value"}):
        return None
    value = part.raw["value"]
    if isinstance(value, dict) and set(value) == {"cachePoint"} and isinstance(value["cachePoint"], dict):
        return dict(value["cachePoint"])
    return None


def _converse_point(part: _parts.Part) -> dict[str, Any] | None:
    """The cache point a part carries for Bedrock, when the rest of its provider data (if any)
    is what the Bedrock adapter's encoder writes into the part's block."""
    marks = _converse_marks(part.provider_data)
    point = marks.get("cache_point") if marks is not None else None
    if not isinstance(point, dict) or (set(marks or {}) != {"cache_point"} and _converse_block(part) is None):
        return None
    return dict(point)


def _converse_marks(pd: ProviderData | None) -> dict[str, Any] | None:
    """A part's Bedrock provider data, when it is Bedrock's and a JSON object."""
    if pd is None or pd.issuer != "bedrock" or not isinstance(pd.data, dict):
        return None
    return pd.data


# Converse content-block members the Bedrock adapter's decoder reads into parts and that
# LangChain has no standard block for (langchain-aws sends them as they are).
_CONVERSE_NATIVE = frozenset({"guardContent", "document", "video", "image", "audio"})
# langchain-aws's own typed blocks for them: {"type": "document", "document": {...}}, ...
_LC_AWS_TYPED = frozenset({"document", "video", "image", "audio"})


def _converse_native_block(block: dict[str, Any]) -> dict[str, Any] | None:
    """The Converse block a LangChain block holds verbatim (non-standard to LangChain, or a
    ``video`` block in langchain-aws's form), or None."""
    value = block.get("value") if block.get("type") == "non_standard" else block
    if not isinstance(value, dict):
        return None
    if len(value) == 1 and next(iter(value)) in _CONVERSE_NATIVE and isinstance(next(iter(value.values())), dict):
        return dict(value)
    kind = value.get("type")
    if set(value) == {"type", kind} and kind in _LC_AWS_TYPED and isinstance(value[kind], dict):
        return {kind: value[kind]}
    if set(value) == {"type", "text"} and kind == "guard_content" and isinstance(value["text"], str):
        return {"guardContent": {"text": {"text": value["text"]}}}
    return None


def _converse_block(part: _parts.Part) -> dict[str, Any] | None:
    """The Converse block the Bedrock adapter's own encoder writes for a part that only Bedrock
    can hold as it is (guarded text, media with Bedrock's marks, an unknown Converse block), when
    it writes one with no loss; None for any other part."""
    if part.provider_data is None and not isinstance(part, _parts.UnknownPart):
        return None  # the common case, first
    if isinstance(part, _parts.UnknownPart):
        if part.issuer != "bedrock":
            return None
    elif isinstance(part, _parts.TextPart | _parts.ImagePart | _parts.AudioPart | _parts.DocumentPart):
        found = _converse_marks(part.provider_data)
        if not found or set(found) <= {"cache_point"}:
            return None
    else:
        return None
    block, losses = converse_block(part)
    return block if block is not None and not losses else None


def _redacted(block: dict[str, Any]) -> Any:
    """The encrypted reasoning that langchain-core's Converse translator puts in a reasoning
    block's extras (``redacted_content``, the bytes boto3 gave), when that is all it holds."""
    extras = block.get("extras")
    if block.get("reasoning") or not isinstance(extras, dict) or set(extras) != {"redacted_content"}:
        return None
    return extras["redacted_content"]


def _converse_redacted(block: dict[str, Any]) -> Any:
    """The bytes of a Converse ``{"reasoningContent": {"redactedContent": ...}}`` block carried
    as a non-standard block (the form an export writes, which ChatBedrockConverse sends as is)."""
    value = block.get("value")
    member = value.get("reasoningContent") if isinstance(value, dict) and len(value) == 1 else None
    if not isinstance(member, dict) or set(member) != {"redactedContent"}:
        return None
    return member["redactedContent"]


# The tag of bytes kept in JSON: LangChain messages hold bytes where boto3 gave them (Converse
# images, documents, redacted reasoning), and canonical data is JSON.
_BYTES = "partwire_bytes"


def _jsonable(value: Any) -> Any:
    """``value`` with every ``bytes`` as ``{"partwire_bytes": <base64>}``."""
    if isinstance(value, bytes | bytearray):
        return {_BYTES: _b64(bytes(value))}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def _unjson(value: Any) -> Any:
    """The inverse of :func:`_jsonable`."""
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get(_BYTES), str):
            return base64.b64decode(value[_BYTES])
        return {k: _unjson(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unjson(v) for v in value]
    return value


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _gemini_data(signature: Any) -> ProviderData | None:
    """A Gemini thought signature on a text part or function call, as the Google adapter keeps it."""
    return ProviderData(issuer=_GOOGLE, data={"thoughtSignature": signature}) \
        if isinstance(signature, str) and signature else None


def _gemini_signature(part: _parts.Part) -> str | None:
    """The Gemini thought signature a text part or call carries in its provider data (the Google
    adapter's form), when that is what the data holds (beside the signing model and the mark of a
    call without an id, which LangChain does not keep)."""
    marks = _gemini_marks(part)
    if not isinstance(part, _parts.TextPart | _parts.ToolCallPart) or not set(marks) <= {"thoughtSignature", "model", "no_id"}:
        return None
    signature = marks.get("thoughtSignature")
    return signature if isinstance(signature, str) and signature else None


def _gemini_marks(part: _parts.Part) -> dict[str, Any]:
    pd = part.provider_data
    return pd.data if pd is not None and pd.issuer == _GOOGLE and isinstance(pd.data, dict) else {}


def _standard_base64(signature: str) -> str:
    """A Gemini signature in standard, padded base64, the only form langchain-google-genai
    decodes (google-genai's own dumps are URL-safe and unpadded; Gemini reads either)."""
    try:
        raw = base64.urlsafe_b64decode(signature.replace("+", "-").replace("/", "_") + "=" * (-len(signature) % 4))
    except ValueError:
        return signature
    return _b64(raw)


def _filename(block: dict[str, Any]) -> str | None:
    extras = block.get("extras")
    name = extras.get("filename") if isinstance(extras, dict) else None
    return name if isinstance(name, str) else None


def _issuer_of(block: dict[str, Any], issuer: str) -> str:
    """Who issued a block: the message's provider, unless the block's extras name another (an
    export names one there whenever the part's issuer is not the message's provider)."""
    extras = block.get("extras")
    owner = extras.get("issuer") if isinstance(extras, dict) else None
    return owner if isinstance(owner, str) else issuer


def _source_of(block: dict[str, Any], issuer: str) -> Any:
    if isinstance(block.get("url"), str):
        return _parts.UrlSource(url=block["url"])
    if isinstance(block.get("base64"), str):
        return _parts.Base64Source(data=block["base64"])
    if isinstance(block.get("file_id"), str):
        return _parts.ProviderFileSource(file_id=block["file_id"], issuer=_issuer_of(block, issuer))
    return None


def _usage_from_lc(usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    into = usage.get("input_token_details") or {}
    out = usage.get("output_token_details") or {}
    return Usage(input_tokens=usage.get("input_tokens", 0), output_tokens=usage.get("output_tokens", 0),
                 cache_read_tokens=into.get("cache_read", 0) or 0,
                 cache_write_tokens=into.get("cache_creation", 0) or 0,
                 reasoning_tokens=out.get("reasoning", 0) or 0)


# ---------------------------------------------------------------------------------------------
# canonical -> LangChain


def _to_lc(event: _messages.SystemMessage | _messages.DeveloperMessage | _messages.UserMessage
           | _messages.AssistantMessage | _messages.ToolMessage,
           ctx: _Context, log: LossLog | None, path: str) -> dict[str, Any]:
    """A canonical message as a LangChain message dump (``model_dump`` form), without carry."""
    own = _common.extras_of(event.provider_data, ISSUER)
    response = _converse_response(event)
    if event.provider_data is not None and event.provider_data.issuer != ISSUER and log is not None \
            and response is None:
        log.add(path, f"{event.role}_message", "dropped",
                f"provider data from {event.provider_data.issuer} has no place in LangChain", event.id)
    answerer = _answerer(event) if isinstance(event, _messages.AssistantMessage) else None
    issuer = answerer or ISSUER
    out: dict[str, Any] = {"additional_kwargs": {}, "response_metadata": {}, "name": None,
                           "id": event.id}
    parts = event.parts
    match event:
        case _messages.SystemMessage() | _messages.DeveloperMessage():
            out["type"] = "system"
            if isinstance(event, _messages.DeveloperMessage):
                out["additional_kwargs"] = dict(_DEVELOPER)
        case _messages.UserMessage():
            out["type"] = "human"
        case _messages.ToolMessage():
            out.update(type="tool", tool_call_id=ctx.lc_ids.get(event.call_id, event.call_id),
                       name=event.tool_name, status="error" if event.status == "error" else "success",
                       artifact=event.data)
            parts = ((_parts.TextPart(text=event.output_text),) if event.output_text else ()) + event.parts
        case _messages.AssistantMessage():
            meta: dict[str, Any] = {"output_version": "v1"}
            model_name = event.model
            if answerer:
                meta["model_provider"] = _LC_PROVIDERS.get(answerer, answerer)
                if model_name and model_name.startswith(f"{answerer}:"):
                    model_name = model_name.split(":", 1)[1]
            if model_name:
                meta["model_name"] = model_name
            if event.stop_reason_raw:
                meta[_STOP_KEYS.get(answerer or "", "finish_reason")] = event.stop_reason_raw
            if response:  # where ChatBedrockConverse keeps the rest of the Converse response
                meta.update({k: v for k, v in response.items() if k not in meta})
            out.update(type="ai", response_metadata=meta, usage_metadata=_usage_to_lc(event.usage))
        case _:
            assert_never(event)
    blocks: list[dict[str, Any]] = []
    lead = len(parts) - len(event.parts)  # a tool message's output text goes first, as a text block
    for j, part in enumerate(parts):
        ppath = f"{path}.parts[{j - lead}]" if j >= lead else f"{path}.output_text"
        point = _converse_point(part)
        signature = _gemini_signature(part)
        if part.provider_data is not None and part.provider_data.issuer != ISSUER and log is not None \
                and point is None and signature is None and _converse_block(part) is None:
            log.add(ppath, part.type, "dropped",
                    f"provider data from {part.provider_data.issuer} has no place in LangChain", event.id)
        if log is not None and (reason := _common.unknown_fields_reason(part, "LangChain")):
            log.add(ppath, part.type, "dropped", reason, event.id)
        if signature is not None and log is not None:
            rest = sorted(set(_gemini_marks(part)) - {"thoughtSignature"})
            if rest:
                log.add(ppath, part.type, "dropped", "LangChain keeps the thought signature of Gemini's "
                        f"part data, not its {', '.join(rest)}", event.id)
        block = _block_from_part(part, issuer, ctx, log, ppath, event.id)
        if signature is not None and block is not None and block["type"] in ("tool_call", "invalid_tool_call"):
            # where langchain-google-genai keeps (and reads back) a function call's signature
            held = out["additional_kwargs"].get(_GEMINI_SIGNATURES, {})
            out["additional_kwargs"] = {**out["additional_kwargs"],
                                        _GEMINI_SIGNATURES: {**held, block["id"]: _standard_base64(signature)}}
        if block is not None:
            blocks.append({**block, **_unjson(_common.extras_of(part.provider_data, ISSUER).get("block", {}))})
            if point is not None:  # Converse's block, as langchain-aws sends it
                blocks.append({"type": "non_standard", "value": {"cachePoint": point}})
        elif point is not None and log is not None:
            log.add(ppath, part.type, "dropped", "the cache point after it goes with it", event.id)
    if isinstance(event, _messages.AssistantMessage):
        out["tool_calls"] = [{"type": "tool_call", "id": b["id"], "name": b["name"], "args": b["args"]}
                             for b in blocks if b["type"] == "tool_call"]
        out["invalid_tool_calls"] = [b for b in blocks if b["type"] == "invalid_tool_call"]
        blocks = [b for b in blocks if b["type"] != "invalid_tool_call"]
    only_text = (len(blocks) == 1 and set(blocks[0]) == {"type", "text"} and blocks[0]["type"] == "text"
                 and blocks[0]["text"] != "")  # an empty string would read back as no block at all
    out["content"] = blocks[0]["text"] if only_text and not isinstance(event, _messages.AssistantMessage) \
        else ("" if not blocks and not isinstance(event, _messages.AssistantMessage) else blocks)
    return {**out, **_unjson(own.get("fields", {}))}


def _answerer(event: _messages.AssistantMessage) -> str | None:
    """The provider an answer is exported under: its own, or else the one issuer of all the
    provider state its parts hold (an answer imported from a request names no provider, and
    LangChain's provider packages echo signatures and call ids only under their own name)."""
    if event.provider:
        return event.provider
    found: set[str] = set()
    for part in event.parts:
        if isinstance(part, _parts.ThinkingPart) and part.signature is not None:
            found.add(part.signature.issuer)
        elif isinstance(part, _parts.RedactedThinkingPart):
            found.add(part.data.issuer)
        elif isinstance(part, _parts.ToolCallPart):
            found.update(part.provider_ids)
        elif isinstance(part, _parts.ServerToolCallPart | _parts.ServerToolResultPart):
            found.add(part.issuer)
        if _gemini_signature(part) is not None:
            found.add(_GOOGLE)
    found.discard(ISSUER)
    return found.pop() if len(found) == 1 else None


def _converse_response(event: HistoryEvent) -> dict[str, Any] | None:
    """The Converse response fields the Bedrock adapter kept on an answer (``metrics``, ``trace``,
    ``additionalModelResponseFields``...), when that is all of its provider data."""
    if not isinstance(event, _messages.AssistantMessage):
        return None
    pd = event.provider_data
    if pd is None or pd.issuer != "bedrock" \
            or event.provider != "bedrock" or not isinstance(pd.data, dict) or set(pd.data) != {"response"} \
            or not isinstance(pd.data["response"], dict):
        return None
    return dict(pd.data["response"])


def _block_from_part(part: _parts.Part, issuer: str, ctx: _Context, log: LossLog | None, path: str,
                     message_id: str | None = None) -> dict[str, Any] | None:
    """A canonical part as a v1 content block (None: LangChain cannot hold it)."""
    native = _converse_block(part)
    if native is not None:  # Converse's own block, as langchain-aws sends it
        return {"type": "non_standard", "value": native}
    match part:
        case _parts.TextPart():
            if part.citations and log is not None:
                log.add(path, "text", "dropped", "citations are not mapped to LangChain annotations",
                        message_id)
            signature = _gemini_signature(part)
            if signature is not None:  # where langchain-google-genai keeps a text part's signature
                return {"type": "text", "text": part.text, "extras": {"signature": _standard_base64(signature)}}
            return {"type": "text", "text": part.text}
        case _parts.ThinkingPart():
            block: dict[str, Any] = {"type": "reasoning", "reasoning": part.text}
            if part.signature is not None:
                block["extras"] = {"signature": part.signature.value}
                _check_opaque(part.signature, issuer, log, path, message_id)
            if part.id is not None and log is not None:
                log.add(path, "thinking", "dropped", "LangChain reasoning blocks keep no reasoning id",
                        message_id)
            return block
        case _parts.RedactedThinkingPart():
            if part.data.issuer == "bedrock":
                raw = decode_base64(part.data.value)
                if raw is not None:  # Converse's own block (it names its issuer), bytes as boto3 takes them
                    _check_opaque(part.data, part.data.issuer, log, path, message_id)
                    return {"type": "non_standard",
                            "value": {"reasoningContent": {"redactedContent": raw}}}
            _check_opaque(part.data, issuer, log, path, message_id)
            if part.data.issuer == "bedrock" and log is not None:
                log.add(path, "redacted_thinking", "rewritten",
                        "Bedrock's encrypted reasoning is bytes and this value is not base64; "
                        "kept in Anthropic's redacted_thinking shape", message_id)
            return {"type": "non_standard", "value": {"type": "redacted_thinking", "data": part.data.value}}
        case _parts.ToolCallPart():
            lc_id = part.provider_ids.get(issuer)
            if lc_id is None and part.provider_ids and log is not None:
                log.add(path, "tool_call", "id_mapped",
                        f"no id from {issuer}; the canonical id {part.id} replaces "
                        f"{sorted(part.provider_ids.values())}", message_id)
            elif lc_id is not None and len(part.provider_ids) > 1 and log is not None:
                others = ", ".join(sorted(k for k in part.provider_ids if k != issuer))
                log.add(path, "tool_call", "dropped",
                        f"a LangChain tool call keeps one id ({issuer}'s); the ids from {others} "
                        "are not kept", message_id)
            lc_id = lc_id or part.id
            ctx.lc_ids[part.id] = lc_id
            ctx.canonical[lc_id] = part.id
            args = _object_args(part.arguments_json)
            if args is not None:  # spelled otherwise, the text is carried (to_messages)
                return {"type": "tool_call", "id": lc_id, "name": part.name, "args": args}
            # Malformed JSON, or not an object: LangChain's invalid_tool_call keeps the text (and
            # provider packages do not send it).
            return {"type": "invalid_tool_call", "id": lc_id, "name": part.name,
                    "args": part.arguments_json, "error": None}
        case _parts.ServerToolCallPart():
            args = part.input if isinstance(part.input, dict) else {"input": part.input}
            if not isinstance(part.input, dict) and log is not None:
                log.add(path, "server_tool_call", "rewritten",
                        "LangChain holds server tool arguments as an object; wrapped as {'input': ...}",
                        message_id)
            return {"type": "server_tool_call", "id": part.id, "name": part.name, "args": args,
                    **_owner(part.issuer, issuer)}
        case _parts.ServerToolResultPart():
            block = {"type": "server_tool_result", "tool_call_id": part.call_id, "status": "success",
                     "output": part.output, **_owner(part.issuer, issuer)}
            if part.name:  # where LangChain keeps the result's block type (Anthropic's name for it)
                block["extras"] = {**block.get("extras", {}), "block_type": part.name}
            return block
        case _parts.RefusalPart():
            return {"type": "refusal", "refusal": part.text}
        case _parts.ImagePart() | _parts.AudioPart() | _parts.DocumentPart():
            kind = "file" if part.type == "document" else part.type
            src = part.source
            block = {"type": kind}
            if isinstance(src, _parts.UrlSource):
                block["url"] = src.url
            elif isinstance(src, _parts.Base64Source):
                block["base64"] = src.data
            elif isinstance(src, _parts.ProviderFileSource):
                block["file_id"] = src.file_id
                block.update(_owner(src.issuer, issuer))  # who can read the file
            elif isinstance(src, _parts.TextSource) and part.type == "document":
                block = {"type": "text-plain", "text": src.text}
            else:
                if log is not None:
                    log.add(path, part.type, "dropped",
                            f"a LangChain content block cannot point at a {src.type} source", message_id)
                return None
            media_type = part.media_type if block["type"] != "text-plain" else "text/plain"
            if media_type:
                block["mime_type"] = media_type
            if block["type"] == "text-plain" and part.media_type != "text/plain":
                # LangChain's plain-text block is text/plain; the part's own type rides in extras
                block["extras"] = {"media_type": part.media_type}
            if isinstance(part, _parts.ImagePart) and part.detail is not None:
                block["extras"] = {**block.get("extras", {}), "detail": part.detail}  # OpenAI's hint, where LangChain puts it
            if isinstance(part, _parts.DocumentPart):
                if part.title is not None and block["type"] == "text-plain":
                    block["title"] = part.title
                elif part.title is not None and log is not None:
                    log.add(path, "document", "dropped", "the document's title has no place there",
                            message_id)
                if part.filename is not None:  # where LangChain's OpenAI translator reads it
                    block["extras"] = {**block.get("extras", {}), "filename": part.filename}
            return block
        case _parts.UnknownPart():
            if part.issuer == ISSUER and isinstance(part.raw, dict):
                return dict(_unjson(part.raw))
            _common.drop_unknown(part, log, path, message_id, "LangChain")
            return None
        case _:
            assert_never(part)


def _object_args(text: str) -> dict[str, Any] | None:
    """Tool-call arguments as the object LangChain holds, or None when they are not one."""
    try:
        args = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return None
    return args if isinstance(args, dict) else None


def _owner(owner: str, issuer: str) -> dict[str, Any]:
    """The extras naming a block's issuer when it is not the message's provider, which import
    would otherwise give it (LangChain blocks have no issuer of their own)."""
    return {} if owner == issuer else {"extras": {"issuer": owner}}


def _check_opaque(opaque: _parts.Opaque, issuer: str, log: LossLog | None, path: str,
                  message_id: str | None) -> None:
    if log is None:
        return
    if opaque.issuer != issuer:
        log.add(path, "opaque", "rewritten",
                f"LangChain keeps opaque state under the message's provider ({issuer}), "
                f"not its issuer {opaque.issuer}", message_id)
    if opaque.model is not None:
        log.add(path, "opaque", "dropped",
                f"LangChain keeps no model beside opaque state ({opaque.model})", message_id)


def _usage_to_lc(usage: Usage | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    out: dict[str, Any] = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
                           "total_tokens": usage.input_tokens + usage.output_tokens}
    if usage.cache_read_tokens or usage.cache_write_tokens:
        out["input_token_details"] = {"cache_read": usage.cache_read_tokens,
                                      "cache_creation": usage.cache_write_tokens}
    if usage.reasoning_tokens:
        out["output_token_details"] = {"reasoning": usage.reasoning_tokens}
    return out
