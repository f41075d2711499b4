"""The Responses adapter reading a request body (from_wire_request): what a request imports as, what
goes back exactly when it is written again, and what a refused request names."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from partwire import (
    DocumentPart,
    TextPart,
    TextSource,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UserMessage,
)
from partwire.adapters import ProviderError, WireFormatError, openai_responses
from tests.adapters.test_openai_responses_unit import example


def test_d_to_d2_follow_up_equals_the_reference() -> None:
    """D(d)'s request and answer plus the tool output give exactly D(d2): every item echoed, in order."""
    imported = openai_responses.from_wire_request(example("resp_req_d.json"))
    reply = openai_responses.from_wire(example("resp_resp_d.json"))
    function_call = next(p for p in reply.parts if isinstance(p, ToolCallPart))
    history = [*imported.history, reply, ToolMessage(
        call_id=function_call.id, tool_name="get_weather", output_text='{"temp_c":18,"conditions":"light rain"}')]
    projection = openai_responses.to_wire(history, **imported.to_wire_kwargs())
    assert projection.request == example("resp_req_d2.json")
    assert projection.losses == ()


def test_string_input_and_item_references_import() -> None:
    """A string input and an item_reference import and re-export exactly."""
    for body in ({"model": "gpt-5.5", "input": "hello"},
                 {"model": "gpt-5.5", "input": [{"type": "item_reference", "id": "msg_1"},
                                                 {"role": "user", "content": "and?"}]}):
        imported = openai_responses.from_wire_request(body)
        assert openai_responses.to_wire(imported.history, **imported.to_wire_kwargs()).request == body


def test_item_reference_in_a_stateless_request_is_reported() -> None:
    """An item_reference sent with store: false depends on server state; the loss list says so."""
    imported = openai_responses.from_wire_request(
        {"model": "gpt-5.5", "input": [{"type": "item_reference", "id": "msg_1"}]})
    projection = openai_responses.to_wire(imported.history, model="gpt-5.5")
    assert projection.request["input"] == [{"type": "item_reference", "id": "msg_1"}]
    assert [loss.action for loss in projection.losses] == ["downgraded"]


def test_bad_bodies_raise_named_errors() -> None:
    """An error body raises ProviderError; a body that is no response raises WireFormatError."""
    with pytest.raises(ProviderError, match="rate_limit_exceeded"):
        openai_responses.from_wire({"error": {"message": "slow down", "type": "requests",
                                              "code": "rate_limit_exceeded"}})
    with pytest.raises(WireFormatError, match="output"):
        openai_responses.from_wire({"id": "resp_x"})
    with pytest.raises(WireFormatError):
        openai_responses.from_wire({"id": "resp_x", "output": [1]})
    with pytest.raises(WireFormatError):
        openai_responses.from_wire_request({"model": "m", "input": 3})


def test_easy_assistant_items_keep_their_phase() -> None:
    """An imported easy-form assistant item (a string, with its phase) comes back exactly."""
    body = {"model": "m", "input": [{"role": "user", "content": "q"},
                                    {"role": "assistant", "content": "a", "phase": "final_answer"},
                                    {"type": "message", "role": "assistant", "content": "b"}]}
    imported = openai_responses.from_wire_request(body)
    assert [p.text for p in imported.history[1].parts] == ["a", "b"]  # type: ignore[union-attr]
    assert openai_responses.to_wire(imported.history, **imported.to_wire_kwargs()).request == body


@pytest.mark.parametrize(("body", "path"), [
    ({"input": [{"role": "user", "content": "hi"}, 7]}, "input[1]"),
    ({"input": [{"role": "user", "content": "hi"}, {"role": "user", "content": 5}]}, "input[1].content"),
    ({"input": [{"type": "function_call_output", "call_id": 5, "output": "x"}]}, "input[0].call_id"),
    ({"model": "gpt-5.5"}, "input"),
    ({"input": 5}, "input"),
])
def test_a_refused_request_names_the_item(body: dict[str, Any], path: str) -> None:
    """A request the reader refuses raises WireFormatError whose path is the input item (or field) at fault."""
    with pytest.raises(WireFormatError) as refused:
        openai_responses.from_wire_request(body)
    assert refused.value.path == path
    assert f"at {path}" in str(refused.value)


def test_an_output_item_of_a_strange_shape_is_kept_whole() -> None:
    """An input item whose type is not a string is kept as an unknown part, not refused."""
    item = {"type": ["function_call"], "call_id": "call_1"}
    imported = openai_responses.from_wire_request({"input": [{"role": "user", "content": "hi"}, item]})
    (part,) = imported.history[1].parts  # type: ignore[union-attr]
    assert isinstance(part, UnknownPart)
    assert part.raw == item


def test_a_plain_text_document_is_sent_as_a_file_and_read_back_as_text() -> None:
    """input_file takes text/plain (the API answered 200 to it): a text document goes as a file
    with a data URL, with no loss, and comes back as the same text; a Markdown one still goes as
    text, reported."""
    plain = DocumentPart(source=TextSource(text="héllo"), media_type="text/plain", filename="a.txt")
    projection = openai_responses.to_wire([UserMessage([TextPart(text="read"), plain])], model="gpt-5.5")
    item = projection.request["input"][0]["content"][1]
    data = base64.b64encode("héllo".encode()).decode()
    assert item == {"type": "input_file", "file_data": f"data:text/plain;base64,{data}", "filename": "a.txt"}
    assert projection.losses == ()
    back = openai_responses.from_wire_request(projection.request).history[0]
    assert isinstance(back, UserMessage)
    assert back.parts[1] == plain
    markdown = DocumentPart(source=TextSource(text="# t"), media_type="text/markdown")
    lost = openai_responses.to_wire([UserMessage([markdown])], model="gpt-5.5").losses
    assert [(x.path, x.action) for x in lost] == [("history[0].parts[0]", "downgraded")]


def test_a_chained_request_keeps_a_tool_result_whose_call_the_stored_response_made() -> None:
    """A chained body's function_call_output answers a call of the previous response, which the
    request does not hold: it is read, and written back, not dropped as an orphan (the wire law
    found this). A stateless body with the same result does drop it, with a loss."""
    body = {"model": "gpt-5.5", "previous_response_id": "resp_1",
            "input": [{"type": "function_call_output", "call_id": "call_1", "output": ""}]}
    imported = openai_responses.from_wire_request(body)
    again = openai_responses.to_wire(imported.history, **imported.to_wire_kwargs())
    assert again.request == body
    assert not [loss for loss in again.losses if "answers no tool call" in loss.reason]
    stateless = openai_responses.to_wire(imported.history, model="gpt-5.5")
    assert stateless.request["input"] == []
    assert [loss.path for loss in stateless.losses if "answers no tool call" in loss.reason] == ["history[0]"]


def test_a_body_whose_tools_and_settings_were_met_reads_as_a_first_one() -> None:
    """The tools and settings are remembered by the fields they are read from: another turn with
    the same ones (and another input, other kept fields) gets the same definitions and settings,
    its own params in the same order a first reading gives, and the same body back. A reading
    that put a field back, or kept a tool as a dict, is not remembered."""
    from partwire.adapters.openai_responses._request import _READ
    from partwire.caches import clear

    def body(text: str, **extra: Any) -> dict[str, Any]:
        return {"model": "gpt-4.1", "store": False, "input": [{"role": "user", "content": text}],
                "tools": [{"type": "function", "name": "grep", "description": "Search.",
                           "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                           "strict": False}],
                "tool_choice": "auto", "temperature": 0.5,
                "text": {"format": {"type": "json_schema", "name": "out", "schema": {"type": "object"}}},
                **extra}

    clear()
    first = openai_responses.from_wire_request(body("one"))
    assert len(_READ) == 1
    clear()
    fresh = openai_responses.from_wire_request(body("two", metadata={"run": "7"}))
    again = openai_responses.from_wire_request(body("two", metadata={"run": "7"}))
    assert len(_READ) == 1  # met again: nothing new remembered
    assert again.tools[0] is fresh.tools[0]
    assert again.settings is fresh.settings
    assert list(again.params.items()) == list(fresh.params.items()) == [("store", False), ("metadata", {"run": "7"})]
    assert again.params is not fresh.params
    assert again.params["metadata"] is not first.params.get("metadata")
    sent = openai_responses.to_wire(again.history, **again.to_wire_kwargs()).request
    assert sent == body("two", metadata={"run": "7"})
    assert list(sent) == list(openai_responses.to_wire(fresh.history, **fresh.to_wire_kwargs()).request)

    clear()
    hot = openai_responses.from_wire_request(body("three", temperature=5))  # out of range: put back, raw
    assert not _READ
    assert list(hot.params) == ["store", "temperature"]
    assert hot.settings.temperature is None
    assert openai_responses.from_wire_request(body("three", temperature=5)).params == hot.params
    clear()
    odd = body("four")
    odd["tools"].append({"type": "mystery", "x": 1})
    kept = openai_responses.from_wire_request(odd)
    assert not _READ
    assert kept.tools[1] is odd["tools"][1]  # a tool kept as a dict is the caller's own
