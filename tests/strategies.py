"""Hypothesis strategies for canonical values: ``histories()`` generates any history.

The smaller strategies it is built from (``parts()``, ``assistant_messages()``, ``events()``, ...)
are public so adapter tests can draw exactly what they need. Every strategy takes ``extras``:
when true (the default) models sometimes carry unknown extra fields, as a line written by a newer
version would; pass ``extras=False`` where extra fields would only get in the way.

Text is arbitrary unicode (no lone surrogates, which no JSON encoder can write); JSON values are
finite. Sizes stay small so property tests stay fast.
"""

from __future__ import annotations

import base64
import functools
import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, TypeVar

from hypothesis import strategies as st
from pydantic import JsonValue, ValidationError
from ulid import ULID

from partwire import (
    AssistantMessage,
    AudioPart,
    Base64Source,
    CompactionEvent,
    DeveloperMessage,
    DocumentCitation,
    DocumentPart,
    ErrorEvent,
    FileRefSource,
    HistoryEvent,
    ImagePart,
    ModelSwitchEvent,
    Opaque,
    Part,
    ProviderData,
    ProviderFileSource,
    RedactedThinkingPart,
    RefusalPart,
    RetryEvent,
    RoutingDecision,
    SearchResultCitation,
    ServerToolCallPart,
    ServerToolResultPart,
    SubtaskEvent,
    SystemMessage,
    TaskMetadataEvent,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownEvent,
    UnknownPart,
    UrlCitation,
    UrlSource,
    Usage,
    UserMessage,
)
from partwire._base import replace
from partwire.history import EVENT_TYPES
from partwire.parts import PART_ADAPTER, PART_TYPES

__all__ = [
    "assistant_messages",
    "citations",
    "datetimes",
    "developer_messages",
    "events",
    "histories",
    "history_events",
    "ids",
    "json_values",
    "media_parts",
    "media_sources",
    "messages",
    "opaques",
    "parts",
    "provider_data",
    "reasoning_parts",
    "refusal_parts",
    "server_tool_parts",
    "system_messages",
    "text_parts",
    "texts",
    "tool_call_ids",
    "tool_call_parts",
    "tool_messages",
    "unknown_parts",
    "usages",
    "user_messages",
]

M = TypeVar("M")

ISSUERS = ("anthropic", "openai", "google", "openrouter", "bedrock")
MODELS = ("anthropic:claude-sonnet-4-6", "openai:gpt-5", "google:gemini-2.5-pro", "openrouter:deepseek/deepseek-r1")
APIS = ("anthropic", "openai_chat", "openai_responses", "google")
# Names no canonical model uses, so an extra field never shadows a real one.
_EXTRA_NAMES = ("x_future_field", "x_vendor", "x_note")


# -- scalars ---------------------------------------------------------------------------------


def texts(*, min_size: int = 0, max_size: int = 24) -> st.SearchStrategy[str]:
    """Arbitrary unicode text: control characters, line separators and astral planes included."""
    return st.text(min_size=min_size, max_size=max_size)


@functools.cache
def json_values() -> st.SearchStrategy[JsonValue]:
    """Any finite JSON value, nested a little."""
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**63), max_value=2**64)
        | st.floats(allow_nan=False, allow_infinity=False)
        | texts(max_size=12)
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts(max_size=8), inner, max_size=3),
        max_leaves=6,
    )


def datetimes() -> st.SearchStrategy[datetime]:
    """UTC datetimes with microseconds, 1900 to 2200."""
    return st.datetimes(
        min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    )


def ids() -> st.SearchStrategy[str]:
    """Message and event ids: ULID strings."""
    return st.integers(min_value=0, max_value=2**128 - 1).map(lambda n: str(ULID.from_int(n)))


def tool_call_ids() -> st.SearchStrategy[str]:
    """Canonical tool-call ids, ``tu_<ULID>``."""
    return ids().map(lambda u: "tu_" + u)


def _issuers() -> st.SearchStrategy[str]:
    return st.sampled_from(ISSUERS)


def _names() -> st.SearchStrategy[str]:
    # Tool names valid under every provider's rules, so adapter tests can use them as they are.
    return st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_-]{0,15}", fullmatch=True)


def _optional(strategy: st.SearchStrategy[M]) -> st.SearchStrategy[M | None]:
    return st.none() | strategy


def _build(cls: type[M], extras: bool, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[M]:
    """``cls(**drawn fields)``, sometimes with unknown extra fields (nulls included)."""
    drawn = st.fixed_dictionaries(fields)
    if extras:
        extra = st.dictionaries(st.sampled_from(_EXTRA_NAMES), json_values(), max_size=2)
        drawn = st.tuples(drawn, extra).map(lambda pair: {**pair[1], **pair[0]})
    return drawn.map(lambda kwargs: cls(**kwargs))


# -- provenance ------------------------------------------------------------------------------


def provider_data() -> st.SearchStrategy[ProviderData | None]:
    """No provider data, or an issuer's echo state."""
    return _optional(st.builds(ProviderData, issuer=_issuers(), data=json_values()))


def opaques() -> st.SearchStrategy[Opaque]:
    """Opaque values (signatures, encrypted reasoning) with their issuer."""
    return st.builds(Opaque, value=texts(max_size=40), issuer=_issuers(), model=_optional(st.sampled_from(MODELS)))


# -- media and citations ---------------------------------------------------------------------


def media_sources() -> st.SearchStrategy[Any]:
    """Every kind of media source: URL, base64, workspace file, provider file, inline text."""
    return st.one_of(
        st.builds(UrlSource, url=st.sampled_from(("https://example.com/a.png", "gs://bucket/doc.pdf"))),
        st.builds(Base64Source, data=st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode())),
        st.builds(
            FileRefSource,
            path=st.from_regex(r"[a-z]{1,8}(/[a-z]{1,8}){0,2}\.(png|pdf|wav)", fullmatch=True),
            size=_optional(st.integers(min_value=0, max_value=10**9)),
            sha256=_optional(st.binary(min_size=32, max_size=32).map(bytes.hex)),
        ),
        st.builds(ProviderFileSource, file_id=st.from_regex(r"file[-_][A-Za-z0-9]{4,12}", fullmatch=True),
                  issuer=_issuers()),
        st.builds(TextSource, text=texts()),
    )


def citations() -> st.SearchStrategy[Any]:
    """Every kind of citation: URL, document span, search result."""
    small = st.integers(min_value=0, max_value=1000)
    return st.one_of(
        st.builds(UrlCitation, url=st.just("https://example.com/page"), title=_optional(texts()),
                  cited_text=_optional(texts()), start_index=_optional(small), end_index=_optional(small),
                  provider_data=provider_data()),
        st.builds(DocumentCitation, document_index=small, document_title=_optional(texts()),
                  unit=st.sampled_from(("char", "page", "block")), start=small, end=small,
                  cited_text=_optional(texts()), file_id=_optional(st.just("file_abc")),
                  provider_data=provider_data()),
        st.builds(SearchResultCitation, source=st.just("https://example.com/result"), title=_optional(texts()),
                  search_result_index=small, start_block=small, end_block=small,
                  cited_text=_optional(texts()), provider_data=provider_data()),
    )


# -- parts -----------------------------------------------------------------------------------


def text_parts(*, extras: bool = True) -> st.SearchStrategy[TextPart]:
    """Text parts, some with citations."""
    return _build(TextPart, extras, text=texts(), citations=st.lists(citations(), max_size=2).map(tuple),
                  provider_data=provider_data())


def media_parts(*, extras: bool = True) -> st.SearchStrategy[ImagePart | DocumentPart | AudioPart]:
    """Image, document and audio parts from every kind of source."""
    media_type = _optional(st.sampled_from(("image/png", "application/pdf", "text/plain", "audio/wav")))
    return st.one_of(
        _build(ImagePart, extras, source=media_sources(), media_type=media_type,
               detail=_optional(st.sampled_from(("auto", "low", "high", "original"))), provider_data=provider_data()),
        _build(DocumentPart, extras, source=media_sources(), media_type=media_type, title=_optional(texts()),
               filename=_optional(texts()), provider_data=provider_data()),
        _build(AudioPart, extras, source=media_sources(), media_type=media_type, provider_data=provider_data()),
    )


def tool_call_parts(*, extras: bool = True) -> st.SearchStrategy[ToolCallPart]:
    """Tool calls: arguments a JSON object's exact text, or malformed text kept as it came."""
    arguments = (
        st.dictionaries(texts(max_size=8), json_values(), max_size=3).map(
            lambda d: json.dumps(d, ensure_ascii=False, separators=(",", ":"))
        )
        | texts()
    )
    provider_ids = st.dictionaries(_issuers(), st.from_regex(r"(toolu_|call_)[A-Za-z0-9]{4,12}", fullmatch=True),
                                   max_size=2)
    return _build(ToolCallPart, extras, id=tool_call_ids(), name=_names(), arguments_json=arguments,
                  provider_ids=provider_ids, provider_data=provider_data())


def _is_known_part(raw: JsonValue) -> bool:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str) or raw["type"] not in PART_TYPES:
        return False
    try:
        PART_ADAPTER.validate_python(raw)
    except ValidationError:
        return False
    return True


def unknown_parts(*, extras: bool = True) -> st.SearchStrategy[UnknownPart]:
    """Unknown parts whose ``raw`` is not itself a valid known part."""
    claimed = st.sampled_from(("hologram", "video", "text", "x-vendor-block")) | texts(max_size=10)
    raw = (
        st.fixed_dictionaries({"type": claimed}, optional={"payload": json_values(), "text": json_values()})
        | json_values()
    ).filter(lambda value: not _is_known_part(value))
    return _build(UnknownPart, extras, original_type=_optional(claimed), raw=raw,
                  issuer=_optional(_issuers()), provider_data=provider_data())


def reasoning_parts(*, extras: bool = True) -> st.SearchStrategy[ThinkingPart | RedactedThinkingPart]:
    """Thinking parts (text, signature, id) and redacted thinking."""
    return st.one_of(
        _build(ThinkingPart, extras, text=texts(), signature=_optional(opaques()),
               id=_optional(st.from_regex(r"rs_[a-z0-9]{4,10}", fullmatch=True)), provider_data=provider_data()),
        _build(RedactedThinkingPart, extras, data=opaques(), provider_data=provider_data()),
    )


def server_tool_parts(*, extras: bool = True) -> st.SearchStrategy[ServerToolCallPart | ServerToolResultPart]:
    """Server tool calls and results, with their issuer."""
    server_id = st.from_regex(r"srvtoolu_[A-Za-z0-9]{4,10}", fullmatch=True)
    return st.one_of(
        _build(ServerToolCallPart, extras, id=server_id, name=st.sampled_from(("web_search", "code_execution")),
               input=json_values(), issuer=_issuers(), provider_data=provider_data()),
        _build(ServerToolResultPart, extras, call_id=server_id, name=st.just("web_search_tool_result"),
               output=json_values(), issuer=_issuers(), provider_data=provider_data()),
    )


def refusal_parts(*, extras: bool = True) -> st.SearchStrategy[RefusalPart]:
    """Refusals."""
    return _build(RefusalPart, extras, text=texts(), provider_data=provider_data())


def parts(*, extras: bool = True) -> st.SearchStrategy[Part]:
    """Any part of any type, unknown parts included."""
    return st.one_of(
        text_parts(extras=extras),
        media_parts(extras=extras),
        reasoning_parts(extras=extras),
        tool_call_parts(extras=extras),
        server_tool_parts(extras=extras),
        refusal_parts(extras=extras),
        unknown_parts(extras=extras),
    )


# -- messages --------------------------------------------------------------------------------


def _common(**fields: st.SearchStrategy[Any]) -> dict[str, st.SearchStrategy[Any]]:
    return {
        "id": ids(),
        "created_at": datetimes(),
        "parent_id": _optional(ids()),
        "metadata": st.dictionaries(texts(max_size=8), json_values(), max_size=2),
        "provider_data": provider_data(),
        **fields,
    }


def _part_tuples(strategy: st.SearchStrategy[Any], max_size: int = 3) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(strategy, max_size=max_size).map(tuple)


def system_messages(*, extras: bool = True) -> st.SearchStrategy[SystemMessage]:
    """System messages: text parts only."""
    return _build(SystemMessage, extras, **_common(parts=_part_tuples(text_parts(extras=extras))))


def developer_messages(*, extras: bool = True) -> st.SearchStrategy[DeveloperMessage]:
    """Developer messages: text, attachments, unknown parts."""
    content = text_parts(extras=extras) | media_parts(extras=extras) | unknown_parts(extras=extras)
    return _build(DeveloperMessage, extras, **_common(parts=_part_tuples(content)))


def user_messages(*, extras: bool = True) -> st.SearchStrategy[UserMessage]:
    """User messages: text, images, documents, audio, unknown parts."""
    content = text_parts(extras=extras) | media_parts(extras=extras) | unknown_parts(extras=extras)
    return _build(UserMessage, extras, **_common(parts=_part_tuples(content)))


def usages() -> st.SearchStrategy[Usage]:
    """Usage with token counts, a Decimal cost and latency."""
    count = st.integers(min_value=0, max_value=10**7)
    return st.builds(
        Usage, input_tokens=count, output_tokens=count, cache_read_tokens=count, cache_write_tokens=count,
        reasoning_tokens=count,
        cost=_optional(st.decimals(min_value=Decimal(0), max_value=Decimal(1000), places=6)),
        pricing_version=_optional(st.sampled_from(("2026-01", "v3"))),
        latency_ms=_optional(st.integers(min_value=0, max_value=600_000)), provider_data=provider_data(),
    )


def _routing() -> st.SearchStrategy[RoutingDecision]:
    return st.builds(
        RoutingDecision,
        mode=st.sampled_from(("override", "manual", "rule", "pattern", "delegate", "default")),
        chosen_model=st.sampled_from(MODELS), reason=texts(), rule_name=_optional(texts(max_size=8)),
        confidence=_optional(st.floats(min_value=0, max_value=1)),
        alternatives_considered=st.lists(st.sampled_from(MODELS), max_size=2).map(tuple),
    )


def assistant_messages(*, extras: bool = True) -> st.SearchStrategy[AssistantMessage]:
    """Assistant messages: any assistant part in any order, with usage and provenance."""
    content = st.one_of(
        text_parts(extras=extras), reasoning_parts(extras=extras), tool_call_parts(extras=extras),
        server_tool_parts(extras=extras), refusal_parts(extras=extras), unknown_parts(extras=extras),
    )
    return _build(
        AssistantMessage, extras, **_common(
            parts=_part_tuples(content, max_size=4),
            status=st.sampled_from(("complete", "partial", "error", "aborted")),
            stop_reason=_optional(st.sampled_from(
                ("stop", "length", "tool_use", "content_filter", "refusal", "pause", "error", "aborted")
            )),
            stop_reason_raw=_optional(st.sampled_from(("end_turn", "tool_use", "stop", "STOP", "max_tokens"))),
            model=_optional(st.sampled_from(MODELS)), provider=_optional(_issuers()),
            api=_optional(st.sampled_from(APIS)),
            response_id=_optional(st.from_regex(r"(msg|resp|chatcmpl)_[A-Za-z0-9]{4,10}", fullmatch=True)),
            usage=_optional(usages()), routing=_optional(_routing()),
        ),
    )


def tool_messages(
    *, call_id: str | None = None, tool_name: str | None = None, extras: bool = True
) -> st.SearchStrategy[ToolMessage]:
    """Tool results of every status; answering ``call_id`` when given, else a random call."""
    return _build(
        ToolMessage, extras, **_common(
            call_id=st.just(call_id) if call_id is not None else tool_call_ids(),
            tool_name=st.just(tool_name) if tool_name is not None else _names(),
            status=st.sampled_from(("success", "error", "aborted", "denied")),
            output_text=texts(max_size=40),
            parts=_part_tuples(media_parts(extras=extras), max_size=2),
            data=json_values(), started_at=_optional(datetimes()), finished_at=_optional(datetimes()),
            truncated=st.booleans(), full_output_ref=_optional(st.just("outputs/full.txt")),
            ui_extra=json_values(), side_effects=json_values(),
        ),
    )


def messages(*, extras: bool = True) -> st.SearchStrategy[Any]:
    """A message of any role."""
    return st.one_of(
        system_messages(extras=extras), developer_messages(extras=extras), user_messages(extras=extras),
        assistant_messages(extras=extras), tool_messages(extras=extras),
    )


# -- events ----------------------------------------------------------------------------------


def events(*, extras: bool = True) -> st.SearchStrategy[Any]:
    """A non-message history event of any type, unknown events included."""
    base = {"id": ids(), "created_at": datetimes(),
            "metadata": st.dictionaries(texts(max_size=8), json_values(), max_size=2)}
    small = st.integers(min_value=0, max_value=10**6)
    return st.one_of(
        _build(ErrorEvent, extras, **base, code=_optional(st.sampled_from(("overloaded_error", "429"))),
               message=texts(), provider=_optional(_issuers()), retryable=st.booleans(),
               status=_optional(st.integers(min_value=100, max_value=599))),
        _build(TaskMetadataEvent, extras, **base, task_id=_optional(ids()), title=_optional(texts()),
               data=json_values()),
        _build(CompactionEvent, extras, **base, summary=texts(), replaced_ids=_optional(
            st.lists(ids(), max_size=3).map(tuple)), replaced_count=_optional(small),
               tokens_before=_optional(small), tokens_after=_optional(small)),
        _build(RetryEvent, extras, **base, attempt=st.integers(min_value=1, max_value=10), reason=texts(),
               delay_ms=_optional(small)),
        _build(ModelSwitchEvent, extras, **base, from_model=_optional(st.sampled_from(MODELS)),
               to_model=st.sampled_from(MODELS), reason=_optional(texts())),
        _build(SubtaskEvent, extras, **base, child_session_id=ids(), agent=_optional(texts(max_size=8)),
               prompt=_optional(texts()),
               status=st.sampled_from(("pending", "running", "success", "error", "aborted")),
               result=_optional(texts())),
        _build(UnknownEvent, extras, **base, original_type=_optional(
            st.sampled_from(("patch", "snapshot")) | texts(max_size=8).filter(lambda t: t not in EVENT_TYPES)),
               raw=json_values(), problem=_optional(texts())),
    )


def history_events(*, extras: bool = True) -> st.SearchStrategy[HistoryEvent]:
    """Any single history line: a message of any role or an event of any type."""
    return messages(extras=extras) | events(extras=extras)


def _assistant_turns(*, extras: bool) -> st.SearchStrategy[list[HistoryEvent]]:
    """An assistant message with tool calls, then tool messages answering them in order (the
    last few sometimes unanswered, as after a crash)."""
    messages = assistant_messages(extras=extras)
    results = tool_messages(extras=extras)
    calls = st.lists(tool_call_parts(extras=extras), min_size=1, max_size=3)

    @st.composite
    def turn(draw: st.DrawFn) -> list[HistoryEvent]:
        message = draw(messages)
        message = replace(message, parts=(*message.parts, *draw(calls)))
        made = [p for p in message.parts if isinstance(p, ToolCallPart)]
        answered = len(made) - draw(st.integers(min_value=0, max_value=len(made)))
        answers = [replace(draw(results), call_id=c.id, tool_name=c.name) for c in made[:answered]]
        return [message, *answers]

    return turn()


def histories(*, max_turns: int = 6, extras: bool = True) -> st.SearchStrategy[list[HistoryEvent]]:
    """Any history: every role, part type and event type, tool results that answer their calls
    (and some that answer nothing), unknown parts and events, arbitrary unicode."""
    single: st.SearchStrategy[list[HistoryEvent]] = history_events(extras=extras).map(lambda e: [e])
    turns = st.lists(_assistant_turns(extras=extras) | single, max_size=max_turns)
    return turns.map(lambda chunks: [event for chunk in chunks for event in chunk])
