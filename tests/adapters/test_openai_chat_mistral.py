"""Mistral as a Chat Completions dialect (``dialect="mistral"``), on Mistral's recorded traffic,
through the official ``mistralai`` SDK (3.7, replayed by vcrpy), and on its own rules.

- Every recorded Mistral response decodes with no unknown part; every recorded stream folds, as
  Mistral's chunks add up, to the message of the whole response; every recorded request imports
  and re-exports exactly, and is valid by the ``mistralai`` SDK's own request models.
- Call ids: Mistral takes exactly 9 letters and digits. Any other id goes out as a digest of the
  canonical id (``id_mapped``), the same in every request, and its results agree with it.
- Thinking chunks (``content`` as a list holding ``{"type": "thinking"}``) are thinking parts with
  Mistral's provenance, sent back to Mistral as they came and to no one else.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mistralai.client import Mistral, errors

from partwire import (
    AssistantMessage,
    HistoryEvent,
    Opaque,
    ProviderData,
    Session,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UserMessage,
)
from partwire.adapters import ProviderError, anthropic, openai_chat
from partwire.cli import main as cli_main
from partwire.convert import convert
from partwire.ids import deterministic_sources, use_sources
from partwire.pricing import message_cost
from partwire.streaming import StreamErrorEvent, aaccumulate, accumulate
from partwire.switch import check_switch
from tests.harness.compare import stored_form
from tests.harness.corpus import CORPUS
from tests.harness.golden import Golden
from tests.harness.laws import neutral_dump
from tests.harness.providers.openai_chat import DIALECT_KITS, ChatKit
from tests.harness.replay import use_cassette
from tests.harness.validity import request_errors
from tests.scenarios import Scenario

MISTRAL = openai_chat.DIALECTS["mistral"]
FILES = sorted((CORPUS / "mistral").glob("*.json"))
KIT = DIALECT_KITS["mistral"]


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _params(select: Any) -> list[Any]:
    return [pytest.param(p, id=p.stem) for p in FILES if select(_load(p))]


RESPONSES = _params(lambda d: d["response"] is not None)
STREAMS = _params(lambda d: d["sse"] or d["chunks"])
REQUESTS = _params(lambda d: d["request"] is not None)


def _chunks(data: dict[str, Any]) -> list[dict[str, Any]]:
    if data["chunks"] is not None:
        chunks: list[dict[str, Any]] = data["chunks"]
        return chunks
    return [json.loads(line[5:]) for line in data["sse"].splitlines()
            if line.startswith("data:") and not line[5:].strip().startswith("[DONE]")]


def fold(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole response a Mistral stream adds up to, by Mistral's chunk shapes: string deltas
    and text chunks join into the text, thinking chunks in a row into one thinking chunk, a
    tool-call fragment with an id starts a call; the last finish reason and usage stand."""
    content: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    finish = usage = None
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or ():
            finish = choice.get("finish_reason") or finish
            delta = choice["delta"]
            pieces: list[dict[str, Any]] = delta.get("content") or []
            if isinstance(pieces, str):
                pieces = [{"type": "text", "text": pieces}]
            for piece in pieces:
                last = content[-1] if content else None
                if piece["type"] == "text" and piece["text"]:
                    if last is not None and last["type"] == "text":
                        last["text"] += piece["text"]
                    else:
                        content.append(dict(piece))
                elif piece["type"] == "thinking":
                    text = "".join(t["text"] for t in piece["thinking"])
                    if last is not None and last["type"] == "thinking":
                        last["thinking"][0]["text"] += text
                    else:
                        content.append({"type": "thinking", "thinking": [{"type": "text", "text": text}]})
            for call in delta.get("tool_calls") or ():
                if call.get("id"):
                    calls.append({"id": call["id"], "function": dict(call["function"])})
                else:
                    calls[-1]["function"]["arguments"] += call["function"].get("arguments", "")
    first = chunks[0]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if len(content) == 1 and content[0]["type"] == "text":
        message["content"] = content[0]["text"]
    if calls:
        message["tool_calls"] = calls
    return {"id": first["id"], "object": "chat.completion", "created": first["created"],
            "model": first["model"], "usage": usage,
            "choices": [{"index": 0, "finish_reason": finish, "message": message}]}


# -- the recorded traffic -----------------------------------------------------------------------


def test_the_corpus_holds_mistral_traffic() -> None:
    """The corpus has its 20 Mistral interactions, each with its source and license."""
    assert len(FILES) == 20
    for path in FILES:
        data = _load(path)
        assert (data["provider"], data["license"]) == ("mistral", "Apache-2.0")


@pytest.mark.parametrize("path", RESPONSES)
def test_every_response_decodes_with_no_unknown_part(path: Path) -> None:
    """A recorded response is a message of Mistral's: its text, usage and stop reason read."""
    body = _load(path)["response"]
    message = openai_chat.from_wire(body, dialect="mistral")
    assert not any(isinstance(p, UnknownPart) for p in message.parts)
    assert message.text == body["choices"][0]["message"]["content"]
    assert (message.provider, message.model, message.response_id) == (
        "mistral", f"mistral:{body['model']}", body["id"])
    assert message.stop_reason == "stop"
    assert message.stop_reason_raw == "stop"
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens) == (
        body["usage"]["prompt_tokens"], body["usage"]["completion_tokens"])


@pytest.mark.parametrize("path", STREAMS)
def test_every_stream_folds_to_its_whole_response(path: Path) -> None:
    """A recorded stream, as chunks and as raw SSE bytes cut anywhere, gives the message of the
    whole response its chunks add up to, with no unknown part and no padding kept."""
    data = _load(path)
    chunks = _chunks(data)
    whole = neutral_dump(openai_chat.from_wire(fold(chunks), dialect="mistral"))
    streamed = accumulate(openai_chat.stream(chunks, dialect="mistral"))
    assert streamed.status == "complete"
    assert neutral_dump(streamed) == whole
    assert not any(isinstance(p, UnknownPart) for p in streamed.parts)
    assert '"p"' not in json.dumps(streamed.provider_data.data if streamed.provider_data else {})
    raw = data["sse"].encode()
    pieces = [raw[i:i + 29] for i in range(0, len(raw), 29)]
    assert neutral_dump(accumulate(openai_chat.stream(pieces, dialect="mistral"))) == whole
    for call in (p for p in streamed.parts if isinstance(p, ToolCallPart)):
        assert MISTRAL.admits_call_id(call.provider_ids["mistral"])


def test_the_recorded_reasoning_is_a_thinking_part_of_mistral() -> None:
    """Magistral's thinking chunks are one thinking part, with Mistral's provenance, before the text."""
    data = _load(CORPUS / "mistral" / "vercel-ai__mistral-reasoning.chunks.json")
    message = accumulate(openai_chat.stream(_chunks(data), dialect="mistral"))
    thinking, text = message.parts
    assert isinstance(thinking, ThinkingPart)
    assert isinstance(text, TextPart)
    assert thinking.text == "The user is asking for 2+2. This is basic arithmetic. 2+2=4."
    assert thinking.provider_data == ProviderData(issuer="mistral", data={"field": "content"})
    assert text.text == "2 + 2 = 4"


@pytest.mark.parametrize("path", REQUESTS)
def test_every_request_imports_and_re_exports_exactly(path: Path) -> None:
    """A recorded request comes back exactly (safe_prompt, tool_choice "any" included), and it is
    valid by the mistralai SDK's own request model, as is the re-export."""
    request = _load(path)["request"]
    imported = openai_chat.from_wire_request(request, dialect="mistral")
    projection = openai_chat.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.request == request
    assert projection.losses == ()
    assert request_errors("openai_chat:mistral", request, stream=request.get("stream", False)) == []


def test_prompt_mode_and_safe_prompt_are_kept() -> None:
    """Mistral's own body fields go out as given and come back on import."""
    params = {"prompt_mode": "reasoning", "safe_prompt": True, "random_seed": 7}
    body = openai_chat.to_wire([UserMessage("hi")], model="mistral:magistral-medium-2509",
                               dialect="mistral", params=params, max_tokens=100).request
    assert body == {"model": "magistral-medium-2509", "messages": [{"role": "user", "content": "hi"}],
                    "max_tokens": 100, **params}
    imported = openai_chat.from_wire_request(body, dialect="mistral")
    assert imported.params == params
    assert imported.max_tokens == 100
    assert request_errors("openai_chat:mistral", body) == []


# -- call ids -----------------------------------------------------------------------------------


def _call(call_id: str, **provider_ids: str) -> ToolCallPart:
    return ToolCallPart(id=call_id, name="get_weather", arguments_json='{"city":"Paris"}',
                        provider_ids=provider_ids)


def _turn(call: ToolCallPart) -> list[Any]:
    return [AssistantMessage([call]), ToolMessage(call_id=call.id, tool_name=call.name, output_text="sunny")]


def test_a_refused_call_id_goes_out_as_a_digest_that_its_result_shares() -> None:
    """Another provider's id, and a bare canonical id, become 9 letters and digits (id_mapped);
    the tool result names the same id."""
    foreign = _call("tu_01KDVDNA000000000000000001", openai="call_Qm3xV8bN2pLk7RtY5wZa1cD4")
    bare = _call("tu_01KDVDNA000000000000000002")
    history = [UserMessage("Weather?"), *_turn(foreign), *_turn(bare)]
    projection = openai_chat.to_wire(history, model="mistral-small-latest", dialect="mistral")
    messages = projection.request["messages"]
    ids = [messages[1]["tool_calls"][0]["id"], messages[3]["tool_calls"][0]["id"]]
    assert [messages[2]["tool_call_id"], messages[4]["tool_call_id"]] == ids
    assert all(MISTRAL.admits_call_id(i) for i in ids)
    assert ids[0] != ids[1]
    assert ids == [MISTRAL.short_call_id(foreign.id), MISTRAL.short_call_id(bare.id)]
    assert [(x.path, x.action) for x in projection.losses] == [
        ("history[1].parts[0]", "id_mapped"), ("history[3].parts[0]", "id_mapped")]
    assert "replaced by a 9-character digest" in projection.losses[0].reason
    assert request_errors("openai_chat:mistral", projection.request) == []


def test_the_wire_id_is_the_same_in_every_turn_and_after_an_import() -> None:
    """Appending turns never changes an earlier call's wire id, and a request read back and sent
    again keeps the ids it holds, with no loss."""
    first = _call("tu_01KDVDNA000000000000000003", anthropic="toolu_01Hq7Wn3Kd9Ps2Lm5Xc8Vb4N")
    second = _call("tu_01KDVDNA000000000000000004", google="")
    one = openai_chat.to_wire([UserMessage("a"), *_turn(first)], model="m", dialect="mistral").request
    two = openai_chat.to_wire([UserMessage("a"), *_turn(first), UserMessage("b"), *_turn(second)],
                              model="m", dialect="mistral").request
    assert two["messages"][:3] == one["messages"]
    imported = openai_chat.from_wire_request(two, dialect="mistral")
    again = openai_chat.to_wire(imported.history, **imported.to_wire_kwargs())
    assert (again.request, again.losses) == (two, ())


def test_mistral_ids_go_back_as_they_came() -> None:
    """A call Mistral made keeps its own id, with no loss; so does another provider's id that
    happens to fit Mistral's rule."""
    own = _call("tu_01KDVDNA000000000000000005", mistral="EscTeQY62")
    fits = _call("tu_01KDVDNA000000000000000006", openrouter="gSIMJiOkT")
    projection = openai_chat.to_wire([UserMessage("a"), *_turn(own), *_turn(fits)], model="m",
                                     dialect="mistral")
    messages = projection.request["messages"]
    assert [m.get("tool_call_id") or m.get("tool_calls", [{}])[0].get("id") for m in messages[1:]] == [
        "EscTeQY62", "EscTeQY62", "gSIMJiOkT", "gSIMJiOkT"]
    assert projection.losses == ()


def test_two_calls_never_share_a_wire_id() -> None:
    """Where two digests meet (certain with one-character ids, 62 of them), the later call gets
    another digest, and each result still names its own call."""
    tiny = openai_chat.Dialect(name="tiny", issuer="tiny", base_url="http://localhost",
                               developer_role="system", call_id_length=1)
    calls = [_call(f"tu_01KDVDNA0000000000000000{n:02d}") for n in range(40)]
    history = [UserMessage("a"), *(event for call in calls for event in _turn(call))]
    messages = openai_chat.to_wire(history, model="m", dialect=tiny).request["messages"]
    sent = [m["tool_calls"][0]["id"] for m in messages if m["role"] == "assistant"]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert len(set(sent)) == 40
    assert answered == sent
    assert all(tiny.admits_call_id(i) for i in sent)


# -- thinking chunks ----------------------------------------------------------------------------


def _thinking_response(**extra: Any) -> dict[str, Any]:
    chunk = {"type": "thinking", "thinking": [{"type": "text", "text": "It rains, "},
                                              {"type": "text", "text": "so yes."}], **extra}
    return {"id": "a4e29c5b82f94d67b23e108a7c9df6e1", "object": "chat.completion", "created": 1769088912,
            "model": "magistral-medium-2509", "usage": {"prompt_tokens": 10, "completion_tokens": 9,
                                                       "total_tokens": 19},
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "tool_calls": None,
                "content": [chunk, {"type": "text", "text": "Take an umbrella."}]}}]}


def test_thinking_chunks_go_back_to_mistral_as_they_came() -> None:
    """A thinking chunk, cut into text chunks, signed and with keys of its own, is sent back to
    Mistral byte for byte, with the text after it."""
    body = _thinking_response(signature="c2lnbmVk", closed=True)
    message = openai_chat.from_wire(body, dialect="mistral")
    thinking = message.parts[0]
    assert isinstance(thinking, ThinkingPart)
    assert thinking.text == "It rains, so yes."
    assert thinking.signature == Opaque(value="c2lnbmVk", issuer="mistral")
    projection = openai_chat.to_wire([UserMessage("Umbrella?"), message], model="m", dialect="mistral")
    assert projection.request["messages"][1] == {"role": "assistant", "content": body["choices"][0]["message"]["content"]}
    assert projection.losses == ()
    assert request_errors("openai_chat:mistral", projection.request) == []


@pytest.mark.parametrize("dialect", ["openai", "deepseek", "openrouter"])
def test_mistral_thinking_goes_to_no_one_else(dialect: str) -> None:
    """Another server gets the text, and a loss for the thinking it cannot verify."""
    message = openai_chat.from_wire(_thinking_response(), dialect="mistral")
    projection = openai_chat.to_wire([UserMessage("Umbrella?"), message], model="m", dialect=dialect)
    assert projection.request["messages"][1] == {"role": "assistant", "content": "Take an umbrella."}
    assert [(x.path, x.part_type, x.action) for x in projection.losses] == [
        ("history[1].parts[0]", "thinking", "dropped")]


def test_echo_reasoning_none_drops_the_thinking_with_a_loss() -> None:
    """echo_reasoning="none" keeps Mistral's thinking out of the request, and says so."""
    message = openai_chat.from_wire(_thinking_response(), dialect="mistral")
    projection = openai_chat.to_wire([UserMessage("Umbrella?"), message], model="m",
                                     dialect="mistral", echo_reasoning="none")
    assert projection.request["messages"][1]["content"] == "Take an umbrella."
    assert [x.reason for x in projection.losses] == ["mistral is sent reasoning from no turn only "
                                                     "(echo_reasoning='none')"]


def test_a_thinking_chunk_with_other_chunks_inside_is_kept_whole() -> None:
    """A thinking chunk holding references is an unknown part of Mistral's, sent back as it came."""
    chunk = {"type": "thinking", "thinking": [{"type": "reference", "reference_ids": [1]}]}
    body = _thinking_response()
    body["choices"][0]["message"]["content"][0] = chunk
    message = openai_chat.from_wire(body, dialect="mistral")
    assert message.parts[0] == UnknownPart(original_type="thinking", raw=chunk, issuer="mistral")
    again = openai_chat.to_wire([UserMessage("Umbrella?"), message], model="m", dialect="mistral")
    assert again.request["messages"][1]["content"][0] == chunk


# -- errors, switching --------------------------------------------------------------------------


def test_mistral_error_body_raises_the_provider_error() -> None:
    """Mistral's error body is the error itself (object: error); it raises with its code and message."""
    body = {"object": "error", "message": "Tool call id was abc123 but must be a-z, A-Z, 0-9, with a length of 9.",
            "type": "invalid_request_error", "param": None, "code": None}
    with pytest.raises(ProviderError) as caught:
        openai_chat.from_wire(body, dialect="mistral")
    assert (caught.value.provider, caught.value.code, caught.value.message) == (
        "mistral", "invalid_request_error", body["message"])


def test_check_switch_to_mistral_is_its_to_wire() -> None:
    """check_switch names what Mistral cannot take, exactly as to_wire reports it."""
    history = [UserMessage("a"), *_turn(_call("tu_01KDVDNA000000000000000007", openai="call_x"))]
    predicted = check_switch(history, "openai_chat:mistral", model="mistral:m")
    actual = openai_chat.to_wire(history, model="m", dialect="mistral").losses
    assert [(x.path, x.action) for x in predicted] == [(x.path, x.action) for x in actual] == [
        ("history[1].parts[0]", "id_mapped")]


# -- the official mistralai SDK, replayed -------------------------------------------------------


def sdk_defaults(body: Any) -> Any:
    """The body the mistralai SDK sends, without what its request model writes in by itself:
    ``stream: false``, ``prefix: false`` on assistant messages, ``index: 0`` on tool calls."""
    body = {k: v for k, v in body.items() if not (k == "stream" and v is False)}
    messages = []
    for message in body["messages"]:
        message = {k: v for k, v in message.items() if not (k == "prefix" and v is False)}
        if message.get("tool_calls"):
            message["tool_calls"] = [{k: v for k, v in c.items() if not (k == "index" and v == 0)}
                                     for c in message["tool_calls"]]
        messages.append(message)
    return {**body, "messages": messages}


def _client() -> Mistral:
    return Mistral(api_key="test-key", server_url="https://api.mistral.ai")


ANSWERED = [pytest.param(s, id=s.name) for s in KIT.scenarios() if s.reply is not None]
FAILING = [pytest.param(s, id=s.name) for s in KIT.scenarios() if s.stream_failure is not None]


def _decode(kit: ChatKit, response: Any) -> AssistantMessage:
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        return openai_chat.from_wire(response, dialect=kit.dialect)


@pytest.mark.parametrize("scenario", ANSWERED)
def test_mistralai_complete_gives_the_golden_message(scenario: Scenario, golden: Golden) -> None:
    """The mistralai client takes to_wire's body as its keyword arguments and sends it (its own
    defaults aside); its ChatCompletionResponse decodes to the golden message."""
    request = KIT.project(scenario).request
    with use_cassette(KIT.cassette_path(scenario), sdk_defaults=sdk_defaults) as cassette:
        response = _client().chat.complete(**request)
    assert cassette.play_count == 1
    golden.check_json(KIT.golden_path(scenario, "message"), stored_form(_decode(KIT, response)))


@pytest.mark.parametrize("scenario", ANSWERED)
def test_mistralai_stream_equals_the_whole_response(scenario: Scenario) -> None:
    """The mistralai client's stream events (CompletionEvent) accumulate to the whole response's message."""
    request = KIT.stream_request(KIT.project(scenario).request)
    with use_cassette(KIT.cassette_path(scenario), sdk_defaults=sdk_defaults):
        whole = _client().chat.complete(**KIT.project(scenario).request)
        streamed = accumulate(openai_chat.stream(_client().chat.stream(**request), dialect="mistral"))
    assert streamed.status == "complete"
    assert neutral_dump(streamed) == neutral_dump(openai_chat.from_wire(whole, dialect="mistral"))


@pytest.mark.parametrize("scenario", ANSWERED)
async def test_mistralai_async_stream_equals_the_whole_response(scenario: Scenario) -> None:
    """The same through the async client (complete_async, stream_async)."""
    request = KIT.project(scenario).request
    with use_cassette(KIT.cassette_path(scenario), sdk_defaults=sdk_defaults):
        whole = await _client().chat.complete_async(**request)
        events = await _client().chat.stream_async(**KIT.stream_request(request))
        streamed = await aaccumulate(openai_chat.astream(events, dialect="mistral"))
    assert neutral_dump(streamed) == neutral_dump(openai_chat.from_wire(whole, dialect="mistral"))


@pytest.mark.parametrize("scenario", FAILING)
def test_mistralai_failures(scenario: Scenario) -> None:
    """A refused call raises the SDK's error with Mistral's status; a stream that fails midway
    gives one retryable error event (the SDK cannot read the error frame: partwire reads the
    body it raises with) and the partial message."""
    request = KIT.project(scenario).request
    assert scenario.stream_failure is not None
    with use_cassette(KIT.cassette_path(scenario), sdk_defaults=sdk_defaults):
        with pytest.raises(errors.SDKError) as caught:
            _client().chat.complete(**request)
        assert caught.value.status_code == 503
        events = list(openai_chat.stream(_client().chat.stream(**KIT.stream_request(request)),
                                         dialect="mistral"))
    failures = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert [(e.error.code, e.error.retryable) for e in failures] == [("1300", True)]
    partial = accumulate(events)
    assert partial.status == "error"
    assert partial.text == scenario.stream_failure.partial_text


# -- Session, convert, the CLI, accounting ------------------------------------------------------


def test_a_session_on_mistral_speaks_the_dialect() -> None:
    """``mistral:<model>`` is the Chat adapter under the mistral dialect: its model id, its call
    ids, and the thinking of Mistral's answers sent back."""
    session = Session("mistral:magistral-medium-2509", params={"prompt_mode": "reasoning"})
    assert session.target.model_id == "mistral:magistral-medium-2509"
    session.append(UserMessage("Umbrella?"))
    session.receive(_thinking_response())
    session.append(*_turn(_call("tu_01KDVDNA000000000000000008", openai="call_Qm3xV8bN")))
    request = session.request().request
    assert request["model"] == "magistral-medium-2509"
    assert request["prompt_mode"] == "reasoning"
    assert request["messages"][1]["content"][0]["type"] == "thinking"
    assert MISTRAL.admits_call_id(request["messages"][2]["tool_calls"][0]["id"])
    assert request_errors("openai_chat:mistral", request) == []


def test_convert_moves_requests_to_and_from_mistral() -> None:
    """convert(..., options={"dialect": "mistral"}) reads a Mistral request for another API, and
    writes another API's tool calls as a request the mistralai SDK's models accept."""
    recorded = _load(next(p for p in FILES if _load(p)["request"]))["request"]
    body, _ = convert(recorded, source="openai_chat", target="anthropic",
                      model="anthropic:claude-sonnet-4-6", options={"dialect": "mistral"})
    assert body["messages"][0]["role"] == "user"
    call = _call("tu_01KDVDNA000000000000000009", anthropic="toolu_01Hq7Wn3Kd9Ps2Lm5Xc8Vb4N")
    history = [UserMessage("a"), *_turn(call)]
    anthropic_body = anthropic.to_wire(history, model="claude-sonnet-4-6", max_tokens=100).request
    out, losses = convert(anthropic_body, source="anthropic", target="openai_chat",
                          model="mistral:mistral-small-latest", options={"dialect": "mistral"})
    assert out["model"] == "mistral-small-latest"
    assert MISTRAL.admits_call_id(out["messages"][1]["tool_calls"][0]["id"])
    assert out["messages"][2]["tool_call_id"] == out["messages"][1]["tool_calls"][0]["id"]
    assert "id_mapped" in {loss.action for loss in losses}
    assert request_errors("openai_chat:mistral", out) == []


def test_the_cli_converts_with_the_dialect_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``partwire convert --option dialect=mistral`` reads a recorded Mistral request."""
    path = next(p for p in FILES if _load(p)["request"] and _load(p)["request"].get("tools"))
    source = tmp_path / "mistral.json"
    source.write_text(json.dumps(_load(path)["request"]))
    assert cli_main(["convert", "--from", "openai-chat", "--to", "openai-chat", "--option",
                     "dialect=mistral", str(source)]) == 0
    assert json.loads(capsys.readouterr().out) == _load(path)["request"]


@pytest.mark.parametrize("path", RESPONSES)
def test_every_recorded_answer_has_a_price(path: Path) -> None:
    """Mistral's models are in the price data: each recorded answer costs its usage at those prices."""
    message = openai_chat.from_wire(_load(path)["response"], dialect="mistral")
    cost = message_cost(message)
    assert cost.reason is None
    assert cost.usd is not None
    assert cost.usd > 0


def test_a_digest_never_takes_an_id_an_earlier_call_has() -> None:
    """A digest equal to the id an earlier call of the request was sent with (forced here with
    one-character ids) is replaced by another: the two calls keep ids of their own."""
    tiny = openai_chat.Dialect(name="tiny", issuer="tiny", base_url="http://localhost",
                               developer_role="system", call_id_length=1)
    later = _call("tu_01KDVDNA000000000000000011", openai="call_a")
    earlier = _call("tu_01KDVDNA000000000000000010", tiny=tiny.short_call_id(later.id))
    messages = openai_chat.to_wire([UserMessage("a"), *_turn(earlier), *_turn(later)], model="m",
                                   dialect=tiny).request["messages"]
    sent = [messages[1]["tool_calls"][0]["id"], messages[3]["tool_calls"][0]["id"]]
    assert sent[0] == tiny.short_call_id(later.id)
    assert sent[1] != sent[0]
    assert tiny.admits_call_id(sent[1])
    assert [messages[2]["tool_call_id"], messages[4]["tool_call_id"]] == sent


def test_a_session_folds_a_mistral_stream_and_sends_it_back() -> None:
    """Session.stream reads Mistral's recorded reasoning stream; the next request carries its
    thinking chunk back, in its place before the text."""
    data = _load(CORPUS / "mistral" / "vercel-ai__mistral-reasoning.chunks.json")
    session = Session("mistral:magistral-medium-2507")
    session.append(UserMessage("What is 2+2?"))
    for _ in session.stream(data["sse"].encode()):
        pass
    session.append(UserMessage("And 3+3?"))
    sent = session.request().request["messages"][1]
    assert sent == {"role": "assistant", "content": [
        {"type": "thinking", "thinking": [{"type": "text", "text": "The user is asking for 2+2. "
                                           "This is basic arithmetic. 2+2=4."}]},
        {"type": "text", "text": "2 + 2 = 4"}]}


def test_the_token_estimate_counts_the_thinking_sent_back() -> None:
    """estimate_input_tokens counts the body to_wire sends Mistral, thinking chunks included."""
    message = openai_chat.from_wire(_thinking_response(), dialect="mistral")
    history: list[HistoryEvent] = [UserMessage("Umbrella?"), message]
    assert openai_chat.estimate_input_tokens(history, dialect="mistral") > \
        openai_chat.estimate_input_tokens(history, dialect="mistral", echo_reasoning="none")
