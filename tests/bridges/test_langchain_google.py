"""The LangChain bridge and langchain-google-genai's messages: its model_provider names are
partwire's google provider and issuer both ways, so Gemini's thought signatures stay Gemini's, and
Gemini's finish reasons mean what the Google adapter says they mean."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from google.genai import types
from langchain_core import messages as lc
from langchain_core.language_models.chat_models import _gen_info_and_msg_metadata
from langchain_google_genai.chat_models import _parse_chat_history, _response_to_result

from partwire import AssistantMessage, ProviderData, TextPart, ThinkingPart, ToolCallPart
from partwire.adapters import google
from partwire.adapters.google._wire import FINISH_REASONS
from partwire.bridges import langchain as bridge
from tests.harness.corpus import CORPUS
from tests.harness.validity import request_errors

MODEL = "gemini-2.5-flash"
SIGNATURE = "CpwDAXLI2nz5BJxC"


def gemini_answer(response: dict[str, Any]) -> lc.AIMessage:
    """The AIMessage ChatGoogleGenerativeAI makes of a generateContent response: its own parser,
    then the generation info folded into the metadata as LangChain's chat model base does."""
    generation = _response_to_result(types.GenerateContentResponse.model_validate(response)).generations[0]
    message = generation.message
    assert isinstance(message, lc.AIMessage)
    message.response_metadata = _gen_info_and_msg_metadata(generation)
    return message


def thinking_answer() -> lc.AIMessage:
    """An answer with a signed thought summary and text, as the Gemini API returns one with
    includeThoughts (the shape of the generateContent reference)."""
    return gemini_answer({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "The user greets me.", "thought": True, "thoughtSignature": SIGNATURE},
            {"text": "Hello!"}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 2, "thoughtsTokenCount": 12,
                          "totalTokenCount": 18},
        "modelVersion": MODEL})


def test_a_gemini_answer_imports_as_googles_and_goes_back_exactly() -> None:
    """model_provider google_genai is Google: the provider, the model id and the signature's
    issuer are Google's, finish_reason STOP is a stop, and the export dumps as the message did."""
    message = thinking_answer()
    assert message.response_metadata["model_provider"] == "google_genai"
    answer = bridge.from_messages([message])[0]
    assert isinstance(answer, AssistantMessage)
    assert (answer.provider, answer.model) == ("google", f"google:{MODEL}")
    assert (answer.stop_reason, answer.stop_reason_raw) == ("stop", "STOP")
    thinking = answer.parts[0]
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature is not None
    assert (thinking.signature.issuer, thinking.signature.value) == ("google", SIGNATURE)
    exported = bridge.to_messages([answer])
    assert exported.losses == ()
    assert exported.messages[0].model_dump() == message.model_dump()


def test_an_imported_gemini_answer_is_sent_back_to_gemini_with_its_signature() -> None:
    """The Google adapter takes the imported thought as its own: the next request echoes the
    signature on the thought part, loses nothing, and google-genai's types accept it."""
    history = bridge.from_messages([lc.HumanMessage("Hi"), thinking_answer(), lc.HumanMessage("Bye")])
    projection = google.to_wire(history, model=MODEL)
    assert projection.losses == ()
    model_turn = projection.request["contents"][1]
    assert model_turn["parts"][0] == {"text": "The user greets me.", "thought": True, "thoughtSignature": SIGNATURE}
    assert request_errors("google", projection.request) == []


@pytest.mark.parametrize("name", ["google_genai", "google_vertexai"])
def test_both_google_provider_names_are_google_and_come_back_as_they_were(name: str) -> None:
    """langchain-google-vertexai's google_vertexai is Google too (Vertex and the Gemini API share
    signatures); a message naming it comes back naming it."""
    message = lc.AIMessage(content=[{"type": "reasoning", "reasoning": "Think.", "extras": {"signature": SIGNATURE}},
                                    {"type": "text", "text": "Done."}],
                           response_metadata={"output_version": "v1", "model_provider": name, "model_name": MODEL})
    answer = bridge.from_messages([message])[0]
    assert isinstance(answer, AssistantMessage)
    assert answer.provider == "google"
    thinking = answer.parts[0]
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature is not None
    assert thinking.signature.issuer == "google"
    assert bridge.to_messages([answer]).messages[0].model_dump() == message.model_dump()


def test_a_google_answer_exports_as_langchain_google_genai_replays_it() -> None:
    """An answer the Google adapter decoded exports naming google_genai, so
    langchain-google-genai's own history conversion treats it as Gemini's and sends the thought
    back with its signature (under any other name it drops the block as foreign reasoning); only
    the signing model, which LangChain has no place for, is reported lost."""
    answer = google.from_wire(json.loads(thinking_answer_wire()))
    exported = bridge.to_messages([answer])
    # The adapter records the signing model on the signature; LangChain has no place for it.
    assert [(loss.part_type, loss.action) for loss in exported.losses] == [("opaque", "dropped")]
    message = exported.messages[0]
    assert message.response_metadata["model_provider"] == "google_genai"
    _system, contents = _parse_chat_history([lc.HumanMessage("Hi"), message, lc.HumanMessage("Bye")], model=MODEL)
    assert contents[1].parts
    thought = contents[1].parts[0]
    assert thought.thought
    assert thought.thought_signature is not None
    assert thought.text == "The user greets me."


def thinking_answer_wire() -> str:
    return json.dumps({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "The user greets me.", "thought": True, "thoughtSignature": SIGNATURE},
        {"text": "Hello!"}]}, "finishReason": "STOP", "index": 0}], "modelVersion": MODEL})


@pytest.mark.parametrize("raw", sorted(FINISH_REASONS))
def test_gemini_finish_reasons_mean_what_the_google_adapter_says(raw: str) -> None:
    """Every Gemini finishReason normalises as the Google adapter normalises it; STOP ending a
    turn of function calls is tool use."""
    message = lc.AIMessage(content="", response_metadata={"model_provider": "google_genai", "finish_reason": raw})
    answer = bridge.from_messages([message])[0]
    assert isinstance(answer, AssistantMessage)
    assert (answer.stop_reason, answer.stop_reason_raw) == (FINISH_REASONS[raw], raw)


def test_gemini_function_calls_from_the_corpus_come_in_as_googles() -> None:
    """Every recorded Gemini response with function calls, through ChatGoogleGenerativeAI's own
    parser: each call keeps Google's id under Google, and STOP with calls is tool use."""
    seen = 0
    for path in sorted((CORPUS / "google").glob("*.json")):
        response = json.loads(path.read_text())["response"]
        if not isinstance(response, dict) or "functionCall" not in json.dumps(response.get("candidates")):
            continue
        answer = bridge.from_messages([gemini_answer(response)])[0]
        assert isinstance(answer, AssistantMessage), path.name
        calls = [p for p in answer.parts if isinstance(p, ToolCallPart)]
        assert calls, path.name
        assert all(set(c.provider_ids) <= {"google"} for c in calls), path.name
        if answer.stop_reason_raw == "STOP":
            assert answer.stop_reason == "tool_use", path.name
        wire = [p for p in response["candidates"][0]["content"]["parts"] if "functionCall" in p]
        sent = [p for p in google.to_wire([answer], model=MODEL).request["contents"][0]["parts"]
                if "functionCall" in p]
        assert [p.get("thoughtSignature") for p in sent] == [p.get("thoughtSignature") for p in wire], path.name
        seen += 1
    assert seen > 0


def test_a_gemini_signature_in_either_alphabet_reaches_langchain_google_genai() -> None:
    """A call's and a text part's thought signatures (as the Google adapter keeps them) go where
    langchain-google-genai keeps them, in the standard base64 it decodes, and come back spelled
    as they were (google-genai dumps URL-safe base64 without padding)."""
    signature = "Cu8BAXLI2nzz-_w"  # URL-safe, unpadded
    call = ToolCallPart(id="tu_1", name="get_weather", arguments_json='{"city":"Paris"}',
                        provider_ids={"google": "call-1"},
                        provider_data=ProviderData(issuer="google", data={"thoughtSignature": signature}))
    text = TextPart(text="Checking.", provider_data=ProviderData(issuer="google", data={"thoughtSignature": "c2ln"}))
    answer = AssistantMessage([text, call], provider="google", model=f"google:{MODEL}")
    exported = bridge.to_messages([answer])
    assert exported.losses == ()
    message = exported.messages[0]
    assert message.additional_kwargs["__gemini_function_call_thought_signatures__"] == {"call-1": "Cu8BAXLI2nzz+/w="}
    assert message.content_blocks[0] == {"type": "text", "text": "Checking.", "extras": {"signature": "c2ln"}}
    # (message equality leaves provider data out: the dumps compare it)
    assert [m.model_dump() for m in bridge.from_messages([message])] == [answer.model_dump()]
    on_another = AssistantMessage([text], provider="openai", model="openai:gpt-5")  # still Gemini's
    exported = bridge.to_messages([on_another])
    assert exported.losses == ()
    assert [m.model_dump() for m in bridge.from_messages(exported.messages)] == [on_another.model_dump()]
    _system, contents = _parse_chat_history([lc.HumanMessage("Weather?"), message], model=MODEL)
    parts = contents[1].parts
    assert parts is not None
    assert [p.thought_signature for p in parts] == [b"sig", base64.urlsafe_b64decode(signature + "=")]
