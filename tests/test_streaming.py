"""The shared accumulator and the stream events, independent of any provider; and the SSE decoder."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from partwire import (
    DocumentCitation,
    ErrorEvent,
    Opaque,
    ProviderData,
    RedactedThinkingPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Usage,
)
from partwire.adapters._sse import SSEDecoder, iter_sse
from partwire.streaming import (
    Accumulator,
    CitationEvent,
    MessageCompleteEvent,
    MessageStartEvent,
    PartDataEvent,
    PartEvent,
    SignatureEvent,
    StopEvent,
    StreamErrorEvent,
    StreamEvent,
    StreamProtocolError,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UsageEvent,
    aaccumulate,
    accumulate,
)

SIG_A = Opaque(value="sig-a", issuer="anthropic")
SIG_B = Opaque(value="sig-b", issuer="anthropic")


def fold(*events: StreamEvent) -> Accumulator:
    """An accumulator fed ``events``."""
    acc = Accumulator()
    for event in events:
        acc.feed(event)
    return acc


def test_text_deltas_append_in_order() -> None:
    """Text deltas on one index concatenate into one text part."""
    message = accumulate([TextDeltaEvent(0, "Hel"), TextDeltaEvent(0, "lo"), TextDeltaEvent(0, "!")])
    assert message.parts == (TextPart(text="Hello!"),)


def test_parts_keep_the_order_their_index_first_appeared() -> None:
    """Interleaved deltas build separate parts, ordered by first appearance."""
    message = accumulate([
        ThinkingDeltaEvent(0, "think"), TextDeltaEvent(1, "a"), ThinkingDeltaEvent(0, "ing"),
        TextDeltaEvent(1, "b"),
    ])
    assert message.parts == (ThinkingPart(text="thinking"), TextPart(text="ab"))


def test_signature_replaces_and_never_appends() -> None:
    """A second signature event replaces the first one."""
    message = accumulate([ThinkingDeltaEvent(0, "x"), SignatureEvent(0, SIG_A), SignatureEvent(0, SIG_B)])
    part = message.parts[0]
    assert isinstance(part, ThinkingPart)
    assert part.signature == SIG_B
    assert part.signature.value == "sig-b"


def test_tool_call_arguments_are_kept_as_the_exact_text() -> None:
    """Argument fragments join byte for byte, spacing and key order included."""
    message = accumulate([
        ToolCallStartEvent(0, "tu_1", "search", {"anthropic": "toolu_1"}),
        ToolCallDeltaEvent(0, '{"q":  "pa'), ToolCallDeltaEvent(0, 'ris", "a": 1}'),
        ToolCallEndEvent(0),
    ])
    assert message.parts == (ToolCallPart(id="tu_1", name="search", arguments_json='{"q":  "paris", "a": 1}',
                                          provider_ids={"anthropic": "toolu_1"}),)


def test_truncated_tool_arguments_are_kept_not_discarded() -> None:
    """Arguments cut off mid-string survive as they arrived."""
    message = accumulate([ToolCallStartEvent(0, "tu_1", "f"), ToolCallDeltaEvent(0, '{"path": "src/ma')])
    part = message.parts[0]
    assert isinstance(part, ToolCallPart)
    assert part.arguments_json == '{"path": "src/ma'


def test_whole_parts_arrive_complete() -> None:
    """A PartEvent places a complete part as it is."""
    redacted = RedactedThinkingPart(data=Opaque(value="enc", issuer="anthropic"))
    message = accumulate([PartEvent(0, redacted), TextDeltaEvent(1, "ok")])
    assert message.parts == (redacted, TextPart(text="ok"))


def test_a_part_event_opens_a_part_that_deltas_extend() -> None:
    """An opening ThinkingPart keeps its id and provider data while deltas add text."""
    pd = ProviderData(issuer="openai", data={"status": "in_progress"})
    opening = ThinkingPart(text="", id="rs_1", provider_data=pd)
    message = accumulate([PartEvent(0, opening), ThinkingDeltaEvent(0, "plan"), SignatureEvent(0, SIG_A)])
    part = message.parts[0]
    assert isinstance(part, ThinkingPart)
    assert (part.text, part.id, part.signature, part.provider_data) == ("plan", "rs_1", SIG_A, pd)


def test_part_data_event_replaces_provider_data() -> None:
    """Echo state that arrives mid-part replaces the part's provider data."""
    pd = ProviderData(issuer="google", data={"thoughtSignature": "abc"})
    message = accumulate([TextDeltaEvent(0, "hi"), PartDataEvent(0, pd)])
    assert message.parts[0].provider_data == pd


def test_citations_append_to_their_text_part() -> None:
    """Citation events add to the text part's citations in order."""
    one = DocumentCitation(document_index=0, unit="char", start=0, end=3, cited_text="abc")
    two = DocumentCitation(document_index=1, unit="page", start=1, end=2)
    message = accumulate([TextDeltaEvent(0, "x"), CitationEvent(0, one), CitationEvent(0, two)])
    assert message.parts == (TextPart(text="x", citations=(one, two)),)


def test_usage_totals_overwrite_and_never_add() -> None:
    """The last usage event is the usage; earlier ones are not summed in."""
    message = accumulate([
        UsageEvent(Usage(input_tokens=100, output_tokens=1)),
        UsageEvent(Usage(input_tokens=100, output_tokens=40)),
    ])
    assert message.usage == Usage(input_tokens=100, output_tokens=40)


def test_start_and_stop_fill_the_message_metadata() -> None:
    """Response id, model, api, stop reason and merged echo state come from start and stop events."""
    message = accumulate([
        MessageStartEvent(response_id="msg_1", model="anthropic:claude-x", provider="anthropic",
                          api="anthropic",
                          provider_data=ProviderData(issuer="anthropic", data={"response": {"a": 1}})),
        TextDeltaEvent(0, "hi"),
        StopEvent("stop", "end_turn", ProviderData(issuer="anthropic", data={"response": {"b": 2}})),
    ])
    assert (message.response_id, message.model, message.provider, message.api) == (
        "msg_1", "anthropic:claude-x", "anthropic", "anthropic")
    assert (message.stop_reason, message.stop_reason_raw) == ("stop", "end_turn")
    assert message.provider_data == ProviderData(issuer="anthropic", data={"response": {"a": 1, "b": 2}})


def test_snapshot_is_partial_until_complete() -> None:
    """Before the stream completes the message says partial; complete() marks it whole."""
    acc = fold(TextDeltaEvent(0, "hi"), StopEvent("stop", "end_turn"))
    assert acc.message.status == "partial"
    assert acc.complete().status == "complete"
    assert acc.done


def test_snapshots_share_one_message_id() -> None:
    """Every snapshot and the final message of one stream carry the same id and time."""
    acc = fold(TextDeltaEvent(0, "a"))
    first = acc.message
    acc.feed(TextDeltaEvent(0, "b"))
    second = acc.message
    assert (first.id, first.created_at) == (second.id, second.created_at)
    assert second.text == "ab"


def test_abort_gives_the_partial_message_as_aborted() -> None:
    """abort() keeps what arrived, with status and stop_reason aborted."""
    acc = fold(TextDeltaEvent(0, "partial ans"), ToolCallStartEvent(1, "tu_1", "f"),
               ToolCallDeltaEvent(1, '{"a":'))
    message = acc.abort()
    assert (message.status, message.stop_reason) == ("aborted", "aborted")
    assert message.text == "partial ans"
    assert isinstance(message.parts[1], ToolCallPart)
    assert message.parts[1].arguments_json == '{"a":'


def test_abort_wins_over_the_providers_stop_reason() -> None:
    """A local interrupt forces aborted even when the provider already said why it stopped."""
    acc = fold(TextDeltaEvent(0, "x"), StopEvent("stop", "end_turn"))
    message = acc.abort()
    assert (message.stop_reason, message.stop_reason_raw) == ("aborted", "end_turn")


def test_events_after_abort_are_ignored() -> None:
    """Once aborted, later events do not change the message."""
    acc = fold(TextDeltaEvent(0, "x"))
    aborted = acc.abort()
    acc.feed(TextDeltaEvent(0, "y"))
    assert acc.message == aborted
    assert acc.abort() == aborted


def test_abort_after_completion_still_marks_aborted() -> None:
    """Aborting a stream whose final message was adopted turns that message aborted."""
    acc = fold(TextDeltaEvent(0, "x"))
    final = acc.complete()
    assert acc.abort().status == "aborted"
    assert acc.message.parts == final.parts


def test_an_error_event_keeps_the_partial_message_with_status_error() -> None:
    """An in-stream error keeps the parts so far, status error, and exposes the error."""
    error = ErrorEvent(code="overloaded_error", message="Overloaded", provider="anthropic", retryable=True)
    acc = fold(TextDeltaEvent(0, "so far"), StreamErrorEvent(error))
    assert acc.error == error
    message = acc.complete()
    assert (message.status, message.stop_reason, message.text) == ("error", "error", "so far")


def test_a_completion_event_is_adopted() -> None:
    """An accumulator given the adapter's final message returns exactly that message."""
    final = accumulate([TextDeltaEvent(0, "a")])
    acc = fold(TextDeltaEvent(0, "something else"), MessageCompleteEvent(final))
    assert acc.message is final


@pytest.mark.parametrize(("events", "kind"), [
    ((ToolCallStartEvent(0, "tu_1", "f"), TextDeltaEvent(0, "x")), "tool_call"),
    ((TextDeltaEvent(0, "x"), ThinkingDeltaEvent(0, "y")), "text"),
    ((ToolCallDeltaEvent(0, "{}"),), "nothing"),
    ((ThinkingDeltaEvent(0, "x"), ToolCallEndEvent(0)), "thinking"),
    ((PartDataEvent(3, None),), "nothing"),
])
def test_an_event_that_does_not_fit_its_part_raises(events: tuple[StreamEvent, ...], kind: str) -> None:
    """A delta addressed to a part of another kind is an adapter bug and says so."""
    with pytest.raises(StreamProtocolError) as caught:
        fold(*events)
    assert caught.value.part_type == kind
    assert caught.value.index == events[-1].index  # type: ignore[union-attr]


async def test_aaccumulate_folds_an_async_stream() -> None:
    """The async helper gives what the sync one gives."""

    async def events() -> AsyncIterator[StreamEvent]:
        for event in (TextDeltaEvent(0, "a"), TextDeltaEvent(0, "b")):
            yield event

    assert (await aaccumulate(events())).text == "ab"


# -- server-sent events ------------------------------------------------------------------------

BODY = (
    "event: message_start\r\ndata: {\"a\": 1}\r\n\r\n"
    ": a comment\n"
    "event: delta\ndata: line one\ndata: line two\n\n"
    "data:no-space\rid: 7\r\r"
    "event: tail\ndata: {\"s\": \"sep\u2028kept\"}\n\n"
)


def _decoded(chunks: list[bytes]) -> list[tuple[str | None, str, str | None]]:
    return [(e.event, e.data, e.id) for e in iter_sse(chunks)]


def test_sse_events_are_decoded_by_the_standard_rules() -> None:
    """Names, joined data lines, comments, ids and all three line endings are handled."""
    assert _decoded([BODY.encode()]) == [
        ("message_start", '{"a": 1}', None),
        ("delta", "line one\nline two", None),
        (None, "no-space", "7"),
        ("tail", '{"s": "sep\u2028kept"}', "7"),
    ]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 64])
def test_sse_bytes_may_be_split_anywhere(size: int) -> None:
    """Chunks cut inside UTF-8 characters and between CR and LF decode the same."""
    raw = BODY.encode()
    chunks = [raw[i:i + size] for i in range(0, len(raw), size)]
    assert _decoded(chunks) == _decoded([raw])


def test_sse_last_event_without_blank_line_is_flushed() -> None:
    """A body that ends right after its last data line still yields that event."""
    decoder = SSEDecoder()
    assert decoder.feed("event: x\ndata: 1") == []
    assert [(e.event, e.data) for e in decoder.flush()] == [("x", "1")]


def test_sse_a_long_line_in_small_pieces_is_one_event_when_its_blank_line_comes() -> None:
    """A 100,000-character data line fed three bytes at a time (its CRLF split) gives one event,
    at the piece that completes its blank line, and nothing before."""
    raw = ("data: " + "é" * 50_000 + "x" * 50_000 + "\r\n\r\n").encode()
    decoder = SSEDecoder()
    given = [(i, [e.data for e in decoder.feed(raw[i:i + 3])]) for i in range(0, len(raw), 3)]
    found = [(i, data) for i, data in given if data]
    last_piece = (len(raw) - 2) // 3 * 3  # the piece holding the blank line's "\r", which ends it
    assert found == [(last_piece, ["é" * 50_000 + "x" * 50_000])]
    assert decoder.flush() == []
