"""The Anthropic adapter, one mapping at a time (docs/adapters/anthropic.md is the table); reading a
request is in ``test_anthropic_request.py``, streams in ``test_anthropic_stream.py``."""

from __future__ import annotations

import base64
import json
import logging
import subprocess
import sys
from typing import Any

import anthropic as sdk
import pytest

from partwire import (
    AssistantMessage,
    AudioPart,
    Base64Source,
    DeveloperMessage,
    DocumentCitation,
    DocumentPart,
    ErrorEvent,
    FileRefSource,
    ImagePart,
    LossError,
    Opaque,
    ProviderData,
    ProviderFileSource,
    RedactedThinkingPart,
    RefusalPart,
    SearchResultCitation,
    ServerToolCallPart,
    SystemMessage,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UrlCitation,
    UrlSource,
    UserMessage,
)
from partwire.adapters import (
    Adapter,
    ProviderError,
    UnknownAdapterError,
    WireFormatError,
    anthropic,
    get_adapter,
)
from partwire.history import HistoryEvent
from partwire.tools import ToolDefinition

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
PDF = base64.b64encode(b"%PDF-1.4 tiny").decode()
SIG = "EqQBCkgIBhABGAIiQL2x6mT0a9dQk3wJ0f5bq0pXz3c1Yb8vR7hM2nT4sK6eU9gW1iL0oP3rA5dF8jH2k"
MODEL = "claude-sonnet-4-6"


CALL_X = AssistantMessage([ToolCallPart(id="tu_x", name="f", arguments_json="{}")])
"""The call the tool results of the tests below answer (a result needs its call)."""


def request(history: list[HistoryEvent], **kwargs: Any) -> dict[str, Any]:
    """The request body ``to_wire`` makes."""
    return anthropic.to_wire(history, model=MODEL, **kwargs).request


def losses(history: list[HistoryEvent], **kwargs: Any) -> list[tuple[str, str, str]]:
    """(path, part type, action) of each loss ``to_wire`` reports (the missing tool definitions,
    tested on their own, aside)."""
    return [(x.path, x.part_type, x.action) for x in anthropic.to_wire(history, model=MODEL, **kwargs).losses
            if "definition of the tool" not in x.reason]


def response(*content: dict[str, Any], stop: str = "end_turn", **usage: int) -> dict[str, Any]:
    """A response body holding ``content``."""
    return {"id": "msg_01X", "type": "message", "role": "assistant", "model": "claude-opus-4-5-20251101",
            "content": list(content), "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5, **usage}}


def events_of(sse: str) -> list[dict[str, Any]]:
    """Parsed JSON events of an SSE text."""
    return [json.loads(line[6:]) for line in sse.splitlines() if line.startswith("data: ")]


# -- the contract --------------------------------------------------------------------------------


def test_the_module_satisfies_the_adapter_protocol() -> None:
    """The module is an Adapter, statically and at run time, and the registry hands it out."""
    adapter: Adapter = anthropic
    assert isinstance(adapter, Adapter)
    assert get_adapter("anthropic") is anthropic
    assert anthropic.NAME == anthropic.CAPABILITIES.name == "anthropic"


def test_the_registry_refuses_unknown_names() -> None:
    """An unknown adapter name fails with the list of known ones."""
    with pytest.raises(UnknownAdapterError, match="no adapter 'gpt'"):
        get_adapter("gpt")


def test_importing_partwire_imports_no_sdk() -> None:
    """The adapters work on plain JSON: importing them loads no provider SDK."""
    code = ("import sys, partwire, partwire.adapters.anthropic, partwire.convert, partwire.streaming;"
            "print(sorted(m for m in ('anthropic', 'openai', 'google.genai') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_capabilities_are_honest() -> None:
    """No audio, no developer role, no refusal block; images in the four types the API takes."""
    caps = anthropic.CAPABILITIES
    assert (caps.audio, caps.developer_role, caps.refusals) == (False, False, False)
    assert caps.image_media_types == {"image/jpeg", "image/png", "image/gif", "image/webp"}
    assert caps.document_media_types == {"application/pdf", "text/plain"}


# -- system and turn structure ---------------------------------------------------------------------


def test_a_lone_system_prompt_is_hoisted_as_a_string() -> None:
    """One plain system message becomes the top-level ``system`` string."""
    body = request([SystemMessage("be brief"), UserMessage("hi")])
    assert body == {"model": MODEL, "max_tokens": anthropic.DEFAULT_MAX_TOKENS, "system": "be brief",
                    "messages": [{"role": "user", "content": "hi"}]}


def test_several_system_messages_become_system_blocks() -> None:
    """Leading system messages join, in order, as text blocks."""
    body = request([SystemMessage("a"), SystemMessage(["b", "c"]), UserMessage("hi")])
    assert body["system"] == [{"type": "text", "text": t} for t in "abc"]


def test_a_mid_conversation_system_message_stays_where_it_was_said() -> None:
    """The API takes role "system" in messages; the message stays in place."""
    body = request([UserMessage("hi"), AssistantMessage("yo"), SystemMessage("now in French"), UserMessage("ok")])
    assert body["messages"][2] == {"role": "system", "content": "now in French"}
    assert "system" not in body


def test_mid_conversation_system_can_be_hoisted_for_older_models() -> None:
    """system_in_messages=False moves it to the system prompt and reports a rewrite."""
    history: list[HistoryEvent] = [SystemMessage("s"), UserMessage("hi"), SystemMessage("later")]
    projection = anthropic.to_wire(history, model=MODEL, system_in_messages=False)
    assert projection.request["system"] == [{"type": "text", "text": "s"}, {"type": "text", "text": "later"}]
    assert [(x.path, x.action) for x in projection.losses] == [("history[2]", "rewritten")]


def test_non_text_in_a_system_message_is_dropped_and_reported() -> None:
    """The system prompt takes text only."""
    history: list[HistoryEvent] = [SystemMessage([TextPart(text="s"), ImagePart(source=UrlSource(url="https://x/a.png"))]),
                                   UserMessage("hi")]
    assert losses(history) == [("history[0].parts[1]", "image", "dropped")]


def test_consecutive_tool_messages_share_one_user_turn_results_first() -> None:
    """Parallel results go into one user turn, and user text after them joins it, after the results."""
    one, two = ToolCallPart.create("a"), ToolCallPart.create("b")
    history: list[HistoryEvent] = [
        UserMessage("go"), AssistantMessage([one, two]),
        ToolMessage(call_id=one.id, tool_name="a", output_text="1"),
        ToolMessage(call_id=two.id, tool_name="b", output_text="2"),
        UserMessage("and now?"),
    ]
    turn = request(history)["messages"][2]
    assert turn == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": one.id, "content": "1"},
        {"type": "tool_result", "tool_use_id": two.id, "content": "2"},
        {"type": "text", "text": "and now?"},
    ]}


def test_developer_messages_attach_to_the_turn_before_them() -> None:
    """A developer message joins the preceding user or tool turn, reported as attached."""
    call = ToolCallPart.create("run")
    history: list[HistoryEvent] = [
        UserMessage("hi"), DeveloperMessage("cwd=/tmp"), AssistantMessage([call]),
        ToolMessage(call_id=call.id, tool_name="run", output_text="ok"), DeveloperMessage("exit 0"),
    ]
    body = request(history)
    assert body["messages"][0]["content"] == [{"type": "text", "text": "hi"}, {"type": "text", "text": "cwd=/tmp"}]
    assert body["messages"][2]["content"][1] == {"type": "text", "text": "exit 0"}
    assert losses(history) == [("history[1]", "developer_message", "attached"),
                               ("history[4]", "developer_message", "attached")]


def test_a_developer_message_with_no_turn_before_it_becomes_a_user_turn() -> None:
    """After an assistant turn there is nothing to attach to: it is sent as a user turn."""
    history: list[HistoryEvent] = [UserMessage("a"), AssistantMessage("b"), DeveloperMessage("note")]
    assert request(history)["messages"][2] == {"role": "user", "content": "note"}
    assert losses(history) == [("history[2]", "developer_message", "downgraded")]


def test_non_message_events_are_not_sent() -> None:
    """Errors and other records stay in the history only."""
    history: list[HistoryEvent] = [UserMessage("a"), ErrorEvent(message="boom"), AssistantMessage("b")]
    assert request(history)["messages"] == [{"role": "user", "content": "a"},
                                            {"role": "assistant", "content": "b"}]


def test_empty_text_blocks_are_dropped_from_lists() -> None:
    """The API rejects empty text blocks; inside a list they are dropped and reported."""
    call = ToolCallPart.create("f")
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([TextPart(text=""), call])]
    assert request(history)["messages"][1]["content"] == [
        {"type": "tool_use", "id": call.id, "name": "f", "input": {}}]
    assert losses(history) == [("history[1].parts[0]", "text", "dropped")]


def test_an_aborted_message_with_no_content_is_dropped() -> None:
    """An empty aborted assistant message would be an empty turn the API rejects."""
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage(parts=(), status="aborted"), UserMessage("again")]
    assert [m["role"] for m in request(history)["messages"]] == ["user", "user"]
    assert losses(history) == [("history[1]", "assistant_message", "dropped")]


# -- tool calls and ids --------------------------------------------------------------------------


def test_tool_use_ids_come_back_as_the_provider_gave_them() -> None:
    """A call with an Anthropic id is sent with it, and its result points at the same id."""
    call = ToolCallPart.create("get", {"city": "Paris"}, provider_ids={"anthropic": "toolu_01A"})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([call]),
                                   ToolMessage(call_id=call.id, tool_name="get", output_text="18C")]
    messages = request(history)["messages"]
    assert messages[1]["content"] == [{"type": "tool_use", "id": "toolu_01A", "name": "get", "input": {"city": "Paris"}}]
    assert messages[2]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "18C"}]


def test_a_call_from_another_provider_keeps_its_id_where_anthropic_admits_it() -> None:
    """An OpenAI call id that fits Anthropic's id rules is sent as it is, with no loss."""
    call = ToolCallPart.create("get", provider_ids={"openai": "call_abc"})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([call]),
                                   ToolMessage(call_id=call.id, tool_name="get", output_text="x")]
    messages = request(history)["messages"]
    assert messages[1]["content"][0]["id"] == "call_abc"
    assert messages[2]["content"][0]["tool_use_id"] == "call_abc"
    assert losses(history) == []


def test_a_call_id_anthropic_refuses_gets_the_canonical_id() -> None:
    """A foreign id outside Anthropic's id rules is replaced by the canonical id, as id_mapped."""
    call = ToolCallPart.create("get", provider_ids={"google": "fn/1:a"})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([call]),
                                   ToolMessage(call_id=call.id, tool_name="get", output_text="x")]
    messages = request(history)["messages"]
    assert messages[1]["content"][0]["id"] == call.id
    assert messages[2]["content"][0]["tool_use_id"] == call.id
    assert losses(history) == [("history[1].parts[0]", "tool_call", "id_mapped")]


def test_an_alias_issuers_ids_are_used() -> None:
    """With accept_issuers, an alias's id counts as Anthropic's."""
    call = ToolCallPart.create("get", provider_ids={"bedrock": "toolu_B"})
    body = request([AssistantMessage([call])], accept_issuers={"anthropic", "bedrock"})
    assert body["messages"][0]["content"][0]["id"] == "toolu_B"


def test_malformed_arguments_are_sent_as_an_empty_object_and_reported() -> None:
    """The API takes only an object: truncated JSON becomes {} and a rewrite is reported."""
    call = ToolCallPart(id="tu_1", name="f", arguments_json='{"a": "tru')
    assert request([AssistantMessage([call])])["messages"][0]["content"][0]["input"] == {}
    assert losses([AssistantMessage([call])]) == [("history[0].parts[0]", "tool_call", "rewritten")]


@pytest.mark.parametrize("arguments", [" ", "\r", "\n\t"])
def test_blank_but_not_empty_arguments_are_sent_as_an_object_with_a_loss(arguments: str) -> None:
    """Arguments of only whitespace are not a JSON object: the API gets {} and a rewrite is
    reported (they do not come back as they were, so silence would lose them)."""
    call = ToolCallPart(id="tu_1", name="f", arguments_json=arguments)
    assert request([AssistantMessage([call])])["messages"][0]["content"][0]["input"] == {}
    assert losses([AssistantMessage([call])]) == [("history[0].parts[0]", "tool_call", "rewritten")]


def test_empty_arguments_are_an_empty_object_without_a_loss() -> None:
    """The empty string stays the usual spelling of no arguments: {} and no loss."""
    call = ToolCallPart(id="tu_1", name="f", arguments_json="")
    assert request([AssistantMessage([call])])["messages"][0]["content"][0]["input"] == {}
    assert losses([AssistantMessage([call])]) == []

def test_tool_result_status_maps_to_is_error() -> None:
    """error sets is_error; denied and aborted do too, reported on the status as a downgrade,
    with the same path and action as every other adapter that has an error flag."""
    calls = [ToolCallPart(id=f"tu_{n}", name="f", arguments_json="{}") for n in range(4)]
    history: list[HistoryEvent] = [AssistantMessage(calls), *(
        ToolMessage(call_id=c.id, tool_name="f", status=s, output_text="t")
        for c, s in zip(calls, ("success", "error", "denied", "aborted"), strict=True))]
    blocks = request(history)["messages"][1]["content"]
    assert [b.get("is_error") for b in blocks] == [None, True, True, True]
    assert losses(history) == [("history[3].status", "tool_message", "downgraded"),
                               ("history[4].status", "tool_message", "downgraded")]


def test_tool_results_carry_images_and_documents() -> None:
    """Attachments follow the text inside the tool result's content."""
    result = ToolMessage(call_id="tu_x", tool_name="shot", output_text="here",
                         parts=(ImagePart(source=Base64Source(data=PNG), media_type="image/png"),
                                DocumentPart(source=TextSource(text="log"), media_type="text/plain")))
    block = request([CALL_X, result])["messages"][1]["content"][0]
    assert block["content"] == [
        {"type": "text", "text": "here"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "log"}},
    ]


def test_structured_data_is_sent_only_when_there_is_no_text() -> None:
    """output_text is the source of truth; data speaks only when the text is empty."""
    with_text = ToolMessage(call_id="tu_x", tool_name="f", output_text="ok", data={"code": 0})
    bare = ToolMessage(call_id="tu_x", tool_name="f", data={"code": 0})
    empty = ToolMessage(call_id="tu_x", tool_name="f")
    blocks = [request([CALL_X, m])["messages"][1]["content"][0] for m in (with_text, bare, empty)]
    assert [b.get("content") for b in blocks] == ["ok", '{"code": 0}', None]


def test_tool_definitions_and_native_tools_are_sent() -> None:
    """A ToolDefinition becomes name/description/input_schema; a native dict passes as it is."""
    tool = ToolDefinition(name="get_weather", description="Weather.", side_effects="network", strict=True,
                          input_schema={"type": "object", "properties": {"city": {"type": "string"}}})
    search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    body = request([UserMessage("q")], tools=[tool, search])
    assert body["tools"] == [{"name": "get_weather", "description": "Weather.", "strict": True,
                              "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}},
                             search]


@pytest.mark.parametrize(("choice", "parallel", "wire"), [
    ("auto", None, {"type": "auto"}),
    ("required", None, {"type": "any"}),
    ("none", None, {"type": "none"}),
    ("get_weather", None, {"type": "tool", "name": "get_weather"}),
    (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
    ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
    ({"type": "any", "x": 1}, None, {"type": "any", "x": 1}),
])
def test_tool_choice(choice: Any, parallel: bool | None, wire: dict[str, Any]) -> None:
    """Every tool_choice form, with parallel calls turned off where asked."""
    assert request([UserMessage("q")], tool_choice=choice, parallel_tool_calls=parallel)["tool_choice"] == wire


# -- reasoning and provider-side blocks --------------------------------------------------------------


def test_thinking_is_echoed_byte_exact_to_anthropic() -> None:
    """Thinking and its signature, and redacted thinking, go back exactly as received."""
    message = AssistantMessage([ThinkingPart(text="plan", signature=Opaque(value=SIG, issuer="anthropic")),
                                RedactedThinkingPart(data=Opaque(value="EmwKAhgB", issuer="anthropic")), "ok"])
    assert request([UserMessage("q"), message])["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": SIG},
        {"type": "redacted_thinking", "data": "EmwKAhgB"},
        {"type": "text", "text": "ok"},
    ]


def test_reasoning_from_another_issuer_is_dropped_and_reported() -> None:
    """Anthropic cannot verify another issuer's reasoning; nothing of it is sent."""
    message = AssistantMessage([ThinkingPart(text="plan", signature=Opaque(value="enc", issuer="openai")),
                                RedactedThinkingPart(data=Opaque(value="x", issuer="google")),
                                ThinkingPart(text="unsigned"), "ok"])
    assert request([message])["messages"][0]["content"] == "ok"
    assert losses([message]) == [("history[0].parts[0]", "thinking", "dropped"),
                                 ("history[0].parts[1]", "redacted_thinking", "dropped"),
                                 ("history[0].parts[2]", "thinking", "dropped")]


def test_foreign_reasoning_can_be_sent_as_text_instead() -> None:
    """foreign_thinking="text" downgrades the reasoning text to a text block."""
    message = AssistantMessage([ThinkingPart(text="plan", signature=Opaque(value="enc", issuer="openai")), "ok"])
    assert request([message], foreign_thinking="text")["messages"][0]["content"] == [
        {"type": "text", "text": "plan"}, {"type": "text", "text": "ok"}]
    assert losses([message], foreign_thinking="text") == [("history[0].parts[0]", "thinking", "downgraded")]


def test_server_tool_blocks_are_replayed_to_anthropic_only() -> None:
    """Anthropic's server-tool blocks echo exactly; another provider's are dropped and reported."""
    wire: list[dict[str, Any]] = [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
             "content": [{"type": "web_search_result", "url": "https://a", "title": "A",
                          "encrypted_content": "Eu8B", "page_age": None}]}]
    message = anthropic.from_wire(response(*wire))
    assert [p.type for p in message.parts] == ["server_tool_call", "server_tool_result"]
    assert request([UserMessage("q"), message])["messages"][1]["content"] == wire
    foreign = AssistantMessage([ServerToolCallPart(id="ws_1", name="web_search", issuer="openai"), "done"])
    assert losses([foreign]) == [("history[0].parts[0]", "server_tool_call", "dropped")]


def test_mcp_and_beta_blocks_keep_their_type() -> None:
    """mcp_tool_use / mcp_tool_result and compaction are server blocks that echo as they came."""
    wire: list[dict[str, Any]] = [
            {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "echo", "input": {"m": 1}, "server_name": "e"},
            {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False,
             "content": [{"type": "text", "text": "1"}]},
            {"type": "compaction", "content": "summary"}]
    message = anthropic.from_wire(response(*wire))
    assert not any(isinstance(p, UnknownPart) for p in message.parts)
    assert request([UserMessage("q"), message])["messages"][1]["content"] == wire


def test_unknown_blocks_are_kept_raw_and_echoed_to_anthropic_only() -> None:
    """A block type this version does not know survives from_wire and to_wire unchanged."""
    block = {"type": "hologram", "payload": {"x": [1, 2]}}
    message = anthropic.from_wire(response(block))
    assert message.parts == (UnknownPart(original_type="hologram", raw=block, issuer="anthropic"),)
    assert request([UserMessage("q"), message])["messages"][1]["content"] == [block]
    stored = AssistantMessage([UnknownPart(original_type="x", raw={"type": "x"}), "t"])
    assert losses([stored]) == [("history[0].parts[0]", "unknown", "dropped")]


def test_refusal_parts_are_sent_as_text() -> None:
    """Anthropic has no refusal block: the text is sent, reported as a downgrade."""
    message = AssistantMessage([RefusalPart(text="I can't help with that.")])
    assert request([message])["messages"][0]["content"] == "I can't help with that."
    assert losses([message]) == [("history[0].parts[0]", "refusal", "downgraded")]


def test_foreign_provider_data_is_reported() -> None:
    """Echo state from another issuer on a part is not sent, and says so."""
    part = TextPart(text="hi", provider_data=ProviderData(issuer="google", data={"thoughtSignature": "s"}))
    assert request([UserMessage([part, "x"])])["messages"][0]["content"][0] == {"type": "text", "text": "hi"}
    assert losses([UserMessage([part, "x"])]) == [("history[0].parts[0].provider_data", "text", "dropped")]


# -- citations, media, cache breakpoints -------------------------------------------------------------


CITATIONS = [
    {"type": "char_location", "cited_text": "abc", "document_index": 0, "document_title": "Doc",
     "start_char_index": 0, "end_char_index": 3, "file_id": None},
    {"type": "page_location", "cited_text": "p", "document_index": 1, "document_title": None,
     "start_page_number": 2, "end_page_number": 3},
    {"type": "content_block_location", "cited_text": "b", "document_index": 2, "document_title": "C",
     "start_block_index": 0, "end_block_index": 1, "file_id": "file_9"},
    {"type": "web_search_result_location", "cited_text": "w", "url": "https://w", "title": "W",
     "encrypted_index": "Eo8B"},
    {"type": "search_result_location", "cited_text": "s", "search_result_index": 0, "source": "kb://1",
     "title": None, "start_block_index": 0, "end_block_index": 2},
]


def test_citations_are_typed_and_echo_exactly() -> None:
    """Every citation kind becomes its typed form and goes back with every wire field."""
    block = {"type": "text", "text": "cited", "citations": CITATIONS}
    message = anthropic.from_wire(response(block))
    part = message.parts[0]
    assert isinstance(part, TextPart)
    assert [type(c) for c in part.citations] == [DocumentCitation, DocumentCitation, DocumentCitation,
                                                 UrlCitation, SearchResultCitation]
    assert [c.unit for c in part.citations if isinstance(c, DocumentCitation)] == ["char", "page", "block"]
    assert request([UserMessage("q"), message])["messages"][1]["content"] == [block]


def test_a_web_citation_without_anthropics_index_is_dropped() -> None:
    """A URL citation from another provider lacks encrypted_index, which the API requires."""
    part = TextPart(text="t", citations=(UrlCitation(url="https://x", start_index=0, end_index=1),))
    assert request([AssistantMessage([part])])["messages"][0]["content"] == "t"
    assert losses([AssistantMessage([part])]) == [("history[0].parts[0].citations", "text", "dropped")]


@pytest.mark.parametrize(("part", "source"), [
    (ImagePart(source=Base64Source(data=PNG), media_type="image/png"),
     {"type": "base64", "media_type": "image/png", "data": PNG}),
    (ImagePart(source=Base64Source(data=PNG)), {"type": "base64", "media_type": "image/png", "data": PNG}),
    (ImagePart(source=UrlSource(url="https://x/a.jpg")), {"type": "url", "url": "https://x/a.jpg"}),
    (ImagePart(source=ProviderFileSource(file_id="file_1", issuer="anthropic")), {"type": "file", "file_id": "file_1"}),
])
def test_image_sources(part: ImagePart, source: dict[str, Any]) -> None:
    """Base64 (media type sniffed when missing), URL and Anthropic file ids."""
    assert request([UserMessage([part])])["messages"][0]["content"] == [{"type": "image", "source": source}]


@pytest.mark.parametrize(("part", "kind"), [
    (ImagePart(source=Base64Source(data=PNG), media_type="image/tiff"), "image"),
    (ImagePart(source=ProviderFileSource(file_id="file-1", issuer="openai")), "image"),
    (ImagePart(source=TextSource(text="no")), "image"),
    (ImagePart(source=FileRefSource(path="a.png")), "image"),
    (DocumentPart(source=Base64Source(data=PDF), media_type="application/msword"), "document"),
])
def test_media_the_api_cannot_take_is_dropped_and_reported(part: Any, kind: str) -> None:
    """Unsupported types, foreign file ids, text images and unresolved workspace files are reported."""
    assert losses([UserMessage([part, "q"])]) == [("history[0].parts[0]", kind, "dropped")]


def test_image_detail_is_reported() -> None:
    """Anthropic takes no detail hint; the image goes, the hint is reported."""
    part = ImagePart(source=UrlSource(url="https://x/a.png"), detail="high")
    assert losses([UserMessage([part])]) == [("history[0].parts[0].detail", "image", "dropped")]


def test_workspace_files_are_sent_when_a_resolver_reads_them() -> None:
    """resolve_file turns a workspace reference into inline base64."""
    raw = base64.b64decode(PNG)
    part = ImagePart(source=FileRefSource(path="shots/a.png"))
    body = request([UserMessage([part])], resolve_file=lambda src: raw)
    assert body["messages"][0]["content"][0]["source"] == {"type": "base64", "media_type": "image/png", "data": PNG}


@pytest.mark.parametrize(("part", "block"), [
    (DocumentPart(source=Base64Source(data=PDF), media_type="application/pdf", title="T"),
     {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}, "title": "T"}),
    (DocumentPart(source=Base64Source(data=PDF)),
     {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}}),
    (DocumentPart(source=TextSource(text="plain"), media_type="text/plain"),
     {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain"}}),
    (DocumentPart(source=Base64Source(data=base64.b64encode("é".encode()).decode()), media_type="text/markdown"),
     {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "é"}}),
    (DocumentPart(source=UrlSource(url="https://x/a.pdf")),
     {"type": "document", "source": {"type": "url", "url": "https://x/a.pdf"}}),
    (DocumentPart(source=ProviderFileSource(file_id="file_2", issuer="anthropic")),
     {"type": "document", "source": {"type": "file", "file_id": "file_2"}}),
])
def test_document_sources(part: DocumentPart, block: dict[str, Any]) -> None:
    """PDF base64, plain text (inline, decoded from base64 if need be), URL and file ids."""
    assert request([UserMessage([part])])["messages"][0]["content"] == [block]


def test_a_document_file_name_is_reported() -> None:
    """Documents have a title on the wire but no file name."""
    part = DocumentPart(source=TextSource(text="x"), filename="notes.txt")
    assert losses([UserMessage([part])]) == [("history[0].parts[0].filename", "document", "dropped")]


# -- responses -------------------------------------------------------------------------------------


def test_a_response_becomes_an_assistant_message() -> None:
    """Parts in order, provenance, normalised stop reason with the raw one, and a fresh call id."""
    body = response(
        {"type": "thinking", "thinking": "t", "signature": SIG}, {"type": "text", "text": "x"},
        {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather",
         "input": {"city": "Paris", "unit": "celsius"}}, stop="tool_use")
    message = anthropic.from_wire(body)
    assert (message.api, message.provider, message.model, message.response_id, message.status) == (
        "anthropic", "anthropic", f"anthropic:{body['model']}", body["id"], "complete")
    assert (message.stop_reason, message.stop_reason_raw) == ("tool_use", "tool_use")
    assert [p.type for p in message.parts] == ["thinking", "text", "tool_call"]
    call = message.parts[2]
    assert isinstance(call, ToolCallPart)
    assert call.id.startswith("tu_")
    assert call.provider_ids == {"anthropic": "toolu_01A09q90qw90lq917835lq9"}
    assert call.arguments == {"city": "Paris", "unit": "celsius"}
    thinking = message.parts[0]
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature is not None
    assert thinking.signature.issuer == "anthropic"


def test_tool_arguments_are_written_in_the_api_streaming_form() -> None:
    """A non-streamed input is serialised like Anthropic streams it: ", " and ": ", UTF-8 kept."""
    message = anthropic.from_wire(response({"type": "tool_use", "id": "toolu_1", "name": "f",
                                            "input": {"city": "Zürich", "n": [1, 2]}}))
    assert message.parts[0].arguments_json == '{"city": "Zürich", "n": [1, 2]}'  # type: ignore[union-attr]


@pytest.mark.parametrize(("raw", "normalised"), [
    ("end_turn", "stop"), ("stop_sequence", "stop"), ("max_tokens", "length"),
    ("model_context_window_exceeded", "length"), ("tool_use", "tool_use"), ("pause_turn", "pause"),
    ("refusal", "refusal"), ("compaction", "pause"), ("something_new", None),
])
def test_every_stop_reason_is_mapped_and_the_raw_value_kept(raw: str, normalised: str | None) -> None:
    """Each stop_reason of the API has its canonical value; an unknown one maps to None."""
    message = anthropic.from_wire(response({"type": "text", "text": "x"}, stop=raw))
    assert (message.stop_reason, message.stop_reason_raw) == (normalised, raw)


def test_usage_counts_all_input_including_cache() -> None:
    """Canonical input = input + cache read + cache write; reasoning from thinking_tokens; raw kept."""
    raw = {"input_tokens": 10, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 200,
           "output_tokens": 50, "output_tokens_details": {"thinking_tokens": 30}, "service_tier": "standard"}
    body = response({"type": "text", "text": "x"})
    body["usage"] = raw
    usage = anthropic.from_wire(body).usage
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens,
            usage.output_tokens, usage.reasoning_tokens) == (1210, 1000, 200, 50, 30)
    assert usage.provider_data == ProviderData(issuer="anthropic", data=raw)
    assert usage.subset_errors() == []


def test_response_extras_are_kept_for_the_issuer() -> None:
    """stop_sequence, stop_details and other response fields go to the message's provider_data."""
    body = {**response({"type": "text", "text": "x"}, stop="refusal"),
            "stop_details": {"type": "refusal", "category": "cyber", "explanation": None}}
    message = anthropic.from_wire(body)
    assert message.provider_data is not None
    assert message.provider_data.data == {"response": {"stop_sequence": None, "stop_details": body["stop_details"]}}


def test_from_wire_takes_the_sdk_object_and_json_text() -> None:
    """The SDK's Message and the raw JSON text give what the dict gives."""
    body = response({"type": "text", "text": "hi", "citations": None})
    expected = anthropic.from_wire(body)
    sdk_message = sdk.types.Message.model_validate(body)
    for given in (sdk_message, json.dumps(body), json.dumps(body).encode()):
        got = anthropic.from_wire(given)
        assert (got.parts, got.usage, got.stop_reason) == (expected.parts, expected.usage, expected.stop_reason)


def test_an_error_body_raises_a_provider_error() -> None:
    """An error body raises ProviderError with the error's type, message and request id."""
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_1"}
    with pytest.raises(ProviderError) as caught:
        anthropic.from_wire(body)
    assert (caught.value.provider, caught.value.code, caught.value.message, caught.value.request_id) == (
        "anthropic", "overloaded_error", "Overloaded", "req_1")
    assert str(caught.value) == "anthropic error: overloaded_error: Overloaded"


@pytest.mark.parametrize("body", [{"type": "message"}, [1, 2], "not json", 42])
def test_something_else_raises_a_wire_format_error(body: Any) -> None:
    """A body that is not a response says so instead of failing somewhere inside."""
    with pytest.raises(WireFormatError):
        anthropic.from_wire(body)


# -- options ------------------------------------------------------------------------------------------


def test_model_names_are_resolved() -> None:
    """A provider-prefixed id and an alias become the wire name; another provider's model is refused."""
    assert request([UserMessage("q")])["model"] == MODEL
    assert anthropic.to_wire([UserMessage("q")], model="anthropic:claude-x").request["model"] == "claude-x"
    assert anthropic.to_wire([UserMessage("q")], model="sonnet").request["model"] == "claude-sonnet-4-6"
    with pytest.raises(ValueError, match="belongs to 'openai'"):
        anthropic.to_wire([UserMessage("q")], model="openai:gpt-5")


def test_params_pass_through_but_may_not_override_built_fields() -> None:
    """Extra body fields are added verbatim; one that to_wire builds is refused."""
    body = request([UserMessage("q")], params={"thinking": {"type": "adaptive"}, "temperature": 0})
    assert (body["thinking"], body["temperature"]) == ({"type": "adaptive"}, 0)
    with pytest.raises(ValueError, match="messages"):
        request([UserMessage("q")], params={"messages": []})


def test_strict_mode_raises_instead_of_degrading() -> None:
    """strict=True raises LossError naming each loss."""
    message = AssistantMessage([ThinkingPart(text="x", signature=Opaque(value="s", issuer="openai")), "y"])
    with pytest.raises(LossError) as caught:
        anthropic.to_wire([message], model=MODEL, strict=True)
    assert [x.part_type for x in caught.value.losses] == ["thinking"]  # type: ignore[attr-defined]
    anthropic.to_wire([UserMessage("fine")], model=MODEL, strict=True)


def test_each_loss_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    """A lossy projection logs one WARNING per loss with the session it was given."""
    message = AssistantMessage([RefusalPart(text="no"), ThinkingPart(text="x")])
    with caplog.at_level(logging.WARNING, logger="partwire.projection"):
        anthropic.to_wire([message], model=MODEL, session="sess-9")
    assert [(r.part_type, r.session, r.message_id) for r in caplog.records] == [  # type: ignore[attr-defined]
        ("refusal", "sess-9", message.id), ("thinking", "sess-9", message.id)]


def test_the_token_estimate_grows_with_content() -> None:
    """More text, an image or tools make a larger estimate (the figures themselves are measured
    against real usage in tests/accounting)."""
    base = anthropic.estimate_input_tokens([UserMessage("x" * 400)])
    assert 0 < base < anthropic.estimate_input_tokens([UserMessage("x" * 4000)])
    image = ImagePart(source=Base64Source(data=PNG), media_type="image/png")
    assert anthropic.estimate_input_tokens([UserMessage(["x" * 400, image])]) > base
    tool = ToolDefinition(name="f", description="d", side_effects="none", input_schema={"type": "object"})
    assert anthropic.estimate_input_tokens([UserMessage("x" * 400)], [tool]) > base


# -- echoes, dropped messages and media types -----------------------------------------------------


def test_a_message_with_nothing_left_is_dropped_with_a_loss() -> None:
    """A user message holding only audio is not sent as ``content: []``; a loss names it."""
    history: list[HistoryEvent] = [
        UserMessage([AudioPart(source=Base64Source(data="AAAA"), media_type="audio/wav")]),
        AssistantMessage(["ok"]), UserMessage("and now?")]
    projection = anthropic.to_wire(history, model="claude-sonnet-4-6")
    assert [m["role"] for m in projection.request["messages"]] == ["assistant", "user"]
    assert [(x.path, x.part_type, x.action) for x in projection.losses] == [
        ("history[0].parts[0]", "audio", "dropped"), ("history[0]", "user_message", "dropped")]


def test_an_empty_final_assistant_message_is_kept_as_the_api_allows() -> None:
    """The one empty message Anthropic takes, a final assistant prefill, still goes out."""
    projection = anthropic.to_wire([UserMessage("q"), AssistantMessage([])], model="claude-sonnet-4-6")
    assert projection.request["messages"][-1] == {"role": "assistant", "content": []}


def test_documents_sent_under_another_media_type_say_so() -> None:
    """An untyped base64 document goes as PDF, and text/markdown as text/plain: each a loss."""
    history: list[HistoryEvent] = [UserMessage([
        DocumentPart(source=Base64Source(data="AAAAAAAA")),
        DocumentPart(source=TextSource(text="# notes"), media_type="text/markdown"),
    ])]
    projection = anthropic.to_wire(history, model="claude-sonnet-4-6")
    assert [(x.path, x.action) for x in projection.losses] == [
        ("history[0].parts[0].media_type", "rewritten"), ("history[0].parts[1].media_type", "rewritten")]


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": "), (",", ": ")])
def test_echo_keeps_arguments_as_json_values_whatever_their_spacing(separators: tuple[str, str]) -> None:
    """The wire carries an object, not text: any spelling echoes to the same JSON value."""
    arguments = {"path": "a b", "n": [1, 2.5, None], "deep": {"x": True}}
    call = ToolCallPart(id="tu_1", name="f", arguments_json=json.dumps(arguments, separators=separators),
                        provider_ids={"anthropic": "toolu_1"})
    content = anthropic.to_wire([AssistantMessage([call])], model="claude-sonnet-4-6").request["messages"][0]["content"]
    echoed = anthropic.from_wire({"type": "message", "content": content, "model": "claude-sonnet-4-6"})
    part = echoed.parts[0]
    assert isinstance(part, ToolCallPart)
    assert json.loads(part.arguments_json) == arguments
    assert part.arguments_json == json.dumps(arguments, ensure_ascii=False)


def test_a_tool_result_with_data_and_an_attachment_tells_the_model_the_data() -> None:
    """A result with no text, structured data and an image sends the data as JSON text beside it."""
    call = ToolCallPart(id="tu_1", name="shot", arguments_json="{}", provider_ids={"anthropic": "toolu_1"})
    result = ToolMessage(call_id="tu_1", tool_name="shot", data={"w": 2},
                         parts=(ImagePart(source=UrlSource(url="https://example.com/a.png")),))
    shot = ToolDefinition(name="shot", description="Screenshot.", input_schema={"type": "object"},
                          side_effects="read")
    projection = anthropic.to_wire([UserMessage("q"), AssistantMessage([call]), result],
                                   model="claude-sonnet-4-6", tools=[shot])
    block = projection.request["messages"][2]["content"][0]
    assert block["content"] == [{"type": "text", "text": '{"w": 2}'},
                                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}]
    assert projection.losses == ()


# -- what the send path must not let through -------------------------------------------------------


def test_a_history_that_calls_tools_sent_without_their_definitions_is_a_loss() -> None:
    """A resumed session sent without tools= names the tools Anthropic would want defined; with
    the definitions there is no such loss."""
    call = ToolCallPart.create("ls", {})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([call]),
                                   ToolMessage(call_id=call.id, tool_name="ls", output_text="a.py")]
    lost = anthropic.to_wire(history, model=MODEL).losses
    assert [(x.path, x.part_type, x.action) for x in lost] == [
        ("history[1].parts[0]", "tool_call", "downgraded")]
    assert "'ls'" in lost[0].reason
    ls = ToolDefinition(name="ls", description="List.", input_schema={"type": "object"}, side_effects="read")
    assert anthropic.to_wire(history, model=MODEL, tools=[ls]).losses == ()
    with pytest.raises(LossError):
        anthropic.to_wire(history, model=MODEL, strict=True)


def test_a_tool_result_whose_call_is_not_in_the_history_is_dropped_and_reported() -> None:
    """An orphan tool result (validate_history's orphan_tool_result) is not sent: the API refuses
    a tool_result without its tool_use; the loss names it, and strict mode refuses."""
    history: list[HistoryEvent] = [UserMessage("q"), ToolMessage(call_id="tu_gone", tool_name="f",
                                                                 output_text="x")]
    projection = anthropic.to_wire(history, model=MODEL)
    assert projection.request["messages"] == [{"role": "user", "content": "q"}]
    assert [(x.path, x.part_type, x.action) for x in projection.losses] == [
        ("history[1]", "tool_message", "dropped")]
    assert "tu_gone" in projection.losses[0].reason
    with pytest.raises(LossError):
        anthropic.to_wire(history, model=MODEL, strict=True)


def test_an_empty_refusal_dropped_with_other_blocks_is_named_a_refusal() -> None:
    """An empty refusal is sent as text, and when the empty text block is then dropped the loss
    names the refusal part it came from, not a text part."""
    call = ToolCallPart.create("f", {})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([RefusalPart(text=""), call])]
    projection = anthropic.to_wire(history, model=MODEL)
    dropped = [(loss.path, loss.part_type) for loss in projection.losses if loss.action == "dropped"]
    assert dropped == [("history[1].parts[0]", "refusal")]
    assert [block["type"] for block in projection.request["messages"][1]["content"]] == ["tool_use"]
