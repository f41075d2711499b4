"""What the shared wire laws (``tests/laws/test_wire_laws.py``) need from one adapter.

Each provider module under ``tests/harness/providers/`` builds one :class:`WireLaws` next to its
kit: hypothesis strategies for the wire shapes only that API has (its responses, its streams,
its requests) and the few facts about it the laws cannot guess (its variants, how a response
is shaped around a message). The laws themselves are written once, for every adapter.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from partwire import AssistantMessage, Part, ThinkingPart, ToolMessage
from partwire.history import HistoryEvent

# The comparisons every law shares are the plugin's (partwire.testing), so the suites agree.
from partwire.testing import dumps, json_default, neutral_dump, tools_called

__all__ = ["ARGUMENT_TEXTS", "JSON_VALUES", "NAMES", "WireLaws", "default_tool_view", "default_view", "dumps", "json_default", "neutral_dump", "object_arguments_view", "split_text", "tools_called", "without_parsed"]


NAMES = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_-]{0,15}", fullmatch=True)
"""Tool names every API takes."""
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)
"""Small JSON values (no floats: their spelling is the encoder's business)."""
ARGUMENT_TEXTS = st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4).map(
    lambda d: json.dumps(d, ensure_ascii=False, separators=(",", ":"))) | st.text(max_size=20)
"""A call's arguments as a model writes them: compact JSON objects, or any text (truncated ones)."""


def split_text(draw: st.DrawFn, text: str, most: int = 4) -> list[str]:
    """``text`` cut at up to ``most`` points drawn at random (no empty piece; ``[]`` for ``""``)."""
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=most))) if len(text) > 1 else []
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


# Fields that say nothing to the model: ids, echo state, media types, citations.
_UNTOLD = frozenset({"provider_data", "provider_ids", "id", "signature", "media_type", "citations"})


def default_view(part: Part, event: HistoryEvent) -> dict[str, Any] | None:
    """What a part tells the model: its kind and content (the cross-provider law compares these);
    ``None`` for a part that says nothing (an empty unsigned thought), which is neither sent nor
    a loss."""
    if isinstance(part, ThinkingPart) and not part.text and part.signature is None:
        return None
    return {name: getattr(part, name) for name in type(part).model_fields if name not in _UNTOLD}


def object_arguments_view(part: Part, event: HistoryEvent) -> dict[str, Any] | None:
    """:func:`default_view`, with a tool call's arguments as the JSON value they spell: for an
    API whose wire carries arguments as an object, the same value comes back, not the same text."""
    data = default_view(part, event)
    if data is not None and data.get("type") == "tool_call":
        with contextlib.suppress(ValueError):  # malformed ones are sent as {} with a loss
            data["arguments_json"] = json.loads(data["arguments_json"] or "{}")
    return data


def default_tool_view(message: ToolMessage) -> Any:
    """What a tool result tells the model: its text, or its structured data as JSON text."""
    if message.output_text or message.data is None:
        return message.output_text
    return json.dumps(message.data, ensure_ascii=False)


@dataclass(frozen=True)
class WireLaws:
    """The provider-specific half of the wire laws of one adapter."""

    messages: Callable[[str], st.SearchStrategy[AssistantMessage]]
    """Assistant messages the API can answer with under a variant, as its decoder gives them."""
    response_for: Callable[[AssistantMessage, str], dict[str, Any]]
    """The response body the API sends for a message (built from ``to_wire``'s own wire form of
    it, so the echo law checks message -> wire -> message and wire -> message -> wire)."""
    streams: Callable[[str], st.SearchStrategy[tuple[dict[str, Any], list[Any]]]]
    """A final response body and the stream of events or chunks that carries it, cut anywhere."""
    variants: tuple[str, ...] = ("",)
    """Named configurations the laws run under (Chat's dialects); ``""`` when there is one."""
    options: Callable[[str], dict[str, Any]] = field(default=lambda variant: {})
    """The adapter options of a variant, passed to every call (``to_wire``, ``from_wire``...)."""
    projection_options: Mapping[str, Any] = field(default_factory=dict)
    """Extra ``to_wire`` options for the echo and import laws (Chat: send all reasoning back)."""
    model: str = "law"
    """The model passed to ``to_wire``."""
    sse: Callable[[list[Any]], bytes] | None = None
    """The events as the SSE bytes the API sends, when the adapter reads raw SSE."""
    sdk_final: Callable[[list[Any]], Any] | None = None
    """The SDK's own accumulation of the events, as something ``from_wire`` reads."""
    sdk_variants: tuple[str, ...] = ("",)
    """The variants whose streams the SDK's accumulator is asked to read."""
    requests: st.SearchStrategy[dict[str, Any]] | None = None
    """Request bodies of every shape the API takes, for the import law on wire-made requests."""
    view: Callable[[Part, HistoryEvent], dict[str, Any] | None] = default_view
    """What a part tells the model, for the cross-provider law (a target with another spelling of
    the same content, such as arguments as an object, normalises it here)."""
    tool_view: Callable[[ToolMessage], Any] = default_tool_view
    """What a tool result tells the model, for the same law."""
    foreign_issuers: frozenset[str] = frozenset()
    """Issuers the cross-provider law re-issues as ``elsewhere`` (the target's own)."""
    first_sent: Callable[[list[HistoryEvent], str], int] = field(default=lambda history, variant: 0)
    """The first event a request carries (Responses chained: what follows the response it
    continues, which the server holds); the cross-provider law looks from there."""
    strip: Callable[[dict[str, Any], str], dict[str, Any]] = field(default=lambda request, variant: request)
    """The request without the variant's documented extension fields, for SDK type checks."""
    validator: Callable[[str], str | None] = field(default=lambda variant: None)
    """The :func:`~tests.harness.validity.request_errors` api that checks a variant's requests
    whole (Chat's mistral: the mistralai SDK's models); ``None``: the adapter's own SDK types,
    after :attr:`strip`."""
    corpora: Mapping[str, str] = field(default_factory=dict)
    """Variants with recorded traffic of their own: variant -> its corpus folder (Chat's
    ``mistral``). The corpus laws read those requests as the adapter's, under the variant's
    options, beside the adapter's own folder."""


def response_extras(message: AssistantMessage) -> dict[str, Any]:
    """The response fields a decoder kept in the message's echo state (``{"response": {...}}``)."""
    data = message.provider_data.data if message.provider_data is not None else None
    extras = data.get("response") if isinstance(data, dict) else None
    return dict(extras) if isinstance(extras, dict) else {}


def without_parsed(value: Any) -> Any:
    """A dump of an SDK object without the ``parsed*`` keys the SDK's own parsed types add (the
    wire never has them): what the SDK's accumulators give, as the API would have sent it."""
    if isinstance(value, dict):
        return {k: without_parsed(v) for k, v in value.items() if not k.startswith("parsed")}
    if isinstance(value, list):
        return [without_parsed(v) for v in value]
    return value
