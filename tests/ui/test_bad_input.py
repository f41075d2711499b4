"""Bad input to the chat-UI readers: partwire's own error, naming the place; unknown types kept."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partwire import AssistantMessage, UnknownPart
from partwire.errors import WireFormatError
from partwire.ui import ag_ui, ai_sdk, ai_sdk_model, ai_sdk_stream
from tests.harness.depth import examples

_TEXT = {"type": "text", "text": "hi"}


@pytest.mark.parametrize(("messages", "path"), [
    ({"id": "m"}, "messages"),
    (["not a message"], "messages[0]"),
    ([{"role": "user", "parts": []}], "messages[0].id"),
    ([{"id": "m", "role": "tool", "parts": []}], "messages[0].role"),
    ([{"id": "m", "role": "user", "parts": "hi"}], "messages[0].parts"),
    ([{"id": "m", "role": "user", "parts": [_TEXT, {"text": "no type"}]}], "messages[0].parts[1]"),
    ([{"id": "m", "role": "assistant", "parts": [{"type": "tool-f", "state": "input-available"}]}],
     "messages[0].parts[0]"),
    ([{"id": "m", "role": "assistant", "parts": [{"type": "tool-f", "toolCallId": "c", "state": "done"}]}],
     "messages[0].parts[0]"),
    ([{"id": "m", "role": "assistant", "parts": [
        {"type": "tool-f", "toolCallId": "c", "state": "output-error", "input": {}}]}],
     "messages[0].parts[0]"),
    ([{"id": "m", "role": "user", "parts": [
        {"type": "text", "text": "hi", "providerMetadata": {"partwire": {"type": "image"}}}]}],
     "messages[0].parts[0]"),
    ([{"id": "m", "role": "user", "metadata": {"partwire": {"v": 1, "type": "message", "role": "nobody"}},
       "parts": []}], "messages[0]"),
])
def test_a_malformed_ui_message_is_refused_at_its_place(messages: Any, path: str) -> None:
    """A UI message list that is not one raises ``WireFormatError`` naming the message or part."""
    with pytest.raises(WireFormatError) as caught:
        ai_sdk.from_wire(messages)
    assert caught.value.provider == "ai-sdk-ui"
    assert caught.value.path is not None
    assert caught.value.path.startswith(path)
    assert path in str(caught.value)


@pytest.mark.parametrize(("source", "path"), [
    ('data: {"type":"start"}\n\ndata: {"type":"text-st', "chunk[1]"),
    ('data: {"type":"start"}\n\ndata: {"type":"text-start","id":"t"}', "chunk[1]"),
    ('data: {"type":"start"}\n\ndata: not json\n\n', "chunk[1]"),
    ('data: {"type":"start"}\n\ndata: [1, 2]\n\n', "chunk[1]"),
    ('data: {"type":"text-delta","id":"t","delta":"x"}\n\n', "chunk[0]"),
    ('data: {"type":"text-start"}\n\n', "chunk[0]"),
    ('data: {"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"{"}\n\n', "chunk[0]"),
    ('data: {"type":"tool-output-available","toolCallId":"c","output":1}\n\n', "chunk[0]"),
    ('data: {"type":"tool-input-start","toolName":"f"}\n\n', "chunk[0]"),
    (b'data: {"type":"start"}\n\ndata: \xff\n\n', "sse"),
])
def test_a_broken_ui_stream_is_refused_at_its_chunk(source: str | bytes, path: str) -> None:
    """A stream cut inside a chunk, a chunk that is not a JSON object with a type, or one that
    addresses a part that never started, raises ``WireFormatError`` naming the chunk."""
    with pytest.raises(WireFormatError) as caught:
        ai_sdk_stream.from_stream(source)
    assert caught.value.path == path
    assert path in str(caught.value)


def test_an_unknown_chunk_type_is_kept() -> None:
    """A chunk type partwire does not know becomes an unknown part holding the chunk."""
    chunks = [{"type": "start", "messageId": "m"}, {"type": "new-thing", "x": 1}, {"type": "finish"}]
    [message] = ai_sdk_stream.from_stream(chunks).value
    assert isinstance(message, AssistantMessage)
    [part] = message.parts
    assert isinstance(part, UnknownPart)
    assert (part.original_type, part.raw) == ("new-thing", {"type": "new-thing", "x": 1})


@pytest.mark.parametrize("kind", ["custom", "reasoning-file", "steering-message", "data-weather",
                                  "source-document", "some-future-part"])
def test_an_unknown_ui_part_is_kept_and_written_back(kind: str) -> None:
    """A UI part type partwire has no part for comes back as it came after a round trip."""
    part = {"type": kind, "payload": {"n": 1}}
    message = {"id": "m", "role": "assistant", "parts": [_TEXT, part]}
    history = ai_sdk.from_wire([message]).value
    assert ai_sdk.to_wire(history).value[0]["parts"][1] == part


@pytest.mark.parametrize(("messages", "path"), [
    ("not a list", "messages"),
    ([{"role": "robot", "content": "x"}], "messages[0].role"),
    ([{"role": "system", "content": [_TEXT]}], "messages[0].content"),
    ([{"role": "user", "content": 3}], "messages[0].content"),
    ([{"role": "assistant", "content": [{"type": "tool-call", "input": {}}]}], "messages[0].content[0]"),
    ([{"role": "tool", "content": [{"type": "tool-result", "toolName": "f", "output": {"type": "text", "value": ""}}]}],
     "messages[0].content[0]"),
    ([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f",
                                    "output": {"type": "telepathy"}}]}], "messages[0].content[0].output"),
    ([{"role": "user", "content": [{"type": "file", "mediaType": "image/png", "data": 5}]}],
     "messages[0].content[0]"),
])
def test_a_malformed_model_message_is_refused_at_its_place(messages: Any, path: str) -> None:
    """A ModelMessage list that is not one raises ``WireFormatError`` naming the place."""
    with pytest.raises(WireFormatError) as caught:
        ai_sdk_model.from_wire(messages)
    assert (caught.value.provider, caught.value.path) == ("ai-sdk-model", path)


@pytest.mark.parametrize(("messages", "path"), [
    ({"id": "m"}, "messages"),
    ([{"role": "user", "content": "hi"}], "messages[0]"),
    ([{"id": "a", "role": "assistant", "content": 5}], "messages[0].content"),
    ([{"id": "a", "role": "assistant", "toolCalls": [{"id": "c"}]}], "messages[0].toolCalls"),
    ([{"id": "t", "role": "tool", "content": "x"}], "messages[0].toolCallId"),
    ([{"id": "r", "role": "reasoning", "content": None}], "messages[0].content"),
    ([{"id": "a", "role": "assistant", "content": "x", "metadata": {"partwire": {"parts": [{"tool": 3, "part": {}}]}}}],
     "messages[0].metadata.partwire.parts[0]"),
])
def test_a_malformed_ag_ui_message_is_refused_at_its_place(messages: Any, path: str) -> None:
    """AG-UI messages that are not such raise ``WireFormatError`` naming the message or field."""
    with pytest.raises(WireFormatError) as caught:
        ag_ui.from_wire(messages)
    assert (caught.value.provider, caught.value.path) == ("ag-ui", path)


@pytest.mark.parametrize(("events", "path"), [
    (["{not json"], "events[0]"),
    ([{"delta": "x"}], "events[0]"),
    ([{"type": "TEXT_MESSAGE_CONTENT", "delta": "x"}], "events[0].messageId"),
    ([{"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{"}], "events[0]"),
    ([{"type": "TOOL_CALL_START", "toolCallId": "c"}], "events[0].toolCallName"),
    ([{"type": "MESSAGES_SNAPSHOT", "messages": "all"}], "events[0]"),
])
def test_a_malformed_ag_ui_event_is_refused_at_its_place(events: Any, path: str) -> None:
    """An event that is not an AG-UI event, or addresses a call that never started, raises
    ``WireFormatError`` naming it."""
    with pytest.raises(WireFormatError) as caught:
        ag_ui.from_stream(events)
    assert (caught.value.provider, caught.value.path) == ("ag-ui", path)


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(
                         ["id", "role", "parts", "type", "content", "text", "toolCallId", "state",
                          "metadata", "partwire", "messageId", "delta", "input", "output"]), inner, max_size=5),
                     max_leaves=20)
_ROLES = st.sampled_from(["system", "user", "assistant", "tool", "reasoning", "developer"])
_MESSAGES = st.lists(st.fixed_dictionaries({"id": st.text(max_size=3), "role": _ROLES},
                                           optional={"parts": _JSON, "content": _JSON, "metadata": _JSON,
                                                     "toolCallId": _JSON, "toolCalls": _JSON}), max_size=3)


@settings(max_examples=examples(150), deadline=None)
@given(st.one_of(_JSON, _MESSAGES))
def test_no_reader_fails_with_anything_but_its_own_error(value: Any) -> None:
    """Whatever JSON a reader is given, it reads it or raises ``WireFormatError``: never a
    ``KeyError``, ``TypeError`` or pydantic's own error."""
    readers = (ai_sdk.from_wire, ai_sdk_model.from_wire, ag_ui.from_wire,
               lambda v: ai_sdk_stream.from_stream(v if isinstance(v, list) else [v]),
               lambda v: ag_ui.from_stream(v if isinstance(v, list) else [v]))
    for read in readers:
        with contextlib.suppress(WireFormatError):
            read(value)
