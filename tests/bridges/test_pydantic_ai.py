"""The pydantic-ai bridge, against the real installed pydantic-ai: its own types, both directions."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai import messages as m
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from pydantic_ai.usage import RequestUsage

from partwire import (
    AssistantMessage,
    DeveloperMessage,
    DocumentPart,
    HistoryEvent,
    LossError,
    Opaque,
    RedactedThinkingPart,
    RefusalPart,
    RetryEvent,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UrlSource,
    UserMessage,
    validate_history,
)
from partwire._base import replace
from partwire.adapters import anthropic, bedrock
from partwire.bridges import pydantic_ai as bridge
from partwire.history import UnknownEvent
from partwire.projection import Loss
from tests.harness.depth import examples
from tests.strategies import histories

# Fewer examples than the adapters' laws by default: pydantic-ai validates every message it builds.
LAWS = settings(max_examples=examples(25, "PARTWIRE_LAW_EXAMPLES"), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def dumped(messages: list[ModelMessage]) -> Any:
    """Messages as pydantic-ai serialises them: the form a store keeps and compares."""
    return ModelMessagesTypeAdapter.dump_python(messages, mode="json")


# --- strategies over pydantic-ai's own types ---------------------------------------------------

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
names = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True)
times = st.integers(0, 10**9).map(lambda us: T0 + timedelta(microseconds=us))
call_ids = st.one_of(st.from_regex(r"toolu_[A-Za-z0-9]{6}", fullmatch=True),
                     st.from_regex(r"call_[A-Za-z0-9]{6}", fullmatch=True))
providers = st.sampled_from([None, "anthropic", "openai", "google-gla"])
json_objects = st.dictionaries(names, st.one_of(st.integers(-5, 5), texts, st.booleans()), max_size=3)
user_items = st.one_of(
    texts,
    st.builds(m.ImageUrl, url=st.sampled_from(["https://x.test/a.png", "https://x.test/b.jpg"])),
    st.builds(m.DocumentUrl, url=st.just("https://x.test/rfc.pdf")),
    st.builds(m.BinaryContent, data=st.binary(min_size=1, max_size=8),
              media_type=st.sampled_from(["image/png", "audio/wav", "application/pdf"])),
)
request_parts: st.SearchStrategy[Any] = st.one_of(
    st.builds(m.SystemPromptPart, content=texts, timestamp=times),
    st.builds(m.UserPromptPart, content=st.one_of(texts, st.lists(user_items, min_size=1, max_size=3)),
              timestamp=times),
    st.builds(m.ToolReturnPart, tool_name=names, content=st.one_of(texts, json_objects),
              tool_call_id=call_ids, timestamp=times,
              outcome=st.sampled_from(["success", "failed", "denied", "interrupted"])),
)
response_parts = st.one_of(
    st.builds(m.TextPart, content=texts),
    st.builds(m.ThinkingPart, content=texts, signature=st.one_of(st.none(), texts.filter(bool)),
              id=st.one_of(st.none(), st.just("rs_1")), provider_name=providers),
    st.builds(m.ThinkingPart, content=st.just(""), id=st.just("redacted_thinking"),
              signature=st.just("EmwKAhgBEgy3"), provider_name=st.just("anthropic")),
    st.builds(m.ToolCallPart, tool_name=names, args=st.one_of(json_objects, json_objects.map(str)),
              tool_call_id=call_ids),
    st.builds(m.NativeToolCallPart, tool_name=st.just("web_search"), args=json_objects,
              tool_call_id=call_ids, provider_name=providers),
    st.builds(m.FilePart, content=st.builds(m.BinaryContent, data=st.binary(min_size=1, max_size=8),
                                            media_type=st.just("image/png"))),
    st.builds(m.CompactionPart, content=texts, provider_name=st.just("anthropic")),
)
usages = st.builds(RequestUsage, input_tokens=st.integers(0, 10**6), output_tokens=st.integers(0, 10**4),
                   cache_read_tokens=st.integers(0, 100),
                   details=st.dictionaries(st.sampled_from(["reasoning_tokens", "x"]), st.integers(0, 9)))
requests = st.builds(m.ModelRequest, parts=st.lists(request_parts, min_size=1, max_size=3),
                     timestamp=st.one_of(st.none(), times),
                     instructions=st.one_of(st.none(), texts), run_id=st.one_of(st.none(), names))
responses = st.builds(m.ModelResponse, parts=st.lists(response_parts, max_size=4), usage=usages,
                      model_name=st.one_of(st.none(), names), timestamp=times,
                      provider_name=providers, provider_response_id=st.one_of(st.none(), names),
                      finish_reason=st.sampled_from([None, "stop", "length", "tool_call", "error"]))
message_lists = st.lists(st.one_of(requests, responses), max_size=5)


# --- laws on pydantic-ai's own types ------------------------------------------------------------


@LAWS
@given(message_lists)
def test_pydantic_ai_messages_round_trip_exactly(messages: list[ModelMessage]) -> None:
    """Import then export gives messages that serialise exactly as the originals, with no loss."""
    exported = bridge.to_messages(bridge.from_messages(messages))
    assert exported.losses == ()
    assert dumped(exported.messages) == dumped(messages)


@LAWS
@given(message_lists)
def test_a_json_dump_imports_as_the_messages_do(messages: list[ModelMessage]) -> None:
    """``read_dump`` of pydantic-ai's JSON dump gives the same events as importing the objects."""
    assert bridge.read_dump(ModelMessagesTypeAdapter.dump_json(messages)) == bridge.from_messages(messages)


@LAWS
@given(message_lists)
def test_import_is_deterministic(messages: list[ModelMessage]) -> None:
    """Importing the same messages twice gives the same ids and times (a store can deduplicate)."""
    first, second = bridge.from_messages(messages), bridge.from_messages(messages)
    assert [e.id for e in first] == [e.id for e in second]
    assert first == second


def _named_by_a_loss(losses: tuple[Loss, ...], i: int) -> bool:
    at = f"history[{i}]"
    return any(loss.path == at or loss.path.startswith(at + ".") for loss in losses)


@LAWS
@given(histories())
def test_any_history_survives_pydantic_ai_or_names_its_losses(history: list[HistoryEvent]) -> None:
    """Export then import gives every message back equal (ids included) unless a loss names it.

    Events pydantic-ai has no place for (errors, retries, subtasks, ...) are dropped, each with a loss.
    """
    exported = bridge.to_messages(history)
    back = iter(bridge.from_messages(exported.messages))
    for i, event in enumerate(history):
        if event.type != "message" and not (isinstance(event, UnknownEvent)
                                            and (event.original_type or "").startswith("pydantic-ai:")):
            assert _named_by_a_loss(exported.losses, i)
            continue
        again = next(back)
        if not _named_by_a_loss(exported.losses, i):
            assert again.model_dump() == event.model_dump()
    assert next(back, None) is None


# --- what the canonical form gets from pydantic-ai ----------------------------------------------


def agent_run() -> list[ModelMessage]:
    """A real pydantic-ai agent run (FunctionModel: no network) with a tool call and thinking."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[
                m.ThinkingPart("I should read the file.", signature="sig-1", provider_name="anthropic"),
                m.ToolCallPart("read_file", {"path": "README.md"}, tool_call_id="toolu_01")])
        return ModelResponse(parts=[m.TextPart("It introduces partwire.")])

    agent = Agent(FunctionModel(model), system_prompt="You are a careful coding agent.")

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        return f"# partwire ({path})"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return agent.run_sync("Summarise the README.").all_messages()


def test_an_agent_run_imports_with_ids_signatures_and_results_linked() -> None:
    """A real run's thinking signature, tool-call id and tool result survive the import, linked."""
    history = bridge.from_messages(agent_run())
    roles = [getattr(e, "role", e.type) for e in history]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    thinking, call = history[2].parts  # type: ignore[union-attr]
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature == Opaque(value="sig-1", issuer="anthropic")
    assert isinstance(call, ToolCallPart)
    assert call.arguments == {"path": "README.md"}
    assert "toolu_01" in call.provider_ids.values()
    result = history[3]
    assert isinstance(result, ToolMessage)
    assert (result.call_id, result.output_text) == (call.id, "# partwire (README.md)")


def test_exported_messages_continue_a_real_agent_run() -> None:
    """pydantic-ai accepts the exported history as ``message_history`` and answers after it."""
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    exported = bridge.to_messages(bridge.from_messages(agent_run()))
    result = Agent(TestModel(custom_output_text="ok")).run_sync("And now?",
                                                               message_history=exported.messages)
    assert result.output == "ok"
    assert dumped(result.all_messages()[:len(exported.messages)]) == dumped(exported.messages)


# --- canonical -> pydantic-ai: what it keeps, what it reports --------------------------------------


def canonical_history() -> list[HistoryEvent]:
    """A canonical Anthropic session with signed and redacted thinking and a tool round trip."""
    call = ToolCallPart.create("read_file", {"path": "README.md"}, provider_ids={"anthropic": "toolu_9"})
    return [
        SystemMessage("You are a careful coding agent."),
        UserMessage("Summarise the README."),
        AssistantMessage([ThinkingPart(text="Read it first.", signature=Opaque(value="sig", issuer="anthropic")),
                          RedactedThinkingPart(data=Opaque(value="EmwKAhgB", issuer="anthropic")), call],
                         model="anthropic:claude-sonnet-4-6", provider="anthropic", stop_reason="tool_use"),
        ToolMessage("# partwire", call_id=call.id, tool_name="read_file"),
        AssistantMessage("It introduces partwire.", model="anthropic:claude-sonnet-4-6",
                         provider="anthropic", stop_reason="stop"),
    ]


def test_canonical_history_exports_and_comes_back_with_the_same_content() -> None:
    """Signatures, redacted thinking, provider tool ids and the call/result link survive a round trip."""
    history = canonical_history()
    exported = bridge.to_messages(history)
    assert exported.lossless
    response = exported.messages[1]
    assert isinstance(response, m.ModelResponse)
    assert response.parts[1] == m.ThinkingPart("", id="redacted_thinking", signature="EmwKAhgB",
                                               provider_name="anthropic")
    assert isinstance(response.parts[2], m.ToolCallPart)
    assert response.parts[2].tool_call_id == "toolu_9"
    back = bridge.from_messages(exported.messages)
    assert back == history  # ids, times and the call/result link included
    assert validate_history(back) == []


def test_what_pydantic_ai_cannot_hold_is_reported() -> None:
    """A developer message, a refusal, a foreign unknown part and a retry event each give a loss."""
    history: list[HistoryEvent] = [
        DeveloperMessage("Tests run with pytest."),
        UserMessage("hi"),
        AssistantMessage([RefusalPart(text="I can't."), UnknownPart(original_type="hologram", raw={}, issuer="x")],
                         model="openai:gpt-5", provider="openai"),
        RetryEvent(attempt=2, reason="overloaded"),
    ]
    exported = bridge.to_messages(history)
    assert [(loss.path, loss.action) for loss in exported.losses] == [
        ("history[0]", "attached"),
        ("history[2].parts[0]", "downgraded"),
        ("history[2].parts[1]", "dropped"),
        ("history[3]", "dropped"),
    ]
    assert all(loss.adapter == "pydantic_ai" for loss in exported.losses)


def test_a_document_title_or_file_name_pydantic_ai_cannot_hold_is_reported() -> None:
    """pydantic-ai's document content has no title and no file name: each one set is a loss (an
    empty file name too: hypothesis found it dropped in silence), a document without either none."""
    url = UrlSource(url="https://example.com/report.pdf")
    named = DocumentPart(source=url, title="Q3 report", filename="")
    exported = bridge.to_messages([UserMessage([named]), UserMessage([DocumentPart(source=url)])])
    assert [(loss.path, loss.action) for loss in exported.losses] == [
        ("history[0].parts[0].title", "dropped"),
        ("history[0].parts[0].filename", "dropped"),
    ]


def test_strict_export_refuses_to_lose() -> None:
    """``strict=True`` raises LossError naming the bridge instead of dropping a retry event."""
    with pytest.raises(LossError, match="pydantic_ai"):
        bridge.to_messages([UserMessage("hi"), RetryEvent(attempt=2, reason="overloaded")], strict=True)


def test_a_call_id_from_another_provider_is_mapped_and_reported() -> None:
    """A call only OpenAI named, sent in an Anthropic turn, uses the canonical id and says so."""
    call = ToolCallPart.create("read_file", {}, provider_ids={"openai": "call_1"})
    exported = bridge.to_messages([UserMessage("hi"), AssistantMessage(
        [call], model="anthropic:claude-sonnet-4-6", provider="anthropic")])
    part = exported.messages[1].parts[0]
    assert isinstance(part, m.ToolCallPart)
    assert part.tool_call_id == call.id
    assert [loss.action for loss in exported.losses] == ["id_mapped"]


def test_unknown_pydantic_ai_parts_are_kept_verbatim() -> None:
    """A compaction part partwire has no type for comes back byte-identical, via an unknown part."""
    messages: list[ModelMessage] = [m.ModelResponse(parts=[m.CompactionPart(content="summary",
                                                                            provider_name="anthropic")],
                                                    timestamp=T0)]
    history = bridge.from_messages(messages)
    part = history[0].parts[0]  # type: ignore[union-attr]
    assert isinstance(part, UnknownPart)
    assert part.original_type == "pydantic-ai:compaction"
    assert dumped(bridge.to_messages(history).messages) == dumped(messages)


def test_read_dump_accepts_text_bytes_and_parsed_json() -> None:
    """The three forms a dump arrives in (bytes, str, parsed list) import alike."""
    messages = agent_run()
    raw = ModelMessagesTypeAdapter.dump_json(messages)
    import json

    assert bridge.read_dump(raw) == bridge.read_dump(raw.decode()) == bridge.read_dump(json.loads(raw))
    assert [e.type for e in bridge.read_dump(raw)] == ["message"] * 5


def test_a_model_id_of_another_provider_comes_back_as_it_was() -> None:
    """An assistant message served by one provider under another's model id survives the trip
    (the generated history CI's hypothesis run found: it came back as 'anthropic:openai:gpt-5')."""
    from partwire import AssistantMessage, ToolCallPart

    message = AssistantMessage([ToolCallPart.create("A", {})], model="openai:gpt-5",
                               provider="anthropic", status="complete")
    back = bridge.from_messages(bridge.to_messages([message]).messages)
    assert [m.model for m in back] == ["openai:gpt-5"]  # type: ignore[union-attr]


def test_inline_bytes_whose_media_type_names_another_part_type_are_reported() -> None:
    """pydantic-ai's binary content keeps a media type, not a part type: an image part holding
    audio/wav bytes reads back as audio. The hypothesis law found it coming back so with no loss
    (the falsifying history's user message, by hand); an assistant file part is the same."""
    from partwire import AudioPart, Base64Source, ImagePart

    wav = ImagePart(source=Base64Source(data="iJtI9SU="), media_type="audio/wav")
    history: list[HistoryEvent] = [UserMessage([wav]), AssistantMessage([wav], provider="anthropic"),
                                   UserMessage([ImagePart(source=Base64Source(data="iJtI9SU="),
                                                          media_type="image/png")])]
    exported = bridge.to_messages(history)
    assert [(loss.path, loss.part_type, loss.action) for loss in exported.losses] == [
        ("history[0].parts[0]", "image", "rewritten"),
        ("history[1].parts[0]", "image", "rewritten"),
    ]
    back = bridge.from_messages(exported.messages)
    assert [p for e in back[:2] for p in e.parts] == [  # type: ignore[union-attr]
        AudioPart(source=Base64Source(data="iJtI9SU="), media_type="audio/wav")] * 2
    assert back[2] == history[2]


def test_an_empty_thinking_signature_comes_back_empty_not_absent() -> None:
    """A signature of "" is exported as "" and must import as "", not as no signature (hypothesis
    found ``Opaque(value='')`` coming back as None with no loss)."""
    message = AssistantMessage([ThinkingPart(text="hm", signature=Opaque(value="", issuer="anthropic"))],
                               provider="anthropic")
    exported = bridge.to_messages([message])
    assert exported.lossless
    part = exported.messages[0].parts[0]
    assert isinstance(part, m.ThinkingPart)
    assert part.signature == ""
    assert bridge.from_messages(exported.messages) == [message]


def test_a_round_trip_adds_no_provider_data() -> None:
    """An answer whose call ids import would not derive comes back as it was, provider data and
    all: import once read the carried call ids out of the message itself, and then marked the
    message with what it had taken out."""
    when = datetime(2000, 1, 1, tzinfo=UTC)
    answer = AssistantMessage(id="0" * 26, created_at=when,
                              parts=(ToolCallPart(id="tu_" + "0" * 26, name="A", arguments_json="{}"),))
    exported = bridge.to_messages([answer])
    assert [e.model_dump() for e in bridge.from_messages(exported.messages)] == [answer.model_dump()]
    assert [e.model_dump() for e in bridge.from_messages(exported.messages)] == [answer.model_dump()]


def test_unknown_fields_of_a_message_travel_and_a_parts_are_reported() -> None:
    """A message's fields unknown to this version (a newer version's, an application's) ride in
    pydantic-ai's metadata and come back; a part's have no place and are named by a loss."""
    user = UserMessage(parts=(TextPart(text="hi", x_note="kept?"),), x_ticket=42)
    answer = AssistantMessage(["Hello."], x_trace={"span": "a1"})
    exported = bridge.to_messages([user, answer])
    assert [(loss.path, loss.action, loss.reason) for loss in exported.losses] == [
        ("history[0].parts[0]", "dropped",
         "fields unknown to this version (x_note) have no place in pydantic-ai")]
    back = bridge.from_messages(exported.messages)
    assert back[0].model_dump() == replace(user, parts=(TextPart(text="hi"),)).model_dump()
    assert back[1].model_dump() == answer.model_dump()


def test_a_result_whose_call_is_elsewhere_comes_back_unmarked() -> None:
    """A tool result answering a call outside the history keeps its canonical call id, carried in
    metadata; import applies it before checking the part, so no mark is left behind."""
    result = ToolMessage("", call_id="tu_" + "0" * 26, tool_name="A")
    exported = bridge.to_messages([result])
    assert [e.model_dump() for e in bridge.from_messages(exported.messages)] == [result.model_dump()]


def test_pydantic_ai_bedrock_reasoning_goes_back_to_bedrock_signed() -> None:
    """pydantic-ai's Bedrock model tags its thinking ``provider_name="bedrock"``: imported, the
    signature is Bedrock's, so Converse gets it back and Anthropic's API does not."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, UserPromptPart
    from pydantic_ai.messages import TextPart as PaiText
    from pydantic_ai.messages import ThinkingPart as PaiThinking

    from partwire.bridges import pydantic_ai

    history = pydantic_ai.from_messages([
        ModelRequest(parts=[UserPromptPart(content="q")]),
        ModelResponse(parts=[PaiThinking(content="Think.", signature="c2ln", provider_name="bedrock"),
                             PaiText(content="Done.")], provider_name="bedrock",
                      model_name="us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        ModelRequest(parts=[UserPromptPart(content="more")])])
    sent = bedrock.to_wire(history, model="us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    assert sent.losses == ()
    assert sent.request["messages"][1]["content"][0] == {
        "reasoningContent": {"reasoningText": {"text": "Think.", "signature": "c2ln"}}}
    assert [loss.part_type for loss in anthropic.to_wire(history, model="claude-sonnet-4-6").losses] == ["thinking"]
