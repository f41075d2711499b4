"""The Responses adapter's own rules: reasoning echo, continuation modes, ids, items, errors.

The reasoning cases are the ones peers ship bugs on (``../shared/wire/openai.md`` B.1.2, C.3):
a reasoning item is echoed whole and byte-exact to OpenAI and to nobody else, a stateless
request always asks for the encrypted reasoning, an item is never dropped just because it has
no ``encrypted_content`` (it is dropped, with a loss, only when its id cannot resolve), and a
stateless echo sends whole items, never references to stored ones. The wire examples D(d),
D(d2), D(e) of the wire reference are under ``tests/harness/responses/openai_responses/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    DeveloperMessage,
    HistoryEvent,
    ImagePart,
    Opaque,
    ProviderData,
    RefusalPart,
    ServerToolCallPart,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UnknownPart,
    UrlSource,
    UserMessage,
)
from partwire.adapters import get_adapter, openai_responses
from partwire.adapters.openai_responses._wire import admits_call_id
from partwire.errors import LossError
from partwire.streaming import accumulate
from tests.harness.compare import comparable
from tests.harness.validity import assert_valid_request

EXAMPLES = Path(__file__).resolve().parents[1] / "harness" / "responses" / "openai_responses" / "wire_examples"
BLOB = "gAAAAABpVg8D3xq0Jd2mE1sYk9bR7tU4vW6zC8nL0pQ5aH3fG2jK1mN4rT7yX9cV6bZ8-_EXAMPLE_OPAQUE_BLOB=="


def example(name: str) -> Any:
    """One of the wire reference's replayable examples."""
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def reasoning(*, signed: bool = True, rs: str = "rs_1", text: str = "thinking") -> ThinkingPart:
    """A reasoning part as the decoder gives it."""
    return ThinkingPart(text=text, id=rs, signature=Opaque(value=BLOB, issuer="openai") if signed else None,
                        provider_data=ProviderData(issuer="openai", data={"summary": [len(text)]}))


def answer(*parts: Any, store: bool | None = False, response_id: str | None = "resp_1",
           provider: str = "openai", api: str = "openai_responses") -> AssistantMessage:
    """An earlier answer of the Responses API (with its response's ``store``)."""
    data = {"response": {"store": store}} if store is not None else {}
    return AssistantMessage(list(parts), provider=provider, api=api, response_id=response_id,
                            provider_data=ProviderData(issuer=provider, data=data) if data else None)


def call(call_id: str = "call_1", name: str = "get_weather") -> ToolCallPart:
    """A function call OpenAI issued."""
    return ToolCallPart.create(name, {"city": "Paris"}, provider_ids={"openai": call_id})


def items(history: list[Any], **kwargs: Any) -> list[dict[str, Any]]:
    """The input items to_wire sends for ``history``."""
    body: list[dict[str, Any]] = openai_responses.to_wire(history, model="gpt-5.5", **kwargs).request["input"]
    return body


# -- the registry and the surface --------------------------------------------------------------


def test_registered_under_its_name() -> None:
    """get_adapter finds the module under both spellings, and it has the contract's surface."""
    assert get_adapter("openai_responses") is openai_responses
    assert get_adapter("openai-responses") is openai_responses
    assert openai_responses.NAME == "openai_responses"
    assert openai_responses.CAPABILITIES.developer_role is True


def test_options_from_a_mapping_with_strings() -> None:
    """options= takes a mapping of strings (as the CLI gives them) and refuses an unknown mode."""
    history = [UserMessage("hi")]
    chained = openai_responses.to_wire(history, model="gpt-5.5", options={"continuation": "chained"})
    assert "store" not in chained.request
    with pytest.raises(ValueError, match="continuation"):
        openai_responses.to_wire(history, model="gpt-5.5", options={"continuation": "sometimes"})


# -- reasoning echo ------------------------------------------------------------------------------


def test_reasoning_is_echoed_whole_to_openai() -> None:
    """A reasoning item goes back with its id, its summary and its encrypted content, exactly."""
    sent = items([UserMessage("q"), answer(reasoning(), "a")])
    assert sent[1] == {"id": "rs_1", "type": "reasoning", "encrypted_content": BLOB,
                       "summary": [{"type": "summary_text", "text": "thinking"}]}


def test_stateless_request_asks_for_encrypted_reasoning() -> None:
    """Every stateless request sets store: false and includes reasoning.encrypted_content."""
    request = openai_responses.to_wire([UserMessage("q")], model="gpt-5.5").request
    assert request["store"] is False
    assert request["include"] == ["reasoning.encrypted_content"]


def test_reasoning_without_blob_from_a_stored_response_is_kept() -> None:
    """Reasoning with no encrypted_content is still sent when its response was stored: the id resolves."""
    item = {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}]}
    decoded = openai_responses.from_wire({"id": "resp_1", "model": "gpt-5.5", "status": "completed",
                                          "output": [item]})
    assert items([UserMessage("q"), decoded])[1] == item
    assert items([UserMessage("q"), answer(reasoning(signed=False), "a", store=None)])[1] == item


def test_reasoning_without_blob_from_an_unstored_response_is_dropped_with_a_loss() -> None:
    """Reasoning nobody can resolve (no blob, store: false) is not sent, and the loss says why."""
    projection = openai_responses.to_wire(
        [UserMessage("q"), answer(reasoning(signed=False), "a", store=False)], model="gpt-5.5")
    assert [i.get("type") for i in projection.request["input"]] == [None, None]
    assert [(loss.action, loss.path) for loss in projection.losses] == [("dropped", "history[1].parts[0]")]
    assert "store: false" in projection.losses[0].reason


def test_stateless_echo_sends_items_never_references() -> None:
    """A stateless echo sends the reasoning item itself, not an item_reference to a stored one."""
    sent = items([UserMessage("q"), answer(reasoning(), call()), ToolMessage(
        call_id="x", tool_name="get_weather", output_text="sunny")])
    assert all(item.get("type") != "item_reference" for item in sent)
    assert sent[1]["encrypted_content"] == BLOB


def test_reasoning_from_another_provider_is_dropped_with_a_loss() -> None:
    """Anthropic's signed thinking is not sent to OpenAI; the loss names it."""
    thinking = ThinkingPart(text="t", signature=Opaque(value="sig", issuer="anthropic"))
    projection = openai_responses.to_wire(
        [UserMessage("q"), answer(thinking, "a", provider="anthropic", api="anthropic")], model="gpt-5.5")
    assert all(i.get("type") != "reasoning" for i in projection.request["input"])
    assert [(loss.action, loss.part_type) for loss in projection.losses] == [("dropped", "thinking")]


def test_openai_reasoning_goes_to_no_other_provider() -> None:
    """Encrypted OpenAI reasoning reaches neither Anthropic nor Chat Completions, each with a loss."""
    history: list[HistoryEvent] = [UserMessage("q"), answer(reasoning(), "a")]
    for name in ("anthropic", "openai_chat"):
        projection = get_adapter(name).to_wire(history, model="m")
        assert BLOB not in json.dumps(projection.request)
        assert ("dropped", "history[1].parts[0]") in [(loss.action, loss.path) for loss in projection.losses]


def test_multi_part_summary_round_trips() -> None:
    """A summary of several entries comes back as the same entries (the text joins them)."""
    item = {"id": "rs_9", "type": "reasoning", "encrypted_content": BLOB,
            "summary": [{"type": "summary_text", "text": "one"}, {"type": "summary_text", "text": "two"}]}
    message = openai_responses.from_wire({"id": "resp_9", "model": "gpt-5.5", "status": "completed",
                                          "output": [item]})
    assert message.parts[0].text == "one\n\ntwo"  # type: ignore[union-attr]
    assert items([UserMessage("q"), message])[1] == item


def test_strict_mode_raises_on_dropped_reasoning() -> None:
    """strict=True turns the loss of foreign reasoning into a LossError."""
    thinking = ThinkingPart(text="t", signature=Opaque(value="sig", issuer="anthropic"))
    with pytest.raises(LossError):
        openai_responses.to_wire([UserMessage("q"), answer(thinking)], model="gpt-5.5", strict=True)


# -- the wire examples ---------------------------------------------------------------------------


def test_d_stream_accumulates_to_d() -> None:
    """D(e), as raw SSE text, accumulates to the message from_wire gives for D(d)."""
    streamed = accumulate(openai_responses.stream((EXAMPLES / "resp_sse_e.txt").read_bytes()))
    assert comparable(streamed) == comparable(openai_responses.from_wire(example("resp_resp_d.json")))
    assert streamed.parts[0].signature == Opaque(value=BLOB, issuer="openai")  # type: ignore[union-attr]


def test_round_trip_is_byte_equal_with_reasoning_and_parallel_calls() -> None:
    """Responses -> canonical -> Responses gives the output items back byte for byte (API key order)."""
    output = [
        {"id": "rs_a1", "type": "reasoning", "encrypted_content": BLOB,
         "summary": [{"type": "summary_text", "text": "Two cities, two calls."}]},
        {"id": "msg_a2", "type": "message", "status": "completed",
         "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "Checking both."}],
         "phase": "commentary", "role": "assistant"},
        {"id": "fc_a3", "type": "function_call", "status": "completed", "arguments": '{"city":"Paris"}',
         "call_id": "call_P", "name": "get_weather"},
        {"id": "fc_a4", "type": "function_call", "status": "completed", "arguments": '{"city": "Tokyo"}',
         "call_id": "call_T", "name": "get_weather"},
    ]
    reply = openai_responses.from_wire({"id": "resp_a", "model": "gpt-5.5", "status": "completed",
                                        "store": False, "output": output})
    calls = [p for p in reply.parts if isinstance(p, ToolCallPart)]
    history = [UserMessage("Weather in Paris and Tokyo?"), reply,
               *(ToolMessage(call_id=c.id, tool_name=c.name, output_text="sunny") for c in calls)]
    sent = items(history)
    assert json.dumps(sent[1:5]) == json.dumps(output)
    assert [i["call_id"] for i in sent[5:]] == ["call_P", "call_T"]


# -- continuation -----------------------------------------------------------------------------------


def _conversation(store: bool | None = None) -> list[Any]:
    return [SystemMessage("Be brief."), UserMessage("q1"), answer(reasoning(), call(), store=store),
            ToolMessage(call_id="x", tool_name="get_weather", output_text="sunny"), UserMessage("q2")]


def test_chained_sends_only_what_follows_the_last_answer() -> None:
    """Chained: previous_response_id of the last answer, its later events only, instructions again."""
    history = _conversation()
    history[3] = ToolMessage(call_id=history[2].parts[1].id, tool_name="get_weather", output_text="sunny")
    projection = openai_responses.to_wire(history, model="gpt-5.5", continuation="chained")
    request = projection.request
    assert request["previous_response_id"] == "resp_1"
    assert request["instructions"] == "Be brief."
    assert request["input"] == [
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
        {"role": "user", "content": "q2"}]
    assert "store" not in request
    assert "include" not in request
    assert projection.losses == ()


@pytest.mark.parametrize(("last", "why"), [
    (answer("a", store=False), "not stored"),
    (answer("a", response_id=None), "no response id"),
    (answer("a", provider="anthropic", api="anthropic", store=None), "anthropic"),
])
def test_unusable_chain_falls_back_to_every_item_with_a_loss(last: AssistantMessage, why: str) -> None:
    """A chain that cannot be used sends every item, still asks for reasoning, and says why as a loss."""
    projection = openai_responses.to_wire([UserMessage("q1"), last, UserMessage("q2")], model="gpt-5.5",
                                          continuation="chained")
    assert "previous_response_id" not in projection.request
    assert len(projection.request["input"]) >= 2
    assert projection.request["include"] == ["reasoning.encrypted_content"]
    assert "store" not in projection.request  # stored, so the chain resumes next turn
    assert (projection.losses[0].action, projection.losses[0].path) == ("downgraded", "history")
    assert why in projection.losses[0].reason


def test_chained_first_turn_is_no_loss() -> None:
    """A first turn has nothing to chain from: every item, no loss."""
    projection = openai_responses.to_wire([UserMessage("q")], model="gpt-5.5", continuation="chained")
    assert projection.request["input"] == [{"role": "user", "content": "q"}]
    assert projection.losses == ()


def test_response_id_survives_a_save_and_reload_for_chaining() -> None:
    """The chain reads only the stored message: the codec's round trip keeps what it needs."""
    from partwire.history import EVENT_ADAPTER

    history = _conversation()
    reloaded = [EVENT_ADAPTER.validate_json(EVENT_ADAPTER.dump_json(e)) for e in history]
    projection = openai_responses.to_wire(reloaded, model="gpt-5.5", continuation="chained")
    assert projection.request["previous_response_id"] == "resp_1"


# -- messages, ids and items ------------------------------------------------------------------------


def test_system_becomes_instructions_and_developer_stays_native() -> None:
    """Leading system text goes to instructions; a developer message is a developer-role item."""
    request = openai_responses.to_wire(
        [SystemMessage("Be brief."), UserMessage("q"), DeveloperMessage("$ ls\nfoo")], model="gpt-5.5").request
    assert request["instructions"] == "Be brief."
    assert request["input"][1] == {"role": "developer", "content": "$ ls\nfoo"}


def test_foreign_call_ids_the_rule_admits_go_as_they_are() -> None:
    """An Anthropic tool call goes as a function_call with its toolu_ id as call_id (no item id), and no loss."""
    foreign = ToolCallPart.create("get_weather", {"city": "Paris"}, provider_ids={"anthropic": "toolu_1"})
    projection = openai_responses.to_wire(
        [UserMessage("q"), answer(foreign, provider="anthropic", api="anthropic", store=None),
         ToolMessage(call_id=foreign.id, tool_name="get_weather", output_text="sunny")], model="gpt-5.5")
    sent = projection.request["input"]
    assert sent[1] == {"type": "function_call", "call_id": "toolu_1", "name": "get_weather",
                       "arguments": foreign.arguments_json}
    assert sent[2] == {"type": "function_call_output", "call_id": "toolu_1", "output": "sunny"}
    assert projection.losses == ()


@pytest.mark.parametrize("general", [False, True], ids=["inline", "general"])
@pytest.mark.parametrize(("size", "admitted"), [(1, True), (64, True), (65, False)])
def test_call_id_length_boundary(size: int, admitted: bool, general: bool) -> None:
    """A foreign call id of 1 to 64 characters is sent as it is; 65 is mapped to the canonical id with an id_mapped loss."""
    foreign_id = ("exec-" + "a1.b2-" * 20)[:size]
    call = ToolCallPart.create("run", {"cmd": "ls"}, provider_ids={"codex": foreign_id})
    # A text with another provider's echo state sends the answer through the general path.
    extra = [TextPart(text="ok", provider_data=ProviderData(issuer="elsewhere", data={"k": 1}))] if general else []
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([*extra, call]),
               ToolMessage(call_id=call.id, tool_name="run", output_text="a b")]
    projection = openai_responses.to_wire(history, model="gpt-5.5")
    expected = foreign_id if admitted else call.id
    assert [i["call_id"] for i in projection.request["input"] if "call_id" in i] == [expected] * 2
    mapped = [(loss.action, loss.path) for loss in projection.losses if loss.action == "id_mapped"]
    assert mapped == ([] if admitted else [("id_mapped", f"history[1].parts[{len(extra)}]")])
    assert admits_call_id(foreign_id) is admitted


def test_repeated_to_wire_reports_the_same_losses_and_a_changed_part_its_own() -> None:
    """A resent history gets equal losses; a message copied with the same id but OpenAI's reasoning and another status is judged anew."""
    thought = ThinkingPart(text="hmm", signature=Opaque(value="sig", issuer="anthropic"))
    made = ToolCallPart(id="tu_x", name="f", arguments_json="{}", provider_ids={"anthropic": "toolu_x"})
    foreign = AssistantMessage([thought, TextPart(text="ok"), made], provider="anthropic", api="anthropic")
    result = ToolMessage(call_id="tu_x", tool_name="f", output_text="no", status="denied")
    history: list[HistoryEvent] = [UserMessage("q"), foreign, result]
    first = openai_responses.to_wire(history, model="gpt-5.5").losses
    again = openai_responses.to_wire(history, model="gpt-5.5").losses
    assert [loss.action for loss in first] == ["dropped", "dropped"]
    assert first == again
    own = foreign.model_copy(update={"parts": (reasoning(), TextPart(text="ok"), made),
                                     "api": "openai_responses"})
    aborted = result.model_copy(update={"status": "aborted"})
    projection = openai_responses.to_wire([UserMessage("q"), own, aborted], model="gpt-5.5")
    assert [(loss.path, loss.reason) for loss in projection.losses] == [
        ("history[2].status", "Responses tool results carry no status; 'aborted' is not sent "
                              "(the output text is)")]
    assert projection.request["input"][1]["type"] == "reasoning"


def test_empty_foreign_call_id_is_mapped() -> None:
    """An empty foreign call id is refused by the API (minimum length 1): the canonical id goes instead, as id_mapped."""
    call = ToolCallPart.create("run", {}, provider_ids={"elsewhere": ""})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([call]),
               ToolMessage(call_id=call.id, tool_name="run", output_text="done")]
    projection = openai_responses.to_wire(history, model="gpt-5.5")
    assert [i["call_id"] for i in projection.request["input"] if "call_id" in i] == [call.id] * 2
    assert [loss.action for loss in projection.losses] == ["id_mapped"]
    assert "1 to 64 characters" in projection.losses[0].reason


def test_foreign_refusal_and_text_use_the_easy_form() -> None:
    """Assistant text without an OpenAI item goes as a string item; a refusal so is downgraded."""
    projection = openai_responses.to_wire(
        [UserMessage("q"), AssistantMessage(["a", RefusalPart(text="no")])], model="gpt-5.5")
    assert projection.request["input"][1:] == [{"role": "assistant", "content": "a"},
                                               {"role": "assistant", "content": "no"}]
    assert [(loss.action, loss.part_type) for loss in projection.losses] == [("downgraded", "refusal")]


def test_tool_error_status_is_reported() -> None:
    """A failed tool's output is sent; its error status, which the item cannot carry, is a loss."""
    made = call()
    history: list[HistoryEvent] = [UserMessage("q"), answer(made), ToolMessage(
        call_id=made.id, tool_name="get_weather", status="error", output_text="timeout")]
    projection = openai_responses.to_wire(history, model="gpt-5.5")
    assert projection.request["input"][-1]["output"] == "timeout"
    assert [(loss.action, loss.path) for loss in projection.losses] == [("dropped", "history[2].status")]


def test_tool_output_with_an_image_is_a_content_list() -> None:
    """A tool result with an image attachment becomes an output list of input_text and input_image."""
    made = call(name="screenshot")
    history = [UserMessage("q"), answer(made), ToolMessage(
        call_id=made.id, tool_name="screenshot", output_text="here",
        parts=(ImagePart(source=UrlSource(url="https://example.com/a.png")),))]
    assert items(history)[-1]["output"] == [
        {"type": "input_text", "text": "here"},
        {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto"}]


def test_custom_tool_call_round_trips() -> None:
    """A custom tool call and its output come back as custom items, the input text kept exact."""
    output = [{"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_c", "input": "print(1)",
               "name": "python"}]
    reply = openai_responses.from_wire({"id": "resp_c", "model": "gpt-5.5", "status": "completed",
                                        "output": output})
    part = reply.parts[0]
    assert isinstance(part, ToolCallPart)
    assert part.arguments == {"input": "print(1)"}
    sent = items([UserMessage("q"), reply, ToolMessage(call_id=part.id, tool_name="python", output_text="1")])
    assert sent[1] == output[0]
    assert sent[2] == {"type": "custom_tool_call_output", "call_id": "call_c", "output": "1"}


def test_a_field_the_input_item_type_lacks_is_dropped_with_a_loss() -> None:
    """A custom tool call recorded with a status (a Codex rollout keeps one) goes back without it,
    named by a loss, and the SDK's input type accepts the body; a function call keeps its status,
    which its input type declares."""
    custom = {"id": "ctc_1", "type": "custom_tool_call", "status": "completed", "call_id": "call_c",
              "input": "print(1)", "name": "python"}
    function = {"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_f",
                "arguments": "{}", "name": "get"}
    reply = openai_responses.from_wire({"id": "resp_c", "model": "gpt-5.5", "status": "completed",
                                        "output": [custom, function]})
    history: list[HistoryEvent] = [
        UserMessage("q"), reply, *(ToolMessage(call_id=p.id, tool_name="t", output_text="1")
                                   for p in reply.parts if isinstance(p, ToolCallPart))]
    projection = openai_responses.to_wire(history, model="gpt-5.5")
    sent = projection.request["input"]
    assert sent[1] == {k: v for k, v in custom.items() if k != "status"}
    assert sent[2] == function
    assert [(loss.path, loss.part_type, loss.action) for loss in projection.losses] == [
        ("history[1].parts[0].provider_data.status", "tool_call", "dropped")]
    assert_valid_request("openai_responses", projection.request)


def test_server_items_are_kept_whole_and_echoed_to_openai_only() -> None:
    """A web_search_call becomes a server tool part, sent back to OpenAI as it came and to nobody else."""
    item = {"id": "ws_1", "type": "web_search_call", "status": "completed",
            "action": {"type": "search", "query": "weather"}}
    reply = openai_responses.from_wire({"id": "resp_w", "model": "gpt-5.5", "status": "completed",
                                        "output": [item]})
    assert isinstance(reply.parts[0], ServerToolCallPart)
    assert items([UserMessage("q"), reply])[1] == item
    history: list[HistoryEvent] = [UserMessage("q"), reply, UserMessage("again")]
    projection = get_adapter("anthropic").to_wire(history, model="m")
    assert "ws_1" not in json.dumps(projection.request)
    assert (projection.losses[0].action, projection.losses[0].path) == ("dropped", "history[1].parts[0]")


def test_a_new_item_type_is_an_unknown_part_echoed_as_is() -> None:
    """An item type partwire does not know is kept whole as an unknown part and sent back unchanged."""
    item = {"id": "zz_1", "type": "teleport_call", "status": "completed", "where": "moon"}
    reply = openai_responses.from_wire({"id": "resp_z", "model": "gpt-5.5", "status": "completed",
                                        "output": [item]})
    assert isinstance(reply.parts[0], UnknownPart)
    assert items([UserMessage("q"), reply])[1] == item


def test_strict_tool_schema_rewrite_is_reported() -> None:
    """A strict tool gets OpenAI's strict schema; each rewrite is a loss, and the tool is flat."""
    tool = ToolDefinition(name="get_weather", description="d", side_effects="network", strict=True,
                          input_schema={"type": "object", "properties": {"city": {"type": "string"},
                                                                          "unit": {"type": "string"}},
                                        "required": ["city"]})
    projection = openai_responses.to_wire([UserMessage("q")], model="gpt-5.5", tools=[tool])
    wire = projection.request["tools"][0]
    assert set(wire) == {"type", "name", "description", "parameters", "strict"}
    assert wire["parameters"]["required"] == ["city", "unit"]
    assert wire["parameters"]["properties"]["unit"]["type"] == ["string", "null"]
    assert sorted(loss.reason for loss in projection.losses) == [
        "strict mode: #/properties/unit: made required and nullable",
        "strict mode: #: additionalProperties set to false"]


def test_built_in_tools_and_choice_pass_through() -> None:
    """Built-in tools and a forced function choice go as the API spells them."""
    request = openai_responses.to_wire([UserMessage("q")], model="gpt-5.5", tools=[{"type": "web_search"}],
                                       tool_choice="get_weather", parallel_tool_calls=False).request
    assert request["tools"] == [{"type": "web_search"}]
    assert request["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert request["parallel_tool_calls"] is False


def test_params_cannot_override_built_fields() -> None:
    """params may not set a field to_wire builds (store, in the stateless mode)."""
    with pytest.raises(ValueError, match="store"):
        openai_responses.to_wire([UserMessage("q")], model="gpt-5.5", params={"store": True})


# -- responses ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("response", "stop", "raw", "status"), [
    ({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}, "length",
     "incomplete:max_output_tokens", "complete"),
    ({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}, "content_filter",
     "incomplete:content_filter", "complete"),
    ({"status": "failed", "error": {"code": "server_error", "message": "boom"}}, "error",
     "failed:server_error", "error"),
    ({"status": "cancelled"}, "aborted", "cancelled", "aborted"),
])
def test_status_maps_to_stop_reason(response: dict[str, Any], stop: str, raw: str, status: str) -> None:
    """incomplete, failed and cancelled responses map to a stop reason, the raw value kept."""
    message = openai_responses.from_wire({"id": "resp_s", "model": "gpt-5.5", "output": [], **response})
    assert (message.stop_reason, message.stop_reason_raw, message.status) == (stop, raw, status)


def test_usage_is_normalised() -> None:
    """input counts cached tokens, output counts reasoning; details may be missing."""
    message = openai_responses.from_wire({
        "id": "resp_u", "model": "gpt-5.5", "status": "completed", "output": [],
        "usage": {"input_tokens": 100, "output_tokens": 40, "total_tokens": 140,
                  "input_tokens_details": {"cached_tokens": 64},
                  "output_tokens_details": {"reasoning_tokens": 30}}})
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.cache_read_tokens, message.usage.cache_write_tokens,
            message.usage.output_tokens, message.usage.reasoning_tokens) == (100, 64, 0, 40, 30)


def test_text_with_url_citations_round_trips() -> None:
    """url_citation annotations become typed citations and go back as the same annotations."""
    content = {"type": "output_text", "annotations": [
        {"type": "url_citation", "end_index": 5, "start_index": 0, "title": "T", "url": "https://x.org"}],
        "logprobs": [], "text": "hello"}
    item = {"id": "msg_c", "type": "message", "status": "completed", "content": [content], "role": "assistant"}
    reply = openai_responses.from_wire({"id": "resp_c", "model": "gpt-5.5", "status": "completed",
                                        "output": [item]})
    part = reply.parts[0]
    assert isinstance(part, TextPart)
    assert part.citations[0].url == "https://x.org"  # type: ignore[union-attr]
    assert items([UserMessage("q"), reply])[1] == item


def test_a_result_before_its_foreign_call_uses_the_admitted_id() -> None:
    """A tool result that comes before its (foreign) call points at the id the call goes out with."""
    call = ToolCallPart.create("read_file", {"path": "a"}, provider_ids={"elsewhere": "x_1"})
    projection = openai_responses.to_wire(
        [UserMessage("q"), ToolMessage(call_id=call.id, tool_name="read_file", output_text="ok"),
         AssistantMessage([call])], model="gpt-5.5")
    assert [i.get("call_id") for i in projection.request["input"]] == [None, "x_1", "x_1"]
    assert projection.losses == ()


# -- files and empty texts -----------------------------------------------------------------------


def test_an_empty_answer_text_is_sent_as_an_empty_item() -> None:
    """An empty text in an assistant message goes out as an empty assistant item (the API takes
    one), with no loss."""
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([TextPart(text=""), TextPart(text="a")])]
    projection = openai_responses.to_wire(history, model="gpt-5.5")
    assert [i.get("content") for i in projection.request["input"]] == ["q", "", "a"]
    assert projection.losses == ()
