"""Ollama's native chat format, one behaviour per test: message fields (thinking, images,
calls without ids, tool results by name), the pairing of results with calls and its named loss,
settings in ``options`` / ``think`` / ``format``, usage and durations, errors. Reading a request
is in ``test_ollama_request.py``, the NDJSON stream in ``test_ollama_stream.py``."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    Base64Source,
    DeveloperMessage,
    DocumentPart,
    ImagePart,
    Opaque,
    RedactedThinkingPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from partwire.adapters import ProviderError, WireFormatError, ollama
from partwire.errors import LossError
from partwire.history import HistoryEvent
from partwire.parts import Part
from partwire.settings import RequestSettings
from partwire.switch import check_switch

MODEL = "qwen3:8b"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 24).decode()
WEATHER = ToolDefinition(name="get_weather", description="Weather in a city.",
                         input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
                         side_effects="none")


def _calls(*names: str) -> tuple[AssistantMessage, list[ToolCallPart]]:
    calls = [ToolCallPart.create(name, {"n": i}) for i, name in enumerate(names)]
    return AssistantMessage(calls), calls


def _result(call: ToolCallPart, text: str) -> ToolMessage:
    return ToolMessage(call_id=call.id, tool_name=call.name, output_text=text)


def _request(history: list[HistoryEvent], **kwargs: Any) -> dict[str, Any]:
    request: dict[str, Any] = ollama.to_wire(history, model=MODEL, **kwargs).request
    return request


# -- messages -------------------------------------------------------------------------------------


def test_a_plain_turn_is_role_and_content() -> None:
    """A user text is ``{"role": "user", "content": ...}`` and the model tag goes as it is."""
    request = _request([UserMessage("hi")])
    assert request == {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}


def test_the_ollama_prefix_is_cut_from_the_model_and_a_tag_is_kept() -> None:
    """``ollama:qwen3:8b`` goes out as ``qwen3:8b``; another provider's model is refused."""
    assert ollama.to_wire([UserMessage("hi")], model="ollama:qwen3:8b").request["model"] == "qwen3:8b"
    with pytest.raises(ValueError, match="belongs to 'anthropic'"):
        ollama.to_wire([UserMessage("hi")], model="anthropic:claude-sonnet-4-6")


def test_reasoning_goes_in_the_thinking_field_and_another_models_signed_one_is_a_loss() -> None:
    """Unsigned reasoning (Ollama's own, or any model's plain text) is ``thinking``; a thought
    Anthropic signed is Anthropic's, dropped with a loss as every adapter drops it."""
    mine = ThinkingPart(text="Check the units.")
    signed = ThinkingPart(text="Hidden.", signature=Opaque(value="c2ln", issuer="anthropic"))
    projection = ollama.to_wire([UserMessage("q"), AssistantMessage([mine, signed, TextPart(text="A.")])],
                                model=MODEL)
    assert projection.request["messages"][1] == {"role": "assistant", "thinking": "Check the units.",
                                                 "content": "A."}
    assert [(loss.path, loss.action) for loss in projection.losses] == [("history[1].parts[1]", "dropped")]


def test_redacted_and_empty_reasoning_are_dropped_with_a_loss_each() -> None:
    """Encrypted reasoning and a thought with no text have nothing Ollama can take."""
    parts: list[Part] = [RedactedThinkingPart(data=Opaque(value="x", issuer="anthropic")),
             ThinkingPart(text="", signature=Opaque(value="s", issuer="openai")), TextPart(text="A.")]
    projection = ollama.to_wire([UserMessage("q"), AssistantMessage(parts)], model=MODEL)
    assert projection.request["messages"][1] == {"role": "assistant", "content": "A."}
    assert [(loss.part_type, loss.action) for loss in projection.losses] == [
        ("redacted_thinking", "dropped"), ("thinking", "dropped")]


def test_two_texts_are_joined_into_the_one_content_with_a_loss_each() -> None:
    """A message has one content string: two text parts are joined into it, each named."""
    projection = ollama.to_wire([UserMessage(["a", "b"])], model=MODEL)
    assert projection.request["messages"] == [{"role": "user", "content": "ab"}]
    assert [(loss.path, loss.action) for loss in projection.losses] == [
        ("history[0].parts[0]", "rewritten"), ("history[0].parts[1]", "rewritten")]


def test_an_inline_image_is_bare_base64_and_a_url_image_is_a_loss() -> None:
    """Base64 images go in ``images`` without a data URL; an image by URL and a PDF are lost."""
    message = UserMessage(["What is it?", ImagePart(source=Base64Source(data=PNG), media_type="image/png"),
                           ImagePart(source=UrlSource(url="https://example.com/a.png")),
                           DocumentPart(source=Base64Source(data="JVBERi0="), media_type="application/pdf")])
    projection = ollama.to_wire([message], model=MODEL)
    assert projection.request["messages"] == [{"role": "user", "content": "What is it?", "images": [PNG]}]
    assert [(loss.part_type, loss.path) for loss in projection.losses] == [
        ("image", "history[0].parts[2]"), ("document", "history[0].parts[3]")]


def test_a_call_has_no_id_and_its_arguments_are_an_object() -> None:
    """A tool call goes as ``{"function": {"name", "arguments": {...}}}``: no id, no type."""
    assistant, (call,) = _calls("get_weather")
    request = _request([UserMessage("q"), assistant, _result(call, "sunny")])
    assert request["messages"][1:] == [
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather",
                                                                          "arguments": {"n": 0}}}]},
        {"role": "tool", "content": "sunny", "tool_name": "get_weather"}]


def test_arguments_that_are_no_object_are_sent_as_an_empty_one_with_a_loss() -> None:
    """Truncated arguments cannot be an object: ``{}`` is sent and the call names the rewrite."""
    call = ToolCallPart(id="tu_1", name="f", arguments_json='{"city": "Par')
    projection = ollama.to_wire([UserMessage("q"), AssistantMessage([call])], model=MODEL)
    assert projection.request["messages"][1]["tool_calls"] == [{"function": {"name": "f", "arguments": {}}}]
    assert [(loss.path, loss.action) for loss in projection.losses] == [("history[1].parts[0]", "rewritten")]


def test_a_developer_message_is_a_system_message_or_a_user_one_by_option() -> None:
    """Ollama has no developer role: it goes as ``system`` by default, ``user`` on request, downgraded."""
    history: list[HistoryEvent] = [UserMessage("q"), DeveloperMessage("$ make\nok")]
    default = ollama.to_wire(history, model=MODEL)
    assert default.request["messages"][1] == {"role": "system", "content": "$ make\nok"}
    assert [(loss.action, loss.part_type) for loss in default.losses] == [("downgraded", "developer_message")]
    as_user = ollama.to_wire(history, model=MODEL, options=ollama.Options(developer_role="user"))
    assert as_user.request["messages"][1]["role"] == "user"


def test_a_structured_result_without_text_goes_as_json_and_its_status_is_a_loss() -> None:
    """A result's data is its content when it has no text; a failed status has no field."""
    assistant, (call,) = _calls("f")
    result = ToolMessage(call_id=call.id, tool_name="f", data={"ok": False}, status="error")
    projection = ollama.to_wire([UserMessage("q"), assistant, result], model=MODEL)
    assert projection.request["messages"][2] == {"role": "tool", "content": '{"ok": false}', "tool_name": "f"}
    assert [(loss.path, loss.action) for loss in projection.losses] == [("history[2].status", "dropped")]


# -- pairing by order and name --------------------------------------------------------------------


def test_results_in_the_order_of_their_calls_pair_without_a_loss() -> None:
    """Two calls of one tool answered in their order pair as Ollama pairs them: nothing is lost."""
    assistant, (first, second) = _calls("f", "f")
    projection = ollama.to_wire([UserMessage("q"), assistant, _result(first, "1"), _result(second, "2")],
                                model=MODEL)
    assert projection.losses == ()


def test_results_of_different_tools_in_any_order_pair_by_name() -> None:
    """Calls of two tools answered in reverse order still pair, by tool name: no loss."""
    assistant, (weather, time) = _calls("weather", "time")
    projection = ollama.to_wire([UserMessage("q"), assistant, _result(time, "noon"),
                                 _result(weather, "rain")], model=MODEL)
    assert projection.losses == ()


def test_two_results_of_one_tool_out_of_order_are_a_named_loss_each() -> None:
    """Results of two calls of one tool in reverse order would be paired wrongly: each is an
    ``id_mapped`` loss naming the call it answers and the one Ollama will read it as."""
    assistant, (first, second) = _calls("f", "f")
    projection = ollama.to_wire([UserMessage("q"), assistant, _result(second, "2"), _result(first, "1")],
                                model=MODEL)
    assert [(loss.path, loss.action, loss.part_type) for loss in projection.losses] == [
        ("history[2]", "id_mapped", "tool_message"), ("history[3]", "id_mapped", "tool_message")]
    assert second.id in projection.losses[0].reason
    assert first.id in projection.losses[0].reason
    with pytest.raises(LossError):
        ollama.to_wire([UserMessage("q"), assistant, _result(second, "2"), _result(first, "1")],
                       model=MODEL, strict=True)


def test_check_switch_names_the_ambiguous_pairing() -> None:
    """``check_switch`` to Ollama reports the out-of-order results, as ``to_wire`` does."""
    assistant, (first, second) = _calls("f", "f")
    losses = check_switch([UserMessage("q"), assistant, _result(second, "2"), _result(first, "1")], "ollama")
    assert [loss.action for loss in losses] == ["id_mapped", "id_mapped"]


def test_a_result_without_its_call_is_left_out_with_a_loss() -> None:
    """A result whose call is not in the history would be read as another call's: it is left
    out, named, as every adapter leaves it out."""
    result = ToolMessage(call_id="tu_gone", tool_name="f", output_text="late")
    projection = ollama.to_wire([UserMessage("q"), result], model=MODEL)
    assert projection.request["messages"] == [{"role": "user", "content": "q"}]
    assert [(loss.path, loss.action) for loss in projection.losses] == [("history[1]", "dropped")]


def test_another_providers_call_id_is_reported_not_sent() -> None:
    """A call that carries OpenAI's id goes without it (Ollama's calls have none): ``id_mapped``."""
    call = ToolCallPart.create("f", {}, provider_ids={"openai": "call_abc"})
    projection = ollama.to_wire([UserMessage("q"), AssistantMessage([call])], model=MODEL)
    assert "call_abc" not in str(projection.request)
    assert [(loss.path, loss.action) for loss in projection.losses] == [("history[1].parts[0]", "id_mapped")]


# -- settings ---------------------------------------------------------------------------------------


def test_sampling_settings_go_in_options_under_ollamas_names() -> None:
    """Output limit, sampling, seed, penalties and stops are ``options`` fields (``num_predict``, ``stop``)."""
    settings = RequestSettings(max_output_tokens=64, temperature=0.2, top_p=0.9, top_k=40, seed=7,
                               presence_penalty=0.5, frequency_penalty=0.25, stop_sequences=("END",))
    request = _request([UserMessage("q")], settings=settings)
    assert request["options"] == {"num_predict": 64, "temperature": 0.2, "top_p": 0.9, "top_k": 40,
                                  "seed": 7, "presence_penalty": 0.5, "frequency_penalty": 0.25,
                                  "stop": ["END"]}


def test_raw_options_join_the_settings_options() -> None:
    """``num_ctx`` and ``repeat_penalty`` given in ``params`` join what the settings write;
    ``keep_alive`` passes as it is."""
    request = _request([UserMessage("q")], max_tokens=10,
                       params={"options": {"num_ctx": 8192, "repeat_penalty": 1.1}, "keep_alive": "5m"})
    assert request["options"] == {"num_ctx": 8192, "repeat_penalty": 1.1, "num_predict": 10}
    assert request["keep_alive"] == "5m"


@pytest.mark.parametrize(("reasoning", "think", "lost"), [
    (True, True, []),
    (False, False, []),
    ("high", "high", []),
    ("minimal", "low", ["request.settings.reasoning.effort"]),
    ("max", "high", ["request.settings.reasoning.effort"]),
    (4096, "medium", ["request.settings.reasoning.budget_tokens"]),
])
def test_reasoning_is_think_a_switch_or_a_level(reasoning: Any, think: Any, lost: list[str]) -> None:
    """On and off are ``think: true/false``; an effort is a level Ollama takes (low, medium,
    high), rewritten with a loss when it is none of them or when it was a budget."""
    projection = ollama.to_wire([UserMessage("q")], model=MODEL, settings={"reasoning": reasoning})
    assert projection.request["think"] == think
    assert [loss.path for loss in projection.losses] == lost


def test_output_format_is_format_json_or_the_schema_itself() -> None:
    """JSON mode is ``format: "json"``; a schema is ``format: <schema>``, its name a loss."""
    schema = {"type": "object", "properties": {"age": {"type": "integer"}}}
    assert _request([UserMessage("q")], settings={"output_format": "json_object"})["format"] == "json"
    projection = ollama.to_wire([UserMessage("q")], model=MODEL, settings={
        "output_format": {"type": "json_schema", "json_schema": schema, "name": "person"}})
    assert projection.request["format"] == schema
    assert [loss.path for loss in projection.losses] == ["request.settings.output_format.name"]


def test_what_ollama_cannot_set_is_refused_by_name() -> None:
    """Tool choice, no parallel calls and an end-user id have no Ollama field: one loss each."""
    projection = ollama.to_wire([UserMessage("q")], model=MODEL, tools=[WEATHER], settings={
        "tool_choice": "required", "parallel_tool_calls": False, "end_user_id": "u1"})
    assert [loss.path for loss in projection.losses] == [
        "request.settings.tool_choice", "request.settings.parallel_tool_calls",
        "request.settings.end_user_id"]
    assert "tool_choice" not in projection.request


def test_a_tool_definition_is_a_function_tool() -> None:
    """A definition goes as Ollama's function tool: name, description, parameters."""
    assert _request([UserMessage("q")], tools=[WEATHER])["tools"] == [
        {"type": "function", "function": {"name": "get_weather", "description": "Weather in a city.",
                                          "parameters": WEATHER.input_schema}}]


# -- responses --------------------------------------------------------------------------------------


RESPONSE = {
    "model": "qwen3:8b", "created_at": "2026-03-14T09:01:41.702913447Z",
    "message": {"role": "assistant", "content": "Take one.", "thinking": "Rain now.",
                "tool_calls": [{"function": {"name": "get_forecast", "arguments": {"city": "Paris"}}}]},
    "done_reason": "stop", "done": True, "total_duration": 2509131125, "load_duration": 55912542,
    "prompt_eval_count": 11, "prompt_eval_duration": 247918834, "eval_count": 101,
    "eval_duration": 2204852791,
}


def test_a_response_reads_thinking_text_and_calls_in_order() -> None:
    """``thinking``, ``content`` and ``tool_calls`` become a thought, a text and a call; a call
    ends the turn as ``tool_use`` although Ollama says ``stop``."""
    message = ollama.from_wire(RESPONSE)
    assert [type(p).__name__ for p in message.parts] == ["ThinkingPart", "TextPart", "ToolCallPart"]
    assert message.parts[2].arguments == {"city": "Paris"}  # type: ignore[union-attr]
    assert (message.stop_reason, message.stop_reason_raw) == ("tool_use", "stop")
    assert (message.model, message.provider, message.api) == ("ollama:qwen3:8b", "ollama", "ollama")


def test_a_call_read_twice_gets_the_same_id() -> None:
    """Ollama's calls carry no id: the one made on the way in comes from the call itself, so
    reading the same response twice gives the same id, and another call another one."""
    first, again = ollama.from_wire(RESPONSE), ollama.from_wire(RESPONSE)
    assert first.parts[2].id == again.parts[2].id  # type: ignore[union-attr]
    assert first.parts[2].id.startswith("tu_")  # type: ignore[union-attr]
    other = {**RESPONSE, "message": {**RESPONSE["message"], "tool_calls": [  # type: ignore[dict-item]
        {"function": {"name": "get_forecast", "arguments": {"city": "Lyon"}}}]}}
    assert ollama.from_wire(other).parts[2].id != first.parts[2].id  # type: ignore[union-attr]


def test_usage_counts_and_durations() -> None:
    """Input is ``prompt_eval_count``, output ``eval_count``; latency is ``total_duration`` in
    ms; every duration is kept in the usage's provider data."""
    usage = ollama.from_wire(RESPONSE).usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.latency_ms) == (11, 101, 2509)
    assert usage.provider_data is not None
    assert isinstance(usage.provider_data.data, dict)
    assert usage.provider_data.data["eval_duration"] == 2204852791


def test_a_length_stop_and_an_image_in_the_answer() -> None:
    """``done_reason: length`` is ``length``; an image in the answer is an image part."""
    message = ollama.from_wire({"model": "m", "message": {"role": "assistant", "content": "cut",
                                                          "images": [PNG]},
                                "done": True, "done_reason": "length"})
    assert message.stop_reason == "length"
    assert message.parts[1] == ImagePart(source=Base64Source(data=PNG), media_type="image/png")


def test_an_error_body_raises_a_provider_error() -> None:
    """``{"error": "..."}`` is Ollama's error body: a ProviderError with its text."""
    with pytest.raises(ProviderError, match="model 'x' not found"):
        ollama.from_wire({"error": "model 'x' not found, try pulling it first"})


def test_a_chat_completion_is_refused_naming_its_format() -> None:
    """A Chat Completions response read as Ollama's is refused, naming what it is."""
    with pytest.raises(WireFormatError, match="OpenAI Chat Completions response"):
        ollama.from_wire({"id": "chatcmpl-1", "object": "chat.completion", "choices": []})


def test_the_sdks_chat_response_object_is_read() -> None:
    """The ``ollama`` package's ``ChatResponse`` reads as its JSON does."""
    from ollama import ChatResponse

    assert ollama.from_wire(ChatResponse.model_validate(RESPONSE)).parts == ollama.from_wire(RESPONSE).parts
