"""The AI SDK's ``ModelMessage`` both ways (``partwire.ui.ai_sdk_model``), judged by the ``ai``
package's model message schemas and compared with its own ``convertToModelMessages``."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings

from partwire import (
    AssistantMessage,
    DeveloperMessage,
    ImagePart,
    Opaque,
    ProviderData,
    ServerToolCallPart,
    ServerToolResultPart,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UrlSource,
    UserMessage,
)
from partwire.convert import convert
from partwire.history import HistoryEvent
from partwire.ui import ai_sdk, ai_sdk_model
from tests.harness.depth import examples
from tests.strategies import histories as any_history
from tests.ui.canonical import dumped
from tests.ui.conftest import Node
from tests.ui.corpus import histories
from tests.ui.laws import round_trip_problems
from tests.ui.model_agreement import as_the_sdk_converts, without_carrier

LAWS = settings(max_examples=examples(25), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _round_trip(history: list[HistoryEvent]) -> list[str]:
    written = ai_sdk_model.to_wire(history)
    back = ai_sdk_model.from_wire(json.loads(json.dumps(written.value)))
    return round_trip_problems(history, written.losses, back.value)


def test_the_sdks_schemas_accept_every_corpus_history(node: Node) -> None:
    """The SDK's system, user, assistant and tool model message schemas accept the ModelMessages
    of every corpus history."""
    results = node("validate-model", [ai_sdk_model.to_wire(h).value for _, h in histories()])
    refused = [(file, r["error"]) for (file, _), r in zip(histories(), results, strict=True) if not r["ok"]]
    assert refused == []


def test_convert_to_model_messages_agrees_on_every_corpus_history(node: Node) -> None:
    """The SDK's ``convertToModelMessages`` of partwire's UIMessages equals partwire's own
    ModelMessages, up to the documented differences (tests/ui/model_agreement.py)."""
    results = node("to-model", [ai_sdk.to_wire(h).value for _, h in histories()])
    differ = []
    for (file, history), result in zip(histories(), results, strict=True):
        ours = without_carrier(as_the_sdk_converts(ai_sdk_model.to_wire(history).value))
        if not result["ok"] or without_carrier(result["messages"]) != ours:
            differ.append(file)
    assert differ == []


def test_each_documented_difference_is_real(node: Node) -> None:
    """Each difference the agreement allows shows on a history made for it, and nothing else
    differs there: an empty assistant message, a provider-run result away from its call, one
    with no call, an unknown part, a call's provider options on its result."""
    call = ServerToolCallPart(id="srv_1", name="web_search", input={"q": "x"}, issuer="anthropic")
    result = ServerToolResultPart(call_id="srv_1", name="web_search_tool_result", output=[], issuer="anthropic")
    orphan = ServerToolResultPart(call_id="srv_9", name="web_search_tool_result", output=[], issuer="anthropic")
    signed = ToolCallPart(id="tu_1", name="f", arguments_json="{}", provider_data=None)
    cases: list[list[HistoryEvent]] = [
        [UserMessage("hi"), AssistantMessage(parts=[])],
        [UserMessage("hi"), AssistantMessage(parts=[call, TextPart(text="found"), result])],
        [UserMessage("hi"), AssistantMessage(parts=[orphan, TextPart(text="ok")])],
        [UserMessage("hi"), AssistantMessage(parts=[UnknownPart(original_type="x", raw={}, issuer="anthropic"),
                                                    TextPart(text="ok")])],
        [UserMessage("hi"),
         AssistantMessage(parts=[signed.model_copy(update={"provider_data": _google_signature()})]),
         ToolMessage(call_id="tu_1", tool_name="f", output_text="done")],
    ]
    results = node("to-model", [ai_sdk.to_wire(h).value for h in cases])
    for history, sdk in zip(cases, results, strict=True):
        ours = ai_sdk_model.to_wire(history).value
        assert without_carrier(sdk["messages"]) != without_carrier(ours)
        assert without_carrier(sdk["messages"]) == without_carrier(as_the_sdk_converts(ours))


def _google_signature() -> ProviderData:
    return ProviderData(issuer="google", data={"thoughtSignature": "GSIG"})


def test_round_trip_keeps_every_corpus_history() -> None:
    """canonical -> ModelMessage -> canonical keeps ids and signatures of every corpus history,
    and every other difference is a loss."""
    broken = {file: p[:3] for file, history in histories() if (p := _round_trip(list(history)))}
    assert broken == {}


@LAWS
@given(any_history())
def test_round_trip_keeps_any_history(history: list[HistoryEvent]) -> None:
    """The same law on generated histories."""
    assert _round_trip(history) == []


def test_messages_and_outputs_take_the_sdks_shapes() -> None:
    """System text is a string, signatures ride in ``providerOptions`` under the provider's key,
    consecutive tool messages share one tool message, each status its output type."""
    history: list[HistoryEvent] = [
        SystemMessage("be brief"),
        DeveloperMessage("use metric units"),
        UserMessage(parts=[TextPart(text="weather?"), ImagePart(source=UrlSource(url="https://x/a.png"),
                                                                media_type="image/png")]),
        AssistantMessage(parts=[
            ThinkingPart(text="hm", signature=Opaque(value="SIG", issuer="anthropic")),
            *(ToolCallPart(id=f"tu_{n}", name="f", arguments_json="{}") for n in range(4))]),
        ToolMessage(call_id="tu_0", tool_name="f", output_text="sunny"),
        ToolMessage(call_id="tu_1", tool_name="f", output_text='{"t":1}', data={"t": 1}),
        ToolMessage(call_id="tu_2", tool_name="f", status="error", output_text="boom"),
        ToolMessage(call_id="tu_3", tool_name="f", status="denied", output_text="not allowed"),
    ]
    written = ai_sdk_model.to_wire(history)
    system, developer, user, assistant, tool = written.value
    assert (system["role"], system["content"], developer["role"]) == ("system", "be brief", "system")
    assert user["content"][1] == {"type": "file", "mediaType": "image/png",
                                  "data": {"type": "url", "url": "https://x/a.png"},
                                  "providerOptions": user["content"][1]["providerOptions"]}
    assert assistant["content"][0]["providerOptions"]["anthropic"] == {"signature": "SIG"}
    assert [r["output"] for r in tool["content"]] == [
        {"type": "text", "value": "sunny"}, {"type": "json", "value": {"t": 1}},
        {"type": "error-text", "value": "boom"}, {"type": "execution-denied", "reason": "not allowed"}]
    assert written.losses == ()
    back = ai_sdk_model.from_wire(json.loads(json.dumps(written.value))).value
    assert [dumped(e) for e in back] == [dumped(e) for e in history]


def test_model_messages_the_sdk_wrote_read_without_ids() -> None:
    """ModelMessages from elsewhere read into messages with new ids: string content, a tool
    result per tool message, a reasoning signature from its provider's key."""
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "hm", "providerOptions": {"anthropic": {"signature": "S"}}},
            {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {"a": 1}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "f",
                                      "output": {"type": "json", "value": {"ok": True}}}]},
    ]
    system, user, assistant, tool = ai_sdk_model.from_wire(messages).value
    assert isinstance(system, SystemMessage)
    assert isinstance(user, UserMessage)
    assert isinstance(assistant, AssistantMessage)
    assert isinstance(tool, ToolMessage)
    thinking, call = assistant.parts
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature == Opaque(value="S", issuer="anthropic")
    assert isinstance(call, ToolCallPart)
    assert call.arguments_json == '{"a":1}'
    assert (tool.call_id, tool.data) == ("c1", {"ok": True})


def test_convert_takes_ai_sdk_model() -> None:
    """``convert`` writes ModelMessages and reads them back to a provider's request."""
    history = [UserMessage("hi"), AssistantMessage(parts=[TextPart(text="hello")],
                                                   model="openai:gpt-5")]
    model_messages, losses = convert(history, source="canonical", target="ai-sdk-model")
    assert [m["role"] for m in model_messages] == ["user", "assistant"]
    assert losses == ()
    request, _ = convert(model_messages, source="ai-sdk-model", target="openai-chat")
    assert [m["role"] for m in request["messages"]] == ["user", "assistant"]
