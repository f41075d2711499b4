"""The LangChain bridge, against the real installed langchain-core: its own types, both directions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core import messages as lc
from langchain_core.load import dumpd
from langchain_core.messages import BaseMessage, messages_to_dict

from partwire import (
    AssistantMessage,
    Base64Source,
    DeveloperMessage,
    DocumentPart,
    HistoryEvent,
    ImagePart,
    LossError,
    Opaque,
    RedactedThinkingPart,
    RetryEvent,
    ServerToolCallPart,
    ServerToolResultPart,
    SystemMessage,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from partwire._base import replace
from partwire.bridges import langchain as bridge
from partwire.projection import Loss
from tests.harness.depth import examples
from tests.strategies import histories

LAWS = settings(max_examples=examples(25, "PARTWIRE_LAW_EXAMPLES"), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def dumped(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """Messages as LangChain dumps them: the form a store keeps and compares."""
    return [m.model_dump() for m in messages]


# --- strategies over LangChain's own v1 messages -------------------------------------------------

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
names = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True)
call_ids = st.from_regex(r"(toolu|call)_[A-Za-z0-9]{6}", fullmatch=True)
providers = st.sampled_from([None, "anthropic", "openai", "bedrock_converse", "google_genai", "google_vertexai"])
_STOP_KEY = {"anthropic": "stop_reason", "bedrock_converse": "stopReason"}
json_objects = st.dictionaries(names, st.one_of(st.integers(-5, 5), texts, st.booleans()), max_size=3)
user_blocks = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, texts),
    st.builds(lambda u: {"type": "image", "url": u, "mime_type": "image/png"},
              st.sampled_from(["https://x.test/a.png", "https://x.test/b.png"])),
    st.builds(lambda d: {"type": "file", "base64": d, "mime_type": "application/pdf"}, st.just("JVBERi0=")),
    st.builds(lambda f: {"type": "image", "file_id": f}, st.just("file-abc123")),
)
humans = st.builds(lc.HumanMessage, content=st.one_of(texts, st.lists(user_blocks, min_size=1, max_size=3)),
                   id=st.one_of(st.none(), names))
systems = st.builds(lc.SystemMessage, content=texts)


@st.composite
def ai_messages(draw: st.DrawFn) -> lc.AIMessage:
    """An AIMessage as a v1 chat model returns it: blocks, tool calls beside them, metadata."""
    provider = draw(providers)
    calls = [{"type": "tool_call", "id": draw(call_ids), "name": draw(names), "args": draw(json_objects)}
             for _ in range(draw(st.integers(0, 2)))]
    blocks: list[Any] = draw(st.lists(st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, texts),
        st.builds(lambda t, s: {"type": "reasoning", "reasoning": t, "extras": {"signature": s}},
                  texts, texts.filter(bool)),
        st.builds(lambda t: {"type": "reasoning", "reasoning": t}, texts),
        st.builds(lambda d: {"type": "non_standard", "value": {"type": "redacted_thinking", "data": d}},
                  st.just("EmwKAhgB")),
        *([st.builds(lambda d: {"type": "non_standard", "value": {"reasoningContent": {"redactedContent": d}}},
                     st.binary(min_size=1, max_size=6))] if provider == "bedrock_converse" else []),
    ), max_size=3))
    meta: dict[str, Any] = {"output_version": "v1"}
    if provider:
        meta |= {"model_provider": provider, "model_name": draw(names)}
    if draw(st.booleans()):
        meta[_STOP_KEY.get(provider or "", "finish_reason")] = draw(
            st.sampled_from(["end_turn", "stop", "tool_use", "length", "guardrail_intervened"]))
    usage = draw(st.one_of(st.none(), st.builds(
        lambda i, o: {"input_tokens": i, "output_tokens": o, "total_tokens": i + o},
        st.integers(0, 1000), st.integers(0, 1000))))
    invalid = draw(st.lists(st.builds(lambda i, n: {"type": "invalid_tool_call", "id": i, "name": n,
                                                    "args": '{"path": "READ', "error": None},
                                      call_ids, names), max_size=1))
    return lc.AIMessage(content=[*blocks, *calls], tool_calls=calls, invalid_tool_calls=invalid,
                        response_metadata=meta, usage_metadata=usage, id=draw(st.one_of(st.none(), names)))


tools = st.builds(lc.ToolMessage, content=texts, tool_call_id=call_ids, name=names,
                  status=st.sampled_from(["success", "error"]),
                  artifact=st.one_of(st.none(), json_objects))
message_lists = st.lists(st.one_of(systems, humans, ai_messages(), tools), max_size=5)


# --- laws ---------------------------------------------------------------------------------------


@LAWS
@given(message_lists)
def test_langchain_messages_round_trip_exactly(messages: list[BaseMessage]) -> None:
    """Import then export gives messages that dump exactly as the originals, with no loss."""
    exported = bridge.to_messages(bridge.from_messages(messages))
    assert exported.losses == ()
    assert dumped(exported.messages) == dumped(messages)


def _named_by_a_loss(losses: tuple[Loss, ...], i: int) -> bool:
    at = f"history[{i}]"
    return any(loss.path == at or loss.path.startswith(at + ".") for loss in losses)


@LAWS
@given(histories())
def test_any_history_survives_langchain_or_names_its_losses(history: list[HistoryEvent]) -> None:
    """Export then import gives every message back equal (ids and times included) unless a loss
    names it; events LangChain has no place for are dropped, each with a loss."""
    exported = bridge.to_messages(history)
    back = iter(bridge.from_messages(exported.messages))
    for i, event in enumerate(history):
        if event.type != "message":
            assert _named_by_a_loss(exported.losses, i)
            continue
        again = next(back)
        if not _named_by_a_loss(exported.losses, i):
            assert again.model_dump() == event.model_dump()
    assert next(back, None) is None


# --- examples -----------------------------------------------------------------------------------


def anthropic_turns() -> list[BaseMessage]:
    """A tool round trip as ChatAnthropic (v1 output) records it."""
    call = {"type": "tool_call", "id": "toolu_01", "name": "read_file", "args": {"path": "README.md"}}
    return [
        lc.SystemMessage("You are a careful coding agent."),
        lc.HumanMessage("Summarise the README."),
        lc.AIMessage(content=[{"type": "reasoning", "reasoning": "Read it first.",
                               "extras": {"signature": "sig-1"}}, call],
                     tool_calls=[call], id="msg_01",
                     response_metadata={"output_version": "v1", "model_provider": "anthropic",
                                        "model_name": "claude-sonnet-4-6", "stop_reason": "tool_use"},
                     usage_metadata={"input_tokens": 412, "output_tokens": 38, "total_tokens": 450}),
        lc.ToolMessage("# partwire", tool_call_id="toolu_01", name="read_file"),
    ]


def test_signatures_ids_and_results_come_in_linked() -> None:
    """The signature keeps its issuer, the call keeps Anthropic's id, the result points at the call."""
    history = bridge.from_messages(anthropic_turns())
    assistant, result = history[2], history[3]
    assert isinstance(assistant, AssistantMessage)
    assert (assistant.model, assistant.stop_reason) == ("anthropic:claude-sonnet-4-6", "tool_use")
    thinking, call = assistant.parts
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature == Opaque(value="sig-1", issuer="anthropic")
    assert isinstance(call, ToolCallPart)
    assert call.provider_ids == {"anthropic": "toolu_01"}
    assert isinstance(result, ToolMessage)
    assert result.call_id == call.id


def test_a_canonical_history_comes_back_equal() -> None:
    """Developer role, redacted thinking and a malformed call survive LangChain and come back equal."""
    call = ToolCallPart(id="tu_01KDVDNA000000000000000001", name="write_file",
                        arguments_json='{"path": "a.py", "text": "unterminated',
                        provider_ids={"anthropic": "toolu_9"})
    history: list[HistoryEvent] = [
        DeveloperMessage("Tests run with pytest."),
        UserMessage("Fix the bug."),
        AssistantMessage([RedactedThinkingPart(data=Opaque(value="EmwKAhgB", issuer="anthropic")), call],
                         model="anthropic:claude-sonnet-4-6", provider="anthropic", stop_reason="tool_use"),
        ToolMessage("invalid JSON", call_id=call.id, tool_name="write_file", status="error"),
    ]
    exported = bridge.to_messages(history)
    assert exported.lossless
    ai = exported.messages[2]
    assert isinstance(ai, lc.AIMessage)
    assert ai.invalid_tool_calls[0]["args"] == call.arguments_json
    assert bridge.from_messages(exported.messages) == history


def test_what_langchain_cannot_hold_is_reported() -> None:
    """A retry event and reasoning ids have no LangChain form: each is a loss, strict mode refuses."""
    history: list[HistoryEvent] = [
        SystemMessage("sys"),
        AssistantMessage([ThinkingPart(text="t", id="rs_1")], model="openai:gpt-5", provider="openai"),
        RetryEvent(attempt=2, reason="overloaded"),
    ]
    exported = bridge.to_messages(history)
    assert [(loss.path, loss.action) for loss in exported.losses] == [
        ("history[1].parts[0]", "dropped"), ("history[2]", "dropped")]
    with pytest.raises(LossError, match="langchain"):
        bridge.to_messages(history, strict=True)


@pytest.mark.parametrize("form", ["messages_to_dict", "dumpd", "plain"])
def test_read_dump_takes_each_langchain_dump_form(form: str) -> None:
    """``read_dump`` reads messages_to_dict, dumpd and plain-dict dumps into the same events."""
    messages = anthropic_turns()
    if form == "messages_to_dict":
        data: Any = messages_to_dict(messages)
    elif form == "dumpd":
        data = [dumpd(m) for m in messages]
    else:
        data = [m.model_dump() for m in messages]
    events = bridge.read_dump(json.dumps(data))
    expected = bridge.from_messages(messages)
    assert [(e.type, getattr(e, "parts", None)) for e in events] == \
           [(e.type, getattr(e, "parts", None)) for e in expected]


def test_read_dump_rejects_what_is_not_a_list() -> None:
    """A dump that is not a list of messages is refused with a message saying so."""
    with pytest.raises(ValueError, match="list of messages"):
        bridge.read_dump('{"type": "human"}')


def test_a_model_id_of_another_provider_comes_back_as_it_was() -> None:
    """An assistant message served by one provider under another's model id survives the trip."""
    from partwire import AssistantMessage

    message = AssistantMessage(["hi"], model="openai:gpt-5", provider="anthropic", status="complete")
    back = bridge.from_messages(bridge.to_messages([message]).messages)
    assert [m.model for m in back] == ["openai:gpt-5"]  # type: ignore[union-attr]


def test_ids_of_other_providers_on_a_call_are_reported() -> None:
    """A call holding ids from several providers goes out with the message provider's id only:
    the others are named by a loss (found by the history law: they vanished in silence)."""
    call = ToolCallPart(id="tu_1", name="A", arguments_json="{}",
                        provider_ids={"anthropic": "toolu_1", "openai": "call_1"})
    exported = bridge.to_messages([AssistantMessage([call], provider="anthropic")])
    assert [(loss.path, loss.part_type, loss.action) for loss in exported.losses] == [
        ("history[0].parts[0]", "tool_call", "dropped")]
    assert "openai" in exported.losses[0].reason
    back = bridge.from_messages(exported.messages)[0]
    assert isinstance(back, AssistantMessage)
    assert back.parts[0] == call.model_copy(update={"provider_ids": {"anthropic": "toolu_1"}})


@pytest.mark.parametrize("provider", [None, "openai"])
def test_server_tool_parts_keep_their_issuer_whatever_the_message_provider(provider: str | None) -> None:
    """A server tool call and result Anthropic issued, on a message with no provider or another
    provider, come back issued by Anthropic (found by the history law: they came back issued by
    the message's provider, or by langchain)."""
    parts = (ServerToolCallPart(id="srvtoolu_01", name="web_search", input={"query": "partwire"},
                                issuer="anthropic"),
             ServerToolResultPart(call_id="srvtoolu_01", name="", output=[{"type": "web_search_result"}],
                                  issuer="anthropic"))
    answer = AssistantMessage(parts, provider=provider)
    exported = bridge.to_messages([answer])
    assert exported.losses == ()
    message = exported.messages[0]
    if provider is None:  # the one issuer of its parts names it, as langchain-anthropic needs
        assert message.response_metadata["model_provider"] == "anthropic"
    else:
        assert [b.get("extras") for b in message.content_blocks] == [{"issuer": "anthropic"}] * 2
    assert [m.model_dump() for m in bridge.from_messages(exported.messages)] == [answer.model_dump()]


@pytest.mark.parametrize("media_type", [None, "text/markdown", "text/plain"])
def test_a_text_document_keeps_its_media_type(media_type: str | None) -> None:
    """A text-source document comes back with the media type it had, none included (found by
    the history law: it came back text/plain, LangChain's only plain-text type)."""
    result = ToolMessage("", call_id="tu_1", tool_name="read",
                         parts=(DocumentPart(source=TextSource(text="# notes"), media_type=media_type),))
    exported = bridge.to_messages([result])
    assert exported.losses == ()
    block: dict[str, Any] = dict(exported.messages[0].content_blocks[0])
    assert block["mime_type"] == "text/plain"
    assert bridge.from_messages(exported.messages) == [result]


def test_an_answer_with_no_provider_goes_out_under_the_one_issuer_of_its_state() -> None:
    """An answer that names no provider (as one imported from a request) but holds Anthropic's
    signature and call id goes out as Anthropic's, so langchain-anthropic echoes both, with
    no loss; it comes back naming no provider. State from two issuers names neither."""
    thinking = ThinkingPart(text="Read it first.", signature=Opaque(value="sig-1", issuer="anthropic"))
    call = ToolCallPart(id="tu_1", name="read_file", arguments_json="{}", provider_ids={"anthropic": "toolu_1"})
    answer = AssistantMessage([thinking, call])
    exported = bridge.to_messages([answer])
    assert exported.losses == ()
    message = exported.messages[0]
    assert message.response_metadata["model_provider"] == "anthropic"
    assert isinstance(message, lc.AIMessage)
    assert message.tool_calls[0]["id"] == "toolu_1"
    assert bridge.from_messages([message]) == [answer]
    mixed = AssistantMessage([thinking, call.model_copy(update={"provider_ids": {"openai": "call_1"}})])
    assert "model_provider" not in bridge.to_messages([mixed]).messages[0].response_metadata


def test_a_document_keeps_its_file_name() -> None:
    """A document's file name goes where LangChain's OpenAI translator reads it (the block's
    extras) and comes back."""
    user = UserMessage([DocumentPart(source=Base64Source(data="JVBERi0="), media_type="application/pdf",
                                     filename="report.pdf")])
    exported = bridge.to_messages([user])
    assert exported.losses == ()
    block: dict[str, Any] = dict(exported.messages[0].content_blocks[0])
    assert block["extras"] == {"filename": "report.pdf"}
    assert bridge.from_messages(exported.messages) == [user]


def test_unknown_fields_of_a_message_travel_and_a_parts_are_reported() -> None:
    """A message's fields unknown to this version (a newer version's, an application's) ride in
    response_metadata and come back; a part's have no place and are named by a loss, at the
    part's own path (a tool message's output text goes first as a block, and is no part)."""
    user = UserMessage(parts=(TextPart(text="hi", x_note="kept?"),), x_ticket=42)
    chart = ImagePart(source=UrlSource(url="https://example.com/chart.png"), media_type="image/png")
    result = ToolMessage("done", call_id="c1", tool_name="f", x_trace={"span": "a1"},
                         parts=(replace(chart, x_note=1),))
    exported = bridge.to_messages([user, result])
    assert [(loss.path, loss.action, loss.reason) for loss in exported.losses] == [
        ("history[0].parts[0]", "dropped", "fields unknown to this version (x_note) have no place in LangChain"),
        ("history[1].parts[0]", "dropped", "fields unknown to this version (x_note) have no place in LangChain"),
    ]
    back = bridge.from_messages(exported.messages)
    assert back[0].model_dump() == replace(user, parts=(TextPart(text="hi"),)).model_dump()
    assert back[1].model_dump() == replace(result, parts=(chart,)).model_dump()
