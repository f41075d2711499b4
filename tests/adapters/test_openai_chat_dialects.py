"""Unit tests of the OpenAI-compatible dialects: OpenRouter, DeepSeek, vLLM, Ollama, and a custom one."""

from __future__ import annotations

from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    AudioPart,
    Base64Source,
    DeveloperMessage,
    HistoryEvent,
    ImagePart,
    Opaque,
    ProviderData,
    RedactedThinkingPart,
    RefusalPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from partwire.adapters import openai_chat
from partwire.streaming import accumulate
from partwire.switch import SwitchRefusedError, check_switch


def reply(message: dict[str, Any], finish: str = "stop", **top: Any) -> dict[str, Any]:
    """A response body around one choice's message."""
    return {"id": "r1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
            **top}


def call(issuer: str, wire_id: str = "call_1") -> ToolCallPart:
    """A tool call the dialect issued."""
    return ToolCallPart.create("f", {}, provider_ids={issuer: wire_id})


# -- DeepSeek ----------------------------------------------------------------------------------


def test_deepseek_reasoning_content_is_thinking_with_deepseek_provider_data() -> None:
    """reasoning_content becomes a thinking part (no signature), provider data issued by deepseek."""
    message = openai_chat.from_wire(reply({"content": "4", "reasoning_content": "2+2"}, usage={
        "prompt_tokens": 10, "completion_tokens": 5, "prompt_cache_hit_tokens": 6,
        "prompt_cache_miss_tokens": 4}), dialect="deepseek")
    thinking = message.parts[0]
    assert isinstance(thinking, ThinkingPart)
    assert thinking.text == "2+2"
    assert thinking.signature is None
    assert thinking.provider_data == ProviderData(issuer="deepseek", data={"field": "reasoning_content"})
    assert thinking.provider_data is not None
    assert thinking.provider_data.issuer == "deepseek"
    assert message.parts[1] == TextPart(text="4")
    assert message.usage is not None
    assert message.usage.cache_read_tokens == 6
    assert message.model == "deepseek:m"
    assert message.provider == "deepseek"


def _deepseek_turns() -> list[Any]:
    first = openai_chat.from_wire(reply({"content": "", "reasoning_content": "old thought"}), dialect="deepseek")
    loop = openai_chat.from_wire(reply({"content": None, "reasoning_content": "need the tool", "tool_calls": [
        {"id": "call_00_a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "tool_calls"),
        dialect="deepseek")
    result = ToolMessage("42", call_id=loop.parts[1].id, tool_name="f")  # type: ignore[union-attr]
    return [UserMessage("q1"), first, UserMessage("q2"), loop, result]


def test_deepseek_gets_reasoning_back_within_the_tool_call_turn_only() -> None:
    """Reasoning of the turn in progress (the tool loop) is echoed; an earlier turn's is dropped, reported."""
    projection = openai_chat.to_wire(_deepseek_turns(), model="deepseek-reasoner", dialect="deepseek")
    messages = projection.request["messages"]
    assert "reasoning_content" not in messages[1]
    assert messages[3]["reasoning_content"] == "need the tool"
    assert messages[3]["tool_calls"][0]["id"] == "call_00_a"
    assert [(x.action, x.path) for x in projection.losses] == [("dropped", "history[1].parts[0]")]


def test_echo_reasoning_option_overrides_the_dialect() -> None:
    """echo_reasoning='all' sends every turn's reasoning; 'none' sends none (and reports it)."""
    history = _deepseek_turns()
    every = openai_chat.to_wire(history, model="m", dialect="deepseek", echo_reasoning="all")
    assert every.losses == ()
    assert every.request["messages"][1]["reasoning_content"] == "old thought"
    none = openai_chat.to_wire(history, model="m", dialect="deepseek", echo_reasoning="none")
    assert all("reasoning_content" not in m for m in none.request["messages"])
    assert len(none.losses) == 2


def test_deepseek_stream_reasoning_then_content() -> None:
    """Streamed reasoning_content and content build thinking then text, as the whole response does."""
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "r1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    message = accumulate(openai_chat.stream([
        chunk({"role": "assistant", "content": None, "reasoning_content": ""}),
        chunk({"content": None, "reasoning_content": "2+"}), chunk({"content": None, "reasoning_content": "2"}),
        chunk({"content": "4", "reasoning_content": None}), chunk({"content": ""}, "stop")], dialect="deepseek"))
    whole = openai_chat.from_wire(reply({"content": "4", "reasoning_content": "2+2"}), dialect="deepseek")
    assert message.parts == whole.parts


# -- OpenRouter --------------------------------------------------------------------------------

DETAILS = [
    {"type": "reasoning.text", "text": "think", "signature": "sig==", "format": "anthropic-claude-v1", "index": 0},
    {"type": "reasoning.encrypted", "data": "blob==", "format": "anthropic-claude-v1", "index": 1},
    {"type": "reasoning.summary", "summary": "short", "format": "openai-responses-v1", "index": 2},
]


def test_openrouter_reasoning_details_become_typed_parts() -> None:
    """Signed text, encrypted and summary details become thinking and redacted parts, OpenRouter-issued."""
    message = openai_chat.from_wire(reply({"content": "ok", "reasoning": "thinkshort",
                                           "reasoning_details": DETAILS}), dialect="openrouter")
    text, encrypted, summary, answer = message.parts
    assert isinstance(text, ThinkingPart)
    assert text.signature == Opaque(value="sig==", issuer="openrouter")
    assert isinstance(encrypted, RedactedThinkingPart)
    assert encrypted.data == Opaque(value="blob==", issuer="openrouter")
    assert isinstance(summary, ThinkingPart)
    assert summary.text == "short"
    assert summary.signature is None
    assert answer == TextPart(text="ok")
    # "reasoning" repeats the details' text: nothing of the message is left over beside them.
    assert message.provider_data is not None
    assert isinstance(message.provider_data.data, dict)
    assert "reply" not in message.provider_data.data


def test_openrouter_gets_its_reasoning_details_back_unchanged() -> None:
    """Echoed to OpenRouter, the details are the ones it sent, byte for byte and in order."""
    message = openai_chat.from_wire(reply({"content": "ok", "reasoning_details": DETAILS}), dialect="openrouter")
    projection = openai_chat.to_wire([UserMessage("q"), message], model="m", dialect="openrouter")
    assert projection.request["messages"][1] == {"role": "assistant", "reasoning_details": DETAILS, "content": "ok"}
    assert projection.losses == ()


def test_openrouter_reasoning_is_not_sent_elsewhere() -> None:
    """OpenRouter's reasoning is dropped for OpenAI and for DeepSeek, each part reported."""
    message = openai_chat.from_wire(reply({"content": "ok", "reasoning_details": DETAILS}), dialect="openrouter")
    for dialect in ("openai", "deepseek"):
        projection = openai_chat.to_wire([message], model="m", dialect=dialect)
        assert projection.request["messages"] == [{"role": "assistant", "content": "ok"}]
        assert [x.action for x in projection.losses] == ["dropped"] * 3


def test_foreign_signatures_need_an_alias_for_openrouter() -> None:
    """Anthropic-signed thinking is dropped for OpenRouter unless the caller accepts Anthropic as an alias."""
    thinking = ThinkingPart(text="t", signature=Opaque(value="s", issuer="anthropic"))
    history = [AssistantMessage([thinking, "a"])]
    plain = openai_chat.to_wire(history, model="m", dialect="openrouter")
    assert "reasoning_details" not in plain.request["messages"][0]
    assert len(plain.losses) == 1
    aliased = openai_chat.to_wire(history, model="m", dialect="openrouter",
                                  accept_issuers={"openrouter", "anthropic"})
    assert aliased.request["messages"][0]["reasoning_details"] == [
        {"type": "reasoning.text", "text": "t", "signature": "s"}]


def test_openrouter_plain_reasoning_without_details() -> None:
    """A bare reasoning string (no details) is thinking, and goes back as reasoning."""
    message = openai_chat.from_wire(reply({"content": "ok", "reasoning": "hmm"}), dialect="openrouter")
    assert message.parts[0] == ThinkingPart(text="hmm")
    assert openai_chat.to_wire([message], model="m", dialect="openrouter").request["messages"][0] == {
        "role": "assistant", "reasoning": "hmm", "content": "ok"}


def test_openrouter_cache_control_on_content_parts_round_trips() -> None:
    """cache_control on a content part survives an import and goes back to OpenRouter only."""
    request = {"model": "anthropic/claude-sonnet-4.6", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "long context", "cache_control": {"type": "ephemeral"}}]}], "max_tokens": 5}
    imported = openai_chat.from_wire_request(request, dialect="openrouter")
    again = openai_chat.to_wire(imported.history, **imported.to_wire_kwargs(), dialect="openrouter")
    assert again.request == request
    elsewhere = openai_chat.to_wire(imported.history, model="gpt-5.5")
    assert elsewhere.request["messages"][0]["content"] == "long context"
    assert [x.action for x in elsewhere.losses] == ["dropped"]


def test_openrouter_stream_details_with_late_signature() -> None:
    """Streamed details: text in pieces, then the signature (replacing, not appending), then encrypted."""
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "gen-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    stream = [
        chunk({"role": "assistant", "content": "", "reasoning": "thi", "reasoning_details": [
            {"type": "reasoning.text", "text": "thi", "format": "anthropic-claude-v1", "index": 0}]}),
        chunk({"content": "", "reasoning": "nk", "reasoning_details": [
            {"type": "reasoning.text", "text": "nk", "format": "anthropic-claude-v1", "index": 0}]}),
        chunk({"content": "", "reasoning_details": [
            {"type": "reasoning.text", "signature": "sig==", "format": "anthropic-claude-v1", "index": 0}]}),
        chunk({"content": "", "reasoning_details": [DETAILS[1]]}),
        chunk({"content": "ok"}), chunk({"content": ""}, "stop")]
    streamed = accumulate(openai_chat.stream(stream, dialect="openrouter"))
    whole = openai_chat.from_wire(reply({"content": "ok", "reasoning_details": DETAILS[:2]}), dialect="openrouter")
    assert streamed.parts == whole.parts
    assert [p.provider_data for p in streamed.parts] == [p.provider_data for p in whole.parts]


# -- vLLM and Ollama ---------------------------------------------------------------------------


def test_vllm_reasoning_goes_back_in_the_field_it_came_in() -> None:
    """vLLM's reasoning (newer) or reasoning_content (older) is echoed in the same field."""
    for field in ("reasoning", "reasoning_content"):
        message = openai_chat.from_wire(reply({"content": None, field: "r", "tool_calls": [
            {"id": "chatcmpl-tool-1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            "tool_calls"), dialect="vllm")
        sent = openai_chat.to_wire([UserMessage("q"), message], model="m", dialect="vllm").request
        assert sent["messages"][1][field] == "r"


def test_ollama_reasoning_and_missing_usage_details() -> None:
    """Ollama's reasoning is thinking; usage without details maps to plain counts."""
    message = openai_chat.from_wire(reply({"content": "hi", "reasoning": "hm"}, usage={
        "prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}, system_fingerprint="fp_ollama"),
        dialect="ollama")
    assert message.parts[0] == ThinkingPart(text="hm")
    assert message.usage is not None
    assert message.usage.cache_read_tokens == 0
    assert message.usage.reasoning_tokens == 0


def test_dialects_send_developer_messages_as_system_and_say_so() -> None:
    """Dialects other than OpenAI get developer messages as system messages, with the loss reported."""
    for dialect in ("openrouter", "deepseek", "vllm", "ollama"):
        projection = openai_chat.to_wire([UserMessage("q"), DeveloperMessage("ctx")], model="m",
                                         dialect=dialect)
        assert projection.request["messages"][1] == {"role": "system", "content": "ctx"}
        assert [(x.action, x.part_type) for x in projection.losses] == [("rewritten", "developer_message")]


def test_dialect_limit_fields_and_model_prefixes() -> None:
    """max_tokens goes in the dialect's field; the dialect's own prefix is cut from the model."""
    for dialect, field, model in (("openai", "max_completion_tokens", "openai:gpt-5"),
                                  ("openrouter", "max_tokens", "openrouter:x/y:free"),
                                  ("deepseek", "max_tokens", "deepseek:deepseek-chat"),
                                  ("vllm", "max_completion_tokens", "vllm:Qwen/Qwen3-8B"),
                                  ("ollama", "max_tokens", "ollama:qwen3:8b")):
        request = openai_chat.to_wire([UserMessage("q")], model=model, max_tokens=7,
                                      dialect=dialect).request
        assert request[field] == 7
        assert request["model"] == model.split(":", 1)[1]


def test_a_dialects_call_ids_go_back_to_it_and_wherever_they_fit() -> None:
    """A call DeepSeek issued keeps its id for DeepSeek, and for OpenAI too, whose rules admit it;
    an id too long for Chat goes out as the canonical id."""
    c = call("deepseek", "call_00_x")
    history: list[HistoryEvent] = [AssistantMessage([c]), ToolMessage("r", call_id=c.id, tool_name="f")]
    own = openai_chat.to_wire(history, model="m", dialect="deepseek").request["messages"]
    other = openai_chat.to_wire(history, model="m").request["messages"]
    assert own[1]["tool_call_id"] == "call_00_x"
    assert other[1]["tool_call_id"] == "call_00_x"
    long = call("deepseek", "call_" + "x" * 60)
    history = [AssistantMessage([long]), ToolMessage("r", call_id=long.id, tool_name="f")]
    assert openai_chat.to_wire(history, model="m").request["messages"][1]["tool_call_id"] == long.id


def test_a_custom_dialect_is_data() -> None:
    """A server the table does not know is described by a Dialect value, not by code."""
    groq = openai_chat.Dialect(name="groq", issuer="groq", base_url="https://api.groq.com/openai/v1",
                               developer_role="system", reasoning_fields=("reasoning",),
                               echo_reasoning="none")
    message = openai_chat.from_wire(reply({"content": "a", "reasoning": "r"}), dialect=groq)
    assert message.provider == "groq"
    assert message.parts[0] == ThinkingPart(text="r")
    projection = openai_chat.to_wire([message], model="m", dialect=groq)
    assert projection.request["messages"] == [{"role": "assistant", "content": "a"}]
    assert [x.action for x in projection.losses] == ["dropped"]


def test_media_a_dialect_cannot_take_is_dropped_there() -> None:
    """DeepSeek takes no images and Ollama no audio: dropped and reported, not sent to fail."""
    image = ImagePart(source=UrlSource(url="https://x.test/a.png"))
    audio = AudioPart(source=Base64Source(data="UklG"), media_type="audio/wav")
    deepseek = openai_chat.to_wire([UserMessage(["look", image])], model="m", dialect="deepseek")
    assert deepseek.request["messages"] == [{"role": "user", "content": "look"}]
    assert [(x.action, x.part_type) for x in deepseek.losses] == [("dropped", "image")]
    ollama = openai_chat.to_wire([UserMessage(["hear", audio])], model="m", dialect="ollama")
    assert [(x.action, x.part_type) for x in ollama.losses] == [("dropped", "audio")]


def test_refusals_are_text_for_servers_without_the_field() -> None:
    """vLLM, Ollama and DeepSeek have no refusal field: an earlier refusal goes as text, reported."""
    projection = openai_chat.to_wire([AssistantMessage([RefusalPart(text="No.")])], model="m", dialect="vllm")
    assert projection.request["messages"] == [{"role": "assistant", "content": "No."}]
    assert [(x.action, x.part_type) for x in projection.losses] == [("downgraded", "refusal")]


def test_check_switch_uses_a_dialects_capabilities() -> None:
    """check_switch refuses moving a session with images to DeepSeek, by its declared capabilities."""
    history = [UserMessage(["look", ImagePart(source=UrlSource(url="https://x.test/a.png"))])]
    with pytest.raises(SwitchRefusedError):
        check_switch(history, openai_chat.DIALECTS["deepseek"].capabilities)
    assert check_switch(history, openai_chat.DIALECTS["openrouter"].capabilities) == ()


def test_a_dialect_request_with_the_developer_role_comes_back_as_it_was() -> None:
    """A request that sent a developer role to a dialect that defaults to system is rebuilt exactly."""
    request = {"model": "deepseek-chat", "messages": [{"role": "developer", "content": "ctx"},
                                                      {"role": "user", "content": "q"}]}
    imported = openai_chat.from_wire_request(request, dialect="deepseek")
    assert openai_chat.to_wire(imported.history, **imported.to_wire_kwargs(), dialect="deepseek").request == request
