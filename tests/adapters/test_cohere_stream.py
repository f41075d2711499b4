"""The Cohere v2 stream: tool plans, citations, unknown content, errors and cut streams."""

from __future__ import annotations

from typing import Any

import pytest

from partwire import TextPart
from partwire.adapters import cohere
from partwire.errors import WireFormatError
from partwire.streaming import StreamErrorEvent, accumulate
from tests.harness.compare import comparable

START = {"id": "6cd6ce61-bb3b-46f6-907e-fcfab45e51b6", "type": "message-start",
         "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}}


def _text(index: int, *pieces: str) -> list[dict[str, Any]]:
    return [{"type": "content-start", "index": index, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
            *({"type": "content-delta", "index": index, "delta": {"message": {"content": {"text": p}}}} for p in pieces),
            {"type": "content-end", "index": index}]


def _end(reason: str = "COMPLETE", **extra: Any) -> dict[str, Any]:
    return {"type": "message-end", "delta": {"finish_reason": reason, **extra}}


def test_a_streamed_plan_and_call_equal_the_whole_response() -> None:
    """tool-plan-delta and tool-call events fold to what from_wire gives for the same answer."""
    events = [START, {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will "}}},
              {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "look."}}},
              {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {
                  "id": "f_1", "type": "function", "function": {"name": "f", "arguments": ""}}}}},
              {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": '{"a":'}}}}},
              {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": "1}"}}}}},
              {"type": "tool-call-end", "index": 0}, _end("TOOL_CALL")]
    whole = cohere.from_wire({"id": START["id"], "finish_reason": "TOOL_CALL", "message": {
        "role": "assistant", "tool_plan": "I will look.",
        "tool_calls": [{"id": "f_1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}]}})
    assert comparable(accumulate(cohere.stream(events))).model_dump() == comparable(whole).model_dump()


def test_a_citation_lands_on_its_text_as_it_arrives() -> None:
    """citation-start puts the citation on the text part of its content index, sources kept."""
    citation = {"start": 0, "end": 5, "text": "Obama", "content_index": 0,
                "sources": [{"type": "document", "id": "doc:1", "document": {"id": "doc:1", "text": "..."}}]}
    events = [START, *_text(0, "Obama", " founded it."),
              {"type": "citation-start", "index": 0, "delta": {"message": {"citations": citation}}},
              {"type": "citation-end", "index": 0}, _end()]
    message = accumulate(cohere.stream(events))
    (part,) = message.parts
    assert isinstance(part, TextPart)
    assert [(c.start, c.end, c.cited_text, c.document_index) for c in part.citations  # type: ignore[union-attr]
            ] == [(0, 5, "Obama", 1)]


def test_an_error_at_message_end_keeps_what_arrived() -> None:
    """A message-end with an error is one StreamErrorEvent (error_type its code) and the partial
    text, status error."""
    events = [START, *_text(0, "Half"), _end("ERROR", usage={}, error="invalid tool generation",
                                             error_type="INVALID_TOOL_GENERATION")]
    out = list(cohere.stream(events))
    errors = [e for e in out if isinstance(e, StreamErrorEvent)]
    assert [(e.error.code, e.error.message) for e in errors] == [("INVALID_TOOL_GENERATION", "invalid tool generation")]
    message = out[-1].message  # type: ignore[union-attr]
    assert (message.status, message.text) == ("error", "Half")


def test_a_cut_stream_ends_with_the_partial_message() -> None:
    """A stream that stops before message-end yields the text so far, status partial."""
    message = accumulate(cohere.stream([START, *_text(0, "So far")[:2]]))
    assert (message.status, message.text) == ("partial", "So far")


def test_an_unknown_content_type_arrives_whole_at_its_end() -> None:
    """A content type this version does not know is kept, as the unknown item it is."""
    events = [START, {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "audio", "text": ""}}}},
              {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "la"}}}},
              {"type": "content-end", "index": 0}, _end()]
    (part,) = accumulate(cohere.stream(events)).parts
    assert part.type == "unknown"
    assert part.raw == {"type": "audio", "text": "la"}


def test_sse_with_data_lines_only_reads_its_types_from_the_data() -> None:
    """SSE without ``event:`` lines reads the same: each event names its type in its data."""
    sse = ('data: {"id":"x","type":"message-start","delta":{"message":{"role":"assistant"}}}\n\n'
           'data: {"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}\n\n'
           'data: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"hi"}}}}\n\n'
           'data: {"type":"message-end","delta":{"finish_reason":"COMPLETE"}}\n\ndata: [DONE]\n\n')
    message = accumulate(cohere.stream(sse))
    assert (message.text, message.status, message.response_id) == ("hi", "complete", "x")


def test_data_that_is_not_json_is_refused() -> None:
    """An SSE data line that is not JSON is a WireFormatError, not a skipped event."""
    with pytest.raises(WireFormatError, match="not JSON"):
        list(cohere.stream("event: content-delta\ndata: {oops\n\n"))
