"""Unit tests of the Chat Completions adapter: requests and responses (OpenAI dialect); reading a
request is in ``test_openai_chat_request.py``, the stream in ``test_openai_chat_stream.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    AudioPart,
    Base64Source,
    DeveloperMessage,
    DocumentPart,
    FileRefSource,
    ImagePart,
    Opaque,
    ProviderData,
    ProviderFileSource,
    RedactedThinkingPart,
    RefusalPart,
    SystemMessage,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UnknownPart,
    UrlCitation,
    UrlSource,
    UserMessage,
)
from partwire.adapters import Adapter, ProviderError, WireFormatError, get_adapter, openai_chat
from partwire.adapters.openai_chat._wire import FINISH_REASONS
from partwire.errors import LossError
from partwire.messages import StopReason
from partwire.model_ids import wire_model
from tests.harness.validity import request_errors

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjEgMCBvYmoKPDw+PgplbmRvYmoKdHJhaWxlcgo8PD4+CiUlRU9G"
WAV = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"


def wire(history: Any, **kwargs: Any) -> dict[str, Any]:
    """The request body for ``history`` (valid by the SDK's types, for the OpenAI dialect)."""
    request = openai_chat.to_wire(history, model="gpt-5.5", **kwargs).request
    if kwargs.get("dialect", "openai") == "openai":
        assert request_errors("openai_chat", request) == []
    return request


def losses(history: Any, **kwargs: Any) -> list[tuple[str, str, str]]:
    """(action, part type, path) of every loss of the projection."""
    return [(x.action, x.part_type, x.path)
            for x in openai_chat.to_wire(history, model="gpt-5.5", **kwargs).losses]


def response(message: dict[str, Any], finish: str = "stop", **top: Any) -> dict[str, Any]:
    """A response body around one choice's message."""
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-5.5-2026-04-23",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "logprobs": None,
                         "finish_reason": finish}], **top}


# -- tool calls and results ---------------------------------------------------------------------


def test_one_tool_message_per_result_with_the_calls_wire_ids() -> None:
    """Calls go on the assistant message; each result is its own tool message naming its call's wire id."""
    a = ToolCallPart.create("f", {"x": 1}, provider_ids={"openai": "call_A"})
    b = ToolCallPart.create("g", {}, provider_ids={"openai": "call_B"})
    body = wire([UserMessage("go"), AssistantMessage([a, b]),
                 ToolMessage("ra", call_id=a.id, tool_name="f"), ToolMessage("rb", call_id=b.id, tool_name="g")])
    assert body["messages"][1] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_A", "type": "function", "function": {"name": "f", "arguments": '{"x":1}'}},
        {"id": "call_B", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}
    assert body["messages"][2:] == [{"role": "tool", "tool_call_id": "call_A", "content": "ra"},
                                    {"role": "tool", "tool_call_id": "call_B", "content": "rb"}]


def test_arguments_are_sent_byte_exact_even_when_malformed() -> None:
    """arguments is arguments_json as it is: spacing, key order and truncated JSON included."""
    for text in ('{ "b":2,  "a" : 1 }', '{"city": "Par', ""):
        call = ToolCallPart(id="tu_1", name="f", arguments_json=text, provider_ids={"openai": "call_1"})
        sent = wire([AssistantMessage([call])])["messages"][0]["tool_calls"][0]["function"]["arguments"]
        assert sent == text


def test_foreign_call_ids_that_fit_are_kept() -> None:
    """A call another provider issued keeps its id when Chat's rules admit it, with no loss."""
    call = ToolCallPart.create("f", {}, provider_ids={"anthropic": "toolu_01"})
    history = [AssistantMessage([call]), ToolMessage("ok", call_id=call.id, tool_name="f")]
    body = wire(history)
    assert body["messages"][0]["tool_calls"][0]["id"] == "toolu_01"
    assert body["messages"][1]["tool_call_id"] == "toolu_01"
    assert losses(history) == []


def test_foreign_call_ids_too_long_become_canonical_and_are_reported() -> None:
    """A foreign id Chat cannot take (over 64 characters) goes out under its canonical id, on the
    call and its result."""
    call = ToolCallPart.create("f", {}, provider_ids={"anthropic": "toolu_" + "0" * 59})
    history = [AssistantMessage([call]), ToolMessage("ok", call_id=call.id, tool_name="f")]
    body = wire(history)
    assert body["messages"][0]["tool_calls"][0]["id"] == call.id
    assert body["messages"][1]["tool_call_id"] == call.id
    assert losses(history) == [("id_mapped", "tool_call", "history[0].parts[0]")]


def test_a_result_before_its_call_still_names_the_calls_wire_id() -> None:
    """A history out of order (result first) still maps the result to its call's wire id."""
    call = ToolCallPart.create("f", {}, provider_ids={"openai": "call_Z"})
    body = wire([ToolMessage("early", call_id=call.id, tool_name="f"), AssistantMessage([call])])
    assert body["messages"][0]["tool_call_id"] == "call_Z"


def test_response_calls_get_fresh_canonical_ids_and_keep_the_wire_id() -> None:
    """Each call of a response gets its own tu_ id; the server's id is kept under the issuer."""
    message = openai_chat.from_wire(response({"content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "call_2", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "tool_calls"))
    calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
    assert [c.provider_ids for c in calls] == [{"openai": "call_1"}, {"openai": "call_2"}]
    assert len({c.id for c in calls}) == 2
    assert all(c.id.startswith("tu_") for c in calls)


def test_calls_without_ids_get_distinct_canonical_ids_and_no_provider_id() -> None:
    """A server that omits call ids: every call still gets its own canonical id, never a shared one."""
    message = openai_chat.from_wire(response({"content": None, "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "tool_calls"))
    calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
    assert calls[0].id != calls[1].id
    assert calls[0].provider_ids == {}
    assert calls[1].provider_ids == {}


def test_tool_result_status_has_no_wire_field_and_is_reported() -> None:
    """An error result is sent as its text; the lost status is in the loss list."""
    call = ToolCallPart.create("f", {}, provider_ids={"openai": "call_1"})
    history = [AssistantMessage([call]), ToolMessage("boom", call_id=call.id, tool_name="f", status="error")]
    assert wire(history)["messages"][1]["content"] == "boom"
    assert losses(history) == [("dropped", "tool_message", "history[1].status")]


def test_tool_result_with_only_data_sends_its_json() -> None:
    """A result with no text output sends its structured data as JSON text."""
    call = ToolCallPart.create("f", {}, provider_ids={"openai": "call_1"})
    body = wire([AssistantMessage([call]), ToolMessage(call_id=call.id, tool_name="f", data={"n": 1})])
    assert body["messages"][1]["content"] == '{"n": 1}'


def test_tool_result_attachments_follow_the_run_in_a_user_message() -> None:
    """Images in tool results move to one user message after all the results, and are reported."""
    a = ToolCallPart.create("shot", {}, provider_ids={"openai": "call_1"})
    b = ToolCallPart.create("shot", {}, provider_ids={"openai": "call_2"})
    image = ImagePart(source=Base64Source(data=PNG), media_type="image/png")
    history = [AssistantMessage([a, b]),
               ToolMessage("one", call_id=a.id, tool_name="shot", parts=(image,)),
               ToolMessage("two", call_id=b.id, tool_name="shot"),
               UserMessage("next")]
    body = wire(history)
    assert [m["role"] for m in body["messages"]] == ["assistant", "tool", "tool", "user", "user"]
    assert body["messages"][3]["content"] == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}]
    assert losses(history) == [("attached", "image", "history[1].parts[0]")]


# -- content parts ------------------------------------------------------------------------------


def test_user_content_parts() -> None:
    """Text, image by URL with detail, inline image, WAV and MP3 audio, and a PDF file."""
    body = wire([UserMessage([
        "look",
        ImagePart(source=UrlSource(url="https://x.test/a.jpg"), detail="low"),
        ImagePart(source=Base64Source(data=PNG), media_type="image/png", detail="high"),
        AudioPart(source=Base64Source(data=WAV), media_type="audio/wav"),
        AudioPart(source=Base64Source(data="SUQz"), media_type="audio/mpeg"),
        DocumentPart(source=Base64Source(data=PDF), media_type="application/pdf", filename="a.pdf"),
        DocumentPart(source=ProviderFileSource(file_id="file-abc", issuer="openai")),
    ])])
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "https://x.test/a.jpg", "detail": "low"}},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "high"}},
        {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}},
        {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}},
        {"type": "file", "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "a.pdf"}},
        {"type": "file", "file": {"file_id": "file-abc"}},
    ]


def test_a_lone_text_is_a_plain_string() -> None:
    """A message of one plain text part is sent as a string, not a list."""
    body = wire([SystemMessage("be brief"), UserMessage("hi"), AssistantMessage(["hello"])])
    assert body["messages"] == [{"role": "system", "content": "be brief"},
                                {"role": "user", "content": "hi"},
                                {"role": "assistant", "content": "hello"}]


def test_media_chat_cannot_take_is_dropped_and_reported() -> None:
    """Unsendable media is dropped with a reason; text documents are downgraded to text."""
    history = [UserMessage([
        ImagePart(source=ProviderFileSource(file_id="file-x", issuer="openai")),
        DocumentPart(source=UrlSource(url="https://x.test/a.pdf")),
        DocumentPart(source=TextSource(text="plain notes")),
        DocumentPart(source=ProviderFileSource(file_id="file_01", issuer="anthropic")),
        AudioPart(source=Base64Source(data="AAAA"), media_type="audio/ogg"),
        ImagePart(source=FileRefSource(path="shot.png")),
        ImagePart(source=Base64Source(data="AAAA"), media_type="image/tiff"),
    ])]
    body = wire(history)
    assert body["messages"][0]["content"] == [{"type": "text", "text": "plain notes"}]
    assert losses(history) == [
        ("dropped", "image", "history[0].parts[0]"), ("dropped", "document", "history[0].parts[1]"),
        ("downgraded", "document", "history[0].parts[2]"), ("dropped", "document", "history[0].parts[3]"),
        ("dropped", "audio", "history[0].parts[4]"), ("dropped", "image", "history[0].parts[5]"),
        ("dropped", "image", "history[0].parts[6]")]


def test_workspace_files_are_sent_inline_through_resolve_file() -> None:
    """A workspace file reference is read by resolve_file and sent as base64, its type sniffed."""
    import base64
    png = base64.b64decode(PNG)
    body = wire([UserMessage([ImagePart(source=FileRefSource(path="a.png"))])],
                resolve_file=lambda ref: png)
    assert body["messages"][0]["content"][0]["image_url"]["url"] == f"data:image/png;base64,{PNG}"


def test_document_title_goes_out_as_the_filename() -> None:
    """Chat files have no title: it becomes the filename (reported), or is dropped beside one."""
    doc = DocumentPart(source=Base64Source(data=PDF), media_type="application/pdf", title="Invoice")
    assert wire([UserMessage([doc])])["messages"][0]["content"][0]["file"]["filename"] == "Invoice"
    assert losses([UserMessage([doc])]) == [("rewritten", "document", "history[0].parts[0].title")]
    both = DocumentPart(source=Base64Source(data=PDF), media_type="application/pdf", title="T", filename="f.pdf")
    assert losses([UserMessage([both])]) == [("dropped", "document", "history[0].parts[0].title")]
    # A title equal to the filename is still a field the wire has not (an import gives none back):
    # reported as Responses reports it, the empty one (hypothesis found it) too.
    for name in ("f.pdf", ""):
        same = DocumentPart(source=Base64Source(data=PDF), media_type="application/pdf", title=name, filename=name)
        assert wire([UserMessage([same])])["messages"][0]["content"][0]["file"]["filename"] == name
        assert losses([UserMessage([same])]) == [("rewritten", "document", "history[0].parts[0].title")]


def test_refusal_goes_in_the_refusal_field() -> None:
    """An assistant refusal is the message's refusal field; several go inline as refusal parts."""
    one = wire([AssistantMessage([RefusalPart(text="No.")])])["messages"][0]
    assert one == {"role": "assistant", "content": None, "refusal": "No."}
    two = wire([AssistantMessage(["Well.", RefusalPart(text="No."), RefusalPart(text="Never.")])])["messages"][0]
    assert two == {"role": "assistant", "content": [
        {"type": "text", "text": "Well."}, {"type": "refusal", "refusal": "No."},
        {"type": "refusal", "refusal": "Never."}]}


def test_part_order_chat_cannot_keep_is_reported() -> None:
    """Text after a tool call is sent before it (one message holds text, then calls): reported."""
    call = ToolCallPart.create("f", {}, provider_ids={"openai": "call_1"})
    history = [AssistantMessage([call, "after"])]
    assert wire(history)["messages"][0] == {"role": "assistant", "content": "after", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    assert losses(history) == [("rewritten", "assistant_message", "history[0]")]


def test_citations_cannot_go_back_and_are_reported() -> None:
    """Citations on an earlier answer cannot be sent in a request: dropped and reported."""
    part = TextPart(text="x", citations=(UrlCitation(url="https://x.test"),))
    assert losses([AssistantMessage([part])]) == [("dropped", "text", "history[0].parts[0].citations")]


def test_empty_assistant_message_is_dropped_and_reported() -> None:
    """An aborted message with nothing in it cannot be sent (the API rejects it): dropped, reported."""
    history = [UserMessage("a"), AssistantMessage([], status="aborted"), UserMessage("b")]
    assert [m["role"] for m in wire(history)["messages"]] == ["user", "user"]
    assert losses(history) == [("dropped", "assistant_message", "history[1]")]


def test_other_issuers_provider_data_is_not_sent_and_is_reported() -> None:
    """Echo state of another issuer is not read: the part goes out plain and the loss says why."""
    part = TextPart(text="x", provider_data=ProviderData(issuer="anthropic", data={"block": {"cache_control": {}}}))
    assert wire([UserMessage(["a", part])])["messages"][0]["content"][1] == {"type": "text", "text": "x"}
    assert losses([UserMessage(["a", part])]) == [("dropped", "text", "history[0].parts[1].provider_data")]


def test_unknown_parts_go_back_to_their_issuer_only() -> None:
    """An unknown part OpenAI sent is re-emitted as it was; another provider's is dropped."""
    mine = UnknownPart(original_type="input_video", raw={"type": "input_video", "video": {"id": "v"}}, issuer="openai")
    theirs = UnknownPart(original_type="x", raw={"type": "x"}, issuer="google")
    body = openai_chat.to_wire([UserMessage(["a", mine, theirs])], model="m")
    assert body.request["messages"][0]["content"][1] == {"type": "input_video", "video": {"id": "v"}}
    assert [(x.action, x.path) for x in body.losses] == [("dropped", "history[0].parts[2]")]


# -- system and developer ----------------------------------------------------------------------


def test_developer_is_native_for_openai() -> None:
    """OpenAI takes the developer role: sent as is, nothing lost."""
    history = [SystemMessage("sys"), DeveloperMessage("dev")]
    assert wire(history)["messages"] == [{"role": "system", "content": "sys"},
                                         {"role": "developer", "content": "dev"}]
    assert losses(history) == []


def test_developer_role_option_and_its_loss() -> None:
    """developer_role='system' sends it as system, 'user' as user; each choice is in the losses."""
    history = [UserMessage("q"), DeveloperMessage("dev")]
    assert wire(history, developer_role="system")["messages"][1] == {"role": "system", "content": "dev"}
    assert losses(history, developer_role="system") == [("rewritten", "developer_message", "history[1]")]
    assert wire(history, developer_role="user")["messages"][1] == {"role": "user", "content": "dev"}
    assert losses(history, developer_role="user") == [("downgraded", "developer_message", "history[1]")]


def test_developer_attachments_follow_in_a_user_message() -> None:
    """A developer message's image goes in a user message right after its text (reported)."""
    image = ImagePart(source=UrlSource(url="https://x.test/a.png"))
    history = [DeveloperMessage(["see this", image])]
    assert wire(history)["messages"] == [
        {"role": "developer", "content": "see this"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]}]
    assert losses(history) == [("attached", "image", "history[0].parts[1]")]


def test_system_takes_text_only() -> None:
    """Non-text parts of a system message are dropped and reported."""
    history = [SystemMessage(["rules", ImagePart(source=UrlSource(url="https://x.test/a.png"))])]
    assert wire(history)["messages"] == [{"role": "system", "content": "rules"}]
    assert losses(history) == [("dropped", "image", "history[0].parts[1]")]


# -- reasoning (OpenAI) --------------------------------------------------------------------------


def test_openai_takes_no_reasoning_back() -> None:
    """Thinking and redacted thinking are dropped for OpenAI, each reported."""
    history = [AssistantMessage([
        ThinkingPart(text="hmm", signature=Opaque(value="sig", issuer="anthropic")),
        RedactedThinkingPart(data=Opaque(value="blob", issuer="anthropic")), "answer"])]
    assert wire(history)["messages"] == [{"role": "assistant", "content": "answer"}]
    assert losses(history) == [("dropped", "thinking", "history[0].parts[0]"),
                               ("dropped", "redacted_thinking", "history[0].parts[1]")]


def test_strict_raises_instead_of_degrading() -> None:
    """strict=True turns any loss into a LossError."""
    with pytest.raises(LossError):
        openai_chat.to_wire([AssistantMessage([ThinkingPart(text="x"), "y"])], model="m", strict=True)


# -- tools, tool_choice and request fields ---------------------------------------------------------

WEATHER = ToolDefinition(
    name="weather", description="Weather.", side_effects="network",
    input_schema={"type": "object", "properties": {"city": {"type": "string"},
                                                    "unit": {"type": "string", "enum": ["c", "f"]}},
                  "required": ["city"]})


def test_function_tools_and_tool_choice() -> None:
    """Definitions become function tools; a tool name becomes a forced choice; "any" is "required"."""
    body = wire([UserMessage("q")], tools=[WEATHER], tool_choice="weather", parallel_tool_calls=False)
    assert body["tools"] == [{"type": "function", "function": {
        "name": "weather", "description": "Weather.", "parameters": WEATHER.input_schema}}]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "weather"}}
    assert body["parallel_tool_calls"] is False
    assert wire([UserMessage("q")], tools=[WEATHER], tool_choice="any")["tool_choice"] == "required"


def test_strict_tools_are_rewritten_for_strict_mode_and_reported() -> None:
    """strict=True: every object closed, optional properties required and nullable; each rewrite reported."""
    tool = WEATHER.model_copy(update={"strict": True})
    projection = openai_chat.to_wire([UserMessage("q")], model="m", tools=[tool])
    parameters = projection.request["tools"][0]["function"]["parameters"]
    assert parameters == {"type": "object", "additionalProperties": False, "required": ["city", "unit"],
                          "properties": {"city": {"type": "string"},
                                         "unit": {"type": ["string", "null"], "enum": ["c", "f", None]}}}
    assert projection.request["tools"][0]["function"]["strict"] is True
    assert [(x.action, x.part_type, x.path) for x in projection.losses] == [
        ("rewritten", "tool", "request.tools[0].function.parameters")] * 2
    again = openai_chat.to_wire([UserMessage("q")], model="m", tools=[
        tool.model_copy(update={"input_schema": parameters})])
    assert again.losses == ()
    assert again.request["tools"][0]["function"]["parameters"] == parameters


def test_native_tool_dicts_pass_through() -> None:
    """A custom (grammar) tool given as a native dict is sent unchanged."""
    custom = {"type": "custom", "custom": {"name": "sql", "format": {"type": "grammar", "grammar": {
        "definition": "start: /.+/", "syntax": "lark"}}}}
    assert wire([UserMessage("q")], tools=[custom])["tools"] == [custom]


def test_max_tokens_and_params() -> None:
    """max_tokens sets max_completion_tokens; params add fields verbatim and cannot override built ones."""
    body = wire([UserMessage("q")], max_tokens=99,
                params={"response_format": {"type": "json_object"}, "reasoning_effort": "low"})
    assert body["max_completion_tokens"] == 99
    assert body["response_format"] == {"type": "json_object"}
    with pytest.raises(ValueError, match="conflicts"):
        openai_chat.to_wire([UserMessage("q")], model="m", params={"messages": []})


def test_model_names() -> None:
    """The issuer prefix is cut; names with colons of their own stay whole; another provider's refuses."""
    assert wire_model("openai:gpt-5", "openai") == "gpt-5"
    assert wire_model("gpt-5-mini", "openai") == "gpt-5-mini"
    assert wire_model("ft:gpt-4o-mini:acme:x1", "openai") == "ft:gpt-4o-mini:acme:x1"
    assert wire_model("ollama:qwen3:8b", "ollama") == "qwen3:8b"
    assert wire_model("qwen3:8b", "ollama") == "qwen3:8b"
    assert wire_model("deepseek/deepseek-r1:free", "openrouter") == "deepseek/deepseek-r1:free"
    with pytest.raises(ValueError, match="anthropic"):
        wire_model("anthropic:claude-sonnet-4-6", "openai")


# -- responses -------------------------------------------------------------------------------------


def test_usage_is_normalised() -> None:
    """prompt_tokens already includes cached tokens; cached, cache-write and reasoning are subsets."""
    usage = {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150,
             "prompt_tokens_details": {"cached_tokens": 60, "cache_write_tokens": 10},
             "completion_tokens_details": {"reasoning_tokens": 20}}
    got = openai_chat.from_wire(response({"content": "x"}, usage=usage)).usage
    assert got is not None
    assert (got.input_tokens, got.output_tokens, got.cache_read_tokens, got.cache_write_tokens,
            got.reasoning_tokens) == (100, 50, 60, 10, 20)
    assert got.provider_data is not None
    assert got.provider_data.data == usage
    assert got.subset_errors() == []


@pytest.mark.parametrize(("raw", "expected"), sorted(FINISH_REASONS.items()))
def test_every_finish_reason_is_mapped_and_kept(raw: str, expected: StopReason) -> None:
    """Each known finish_reason maps to its stop reason; the raw value is kept."""
    message = openai_chat.from_wire(response({"content": "x"}, raw))
    assert (message.stop_reason, message.stop_reason_raw) == (expected, raw)


def test_unknown_finish_reason_is_kept_raw() -> None:
    """An unknown finish_reason maps to no stop reason, and stays in stop_reason_raw."""
    message = openai_chat.from_wire(response({"content": "x"}, "brand_new"))
    assert (message.stop_reason, message.stop_reason_raw) == (None, "brand_new")


def test_stop_with_a_forced_call_or_a_refusal() -> None:
    """finish_reason "stop" with tool calls is tool_use; with a refusal it is refusal."""
    called = openai_chat.from_wire(response({"content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "stop"))
    refused = openai_chat.from_wire(response({"content": None, "refusal": "No."}, "stop"))
    assert called.stop_reason == "tool_use"
    assert refused.stop_reason == "refusal"
    assert refused.parts == (RefusalPart(text="No."),)


def test_url_annotations_become_citations() -> None:
    """url_citation annotations become typed citations of the text."""
    message = openai_chat.from_wire(response({"content": "See x.", "annotations": [{"type": "url_citation",
        "url_citation": {"url": "https://x.test", "title": "X", "start_index": 4, "end_index": 5}}]}))
    assert message.parts == (TextPart(text="See x.", citations=(UrlCitation(
        url="https://x.test", title="X", start_index=4, end_index=5),)),)


def test_audio_reply_is_kept_and_referred_to_by_id_later() -> None:
    """An audio answer becomes an audio part; sent back later it is {"audio": {"id"}}."""
    message = openai_chat.from_wire(response({"content": None, "audio": {
        "id": "audio_1", "data": "UklG", "expires_at": 9, "transcript": "hi"}}))
    assert isinstance(message.parts[0], AudioPart)
    assert wire([message])["messages"][0] == {"role": "assistant", "content": None, "audio": {"id": "audio_1"}}


def test_custom_tool_call_is_wrapped_and_unwrapped() -> None:
    """A custom tool's free-text input is the call's {"input": text}, and goes back as custom input."""
    body = response({"content": None, "tool_calls": [
        {"id": "call_1", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}}]}, "tool_calls")
    message = openai_chat.from_wire(body)
    call = message.parts[0]
    assert isinstance(call, ToolCallPart)
    assert call.arguments == {"input": "SELECT 1"}
    assert wire([message])["messages"][0]["tool_calls"] == body["choices"][0]["message"]["tool_calls"]


def test_response_metadata_is_kept_and_not_sent_back() -> None:
    """service_tier, system_fingerprint and logprobs are kept on the message, never sent back."""
    body = response({"content": "x"}, service_tier="default", system_fingerprint="fp_1")
    body["choices"][0]["logprobs"] = {"content": [], "refusal": None}
    message = openai_chat.from_wire(body)
    assert message.provider_data is not None
    assert message.provider_data.data == {"response": {"created": 1, "service_tier": "default",
                                                       "system_fingerprint": "fp_1"},
                                          "choice": {"logprobs": {"content": [], "refusal": None}}}
    assert wire([message])["messages"] == [{"role": "assistant", "content": "x"}]


def test_error_body_raises_provider_error() -> None:
    """An error body raises ProviderError with its code, message and HTTP status."""
    with pytest.raises(ProviderError) as caught:
        openai_chat.from_wire({"error": {"message": "bad", "type": "invalid_request_error",
                                         "param": "x", "code": "invalid_value"}})
    assert (caught.value.code, caught.value.message, caught.value.provider) == ("invalid_value", "bad", "openai")
    with pytest.raises(ProviderError) as caught:
        openai_chat.from_wire({"error": {"message": "upstream", "code": 502}}, dialect="openrouter")
    assert caught.value.status == 502


def test_not_a_response_raises_wire_format_error() -> None:
    """Something that is not a response body raises WireFormatError."""
    with pytest.raises(WireFormatError):
        openai_chat.from_wire({"id": "x"})
    with pytest.raises(WireFormatError):
        openai_chat.from_wire(response({"content": "x"}), choice=3)


def test_choice_picks_one_of_n() -> None:
    """choice= picks among n choices."""
    body = response({"content": "first"})
    body["choices"].append({"index": 1, "message": {"role": "assistant", "content": "second"},
                            "finish_reason": "stop"})
    assert openai_chat.from_wire(body, choice=1).text == "second"


def test_sdk_response_object_is_accepted() -> None:
    """The SDK's ChatCompletion object decodes like its JSON body."""
    from openai.types.chat import ChatCompletion

    body = response({"content": "hi", "refusal": None}, usage={"prompt_tokens": 1, "completion_tokens": 1,
                                                                "total_tokens": 2})
    sdk = ChatCompletion.model_validate(body)
    a, b = openai_chat.from_wire(sdk), openai_chat.from_wire(body)
    assert (a.parts, a.usage, a.stop_reason) == (b.parts, b.usage, b.stop_reason)


# -- estimates, capabilities, the registry ------------------------------------------------------------


def test_estimate_input_tokens_is_plausible() -> None:
    """The estimate grows with text, and a low-detail image costs less than a default one."""
    short = openai_chat.estimate_input_tokens([UserMessage("hi")])
    long = openai_chat.estimate_input_tokens([UserMessage("word " * 400)])
    assert 0 < short < long
    assert 300 < long < 600  # 400 words of one common token each, plus the framing
    image = ImagePart(source=UrlSource(url="https://x.test/a.png"))
    low = image.model_copy(update={"detail": "low"})
    assert openai_chat.estimate_input_tokens([UserMessage([low])]) < openai_chat.estimate_input_tokens(
        [UserMessage([image])])
    assert openai_chat.estimate_input_tokens([UserMessage("q")], [WEATHER]) > short


def test_capabilities_are_declared_per_dialect() -> None:
    """OpenAI takes the developer role and no reasoning back; DeepSeek takes reasoning and no images."""
    assert openai_chat.CAPABILITIES.developer_role
    assert not openai_chat.CAPABILITIES.thinking
    deepseek = openai_chat.DIALECTS["deepseek"].capabilities
    assert deepseek.thinking
    assert not deepseek.images
    assert deepseek.issuer == "deepseek"


def test_json_text_of_wire_is_stable() -> None:
    """The request is plain JSON data (it serialises without custom encoders)."""
    json.dumps(wire([UserMessage("q"), AssistantMessage(["a"])]))


def test_the_module_is_an_adapter_in_the_registry() -> None:
    """The module has the shared adapter surface (checked by mypy too) and the registry finds it."""
    adapter: Adapter = openai_chat
    assert get_adapter("openai-chat") is adapter
    assert get_adapter("openai_chat").NAME == "openai_chat"


def test_a_choice_without_an_index_counts_by_position() -> None:
    """A server that leaves out the choice index still has its first choice read."""
    body = response({"content": "x"})
    del body["choices"][0]["index"]
    assert openai_chat.from_wire(body).text == "x"


def test_a_filtered_choice_without_a_message_is_an_empty_content_filter_answer() -> None:
    """A choice the content filter stopped, with no message (Azure OpenAI's form), decodes to an
    empty assistant message stopped by the content filter, its verdict kept."""
    verdict = {"hate": {"filtered": True, "severity": "high"}}
    body = {"id": "chatcmpl-9", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "finish_reason": "content_filter", "content_filter_results": verdict}],
            "usage": {"prompt_tokens": 15, "completion_tokens": 19, "total_tokens": 34}}
    message = openai_chat.from_wire(body)
    assert message.parts == ()
    assert (message.stop_reason, message.stop_reason_raw) == ("content_filter", "content_filter")
    assert message.provider_data is not None
    data: Any = message.provider_data.data
    assert data["choice"] == {"content_filter_results": verdict}
