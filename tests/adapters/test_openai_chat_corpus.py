"""The laws on every recorded Chat Completions payload of ``tests/corpus/openai-chat``.

- Import: every recorded request comes back exactly from ``to_wire(from_wire_request(r))``.
- Every response body decodes; every error body raises the provider error it stands for.
- Stream parity: every recorded stream (raw SSE, or stored chunks) accumulates, through
  ``stream``, to the message ``from_wire`` gives for the ``openai`` SDK's own accumulation of the
  same chunks (``ChatCompletionStreamState``); raw bytes cut anywhere give the same message.
  Azure OpenAI's moderated streams, which the SDK folds to an empty id and model, are held to
  their whole responses instead: the same request to the same deployment, not streamed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from partwire import AssistantMessage, ProviderData, TextPart, ToolCallPart
from partwire._base import replace
from partwire.adapters import ProviderError, openai_chat
from partwire.adapters.openai_chat._request import _RequestReader
from partwire.streaming import MessageCompleteEvent, accumulate
from tests.harness.depth import examples
from tests.harness.neutral import neutral_dumps
from tests.harness.replay import json_difference
from tests.harness.validity import request_errors
from tests.strategies import histories

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "openai-chat"
FILES = sorted(CORPUS.glob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _params(select: str) -> list[Any]:
    return [pytest.param(p, id=p.stem) for p in FILES if _load(p)[select] is not None]


REQUESTS = _params("request")
# The API's own answer was 400 to these: not requests the API can express (DESIGN law 3).
ACCEPTED = [p for p in REQUESTS if _load(p.values[0])["status"] != 400]
REFUSED = [p for p in REQUESTS if _load(p.values[0])["status"] == 400]
RESPONSES = _params("response")
STREAMS = [pytest.param(p, id=p.stem) for p in FILES if _load(p)["sse"] or _load(p)["chunks"]]


def comparable(message: AssistantMessage) -> AssistantMessage:
    """The message with what is fresh per decoding made neutral: message id and time, call ids."""
    parts = tuple(replace(p, id=f"call-{i}") if isinstance(p, ToolCallPart) else p
                  for i, p in enumerate(message.parts))
    return replace(message, id="m", created_at="2026-01-01T00:00:00Z", parts=parts)


def _chunks(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The parsed chunks of a recorded stream (data lines of the SSE text, [DONE] left out)."""
    if data["chunks"] is not None:
        chunks: list[dict[str, Any]] = data["chunks"]
        return chunks
    out = []
    for line in data["sse"].splitlines():
        if line.startswith("data:") and not line[5:].strip().startswith("[DONE]"):
            out.append(json.loads(line[5:]))
    return out


def test_corpus_is_all_there() -> None:
    """The corpus holds every recorded Chat Completions interaction (242), each with its source."""
    assert len(FILES) == 242
    for path in FILES:
        data = _load(path)
        assert data["provider"] == "openai-chat"
        assert data["source"]
        assert data["license"] in ("MIT", "Apache-2.0")


@pytest.mark.parametrize("path", ACCEPTED)
def test_import_law(path: Path) -> None:
    """to_wire(from_wire_request(r)) gives the recorded request back exactly."""
    request = _load(path)["request"]
    imported = openai_chat.from_wire_request(request)
    again = openai_chat.to_wire(imported.history, **imported.to_wire_kwargs()).request
    assert json_difference(request, again) is None, json_difference(request, again)
    assert again == request


def test_a_setting_the_api_refused_is_reported_on_re_export() -> None:
    """gpt-5-mini answered 400 "'stop' is not supported with this model" to a recorded body:
    re-exported, it goes without ``stop``, and the loss names the setting."""
    [param] = [p for p in REFUSED if "gpt_5_mini" in p.values[0].name]
    record = _load(param.values[0])
    assert record["response"]["error"]["param"] == "stop"
    imported = openai_chat.from_wire_request(record["request"])
    projection = openai_chat.to_wire(imported.history, **imported.to_wire_kwargs())
    assert "stop" not in projection.request
    assert projection.request == {k: v for k, v in record["request"].items() if k != "stop"}
    assert [(x.path, x.action) for x in projection.losses] == [
        ("request.settings.stop_sequences", "dropped")]


@pytest.mark.parametrize("path", REQUESTS)
def test_the_fast_reads_give_what_the_full_read_gives(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's shortcuts for common tool results and assistant messages change nothing."""
    request = _load(path)["request"]
    fast = openai_chat.from_wire_request(request).history
    monkeypatch.setattr(_RequestReader, "_tool_fast", lambda *args: None)
    monkeypatch.setattr(_RequestReader, "_assistant_fast", lambda *args: None)
    assert neutral_dumps(openai_chat.from_wire_request(request).history) == neutral_dumps(fast)


@pytest.mark.parametrize("path", ACCEPTED)
def test_reimported_request_projects_without_loss(path: Path) -> None:
    """Sending an imported request back to OpenAI loses nothing, and is as valid as the original."""
    request = _load(path)["request"]
    imported = openai_chat.from_wire_request(request)
    projection = openai_chat.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.losses == ()
    stream = bool(request.get("stream"))
    assert sorted(request_errors("openai_chat", projection.request, stream=stream)) == sorted(
        request_errors("openai_chat", request, stream=stream))


@pytest.mark.parametrize("path", RESPONSES)
def test_response_decodes(path: Path) -> None:
    """Every recorded response decodes; an error body raises ProviderError with its code and status."""
    data = _load(path)
    body = data["response"]
    if "error" in body:
        with pytest.raises(ProviderError) as caught:
            openai_chat.from_wire(body)
        error = body["error"]
        assert caught.value.code == (error.get("code") or error.get("type"))
        assert caught.value.message == error["message"]
        return
    message = openai_chat.from_wire(body)
    choice = body["choices"][0]
    assert message.response_id == body["id"]
    assert message.model == f"openai:{body['model']}"
    assert message.stop_reason_raw == choice["finish_reason"]
    assert message.stop_reason is not None
    assert message.text == (choice["message"].get("content") or "")
    calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
    wire_calls = choice["message"].get("tool_calls") or []
    assert [(c.name, c.arguments_json, c.provider_ids) for c in calls] == [
        (w["function"]["name"], w["function"]["arguments"], {"openai": w["id"]}) for w in wire_calls]
    assert message.usage is not None
    assert message.usage.input_tokens == body["usage"]["prompt_tokens"]
    assert message.usage.output_tokens == body["usage"]["completion_tokens"]
    details = body["usage"].get("prompt_tokens_details") or {}
    assert message.usage.cache_read_tokens == (details.get("cached_tokens") or 0)


def _moderated(chunks: list[dict[str, Any]]) -> bool:
    """Whether a stream opens with Azure OpenAI's prompt filter results alone (no choices, no id)."""
    return bool(chunks) and not chunks[0].get("choices") and not chunks[0].get("id") \
        and "prompt_filter_results" in chunks[0]


MODERATED = [p for p in STREAMS if _moderated(_chunks(_load(cast(Path, p.values[0]))))]


@pytest.mark.parametrize("path", STREAMS)
def test_stream_parity_with_the_sdk(path: Path) -> None:
    """A recorded stream accumulates to the message the SDK's own accumulator gives for it."""
    data = _load(path)
    chunks = _chunks(data)
    if _moderated(chunks):
        # The SDK keeps the first chunk's empty id and model and the finish chunk's empty filter
        # results: these are checked against their whole responses (the test below).
        return
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(ChatCompletionChunk.construct(**chunk))
    theirs = openai_chat.from_wire(state.current_completion_snapshot)
    ours = accumulate(openai_chat.stream(chunks))
    assert ours.status == "complete"
    assert comparable(ours) == comparable(theirs)
    if data["sse"]:
        # The raw body, as bytes cut into arbitrary pieces, gives the same message.
        raw = data["sse"].encode()
        pieces = [raw[i:i + 37] for i in range(0, len(raw), 37)]
        assert comparable(accumulate(openai_chat.stream(pieces))) == comparable(ours)


def _generation_neutral(message: AssistantMessage) -> AssistantMessage:
    """What one generation makes its own blanked: the text, the response id and its time."""
    assert message.response_id is not None
    assert message.response_id.startswith("chatcmpl-"), message.response_id
    data: dict[str, Any] = dict(cast(dict[str, Any], message.provider_data.data)) \
        if message.provider_data else {}
    response: dict[str, Any] = dict(data.get("response") or {})
    assert response.get("created", 0) > 0, response
    response["created"] = 0
    parts = tuple(replace(p, text="...") if isinstance(p, TextPart) else p for p in message.parts)
    return replace(comparable(message), parts=parts, response_id="chatcmpl-", usage=None,
                   provider_data=ProviderData(issuer=message.provider_data.issuer,
                                              data={**data, "response": response})
                   if message.provider_data else None)


def _whole_for(stream: dict[str, Any], model: str) -> dict[str, Any]:
    """The recorded whole response to the same request (without ``stream``) from the same model."""
    request = {k: v for k, v in stream["request"].items() if k != "stream"}
    for path in FILES:
        data = _load(path)
        body = data["response"]
        if data["request"] == request and isinstance(body, dict) and body.get("model") == model \
                and data["source"].split(":")[0] == stream["source"].split(":")[0]:
            return body
    raise AssertionError(f"no whole response recorded for {stream['entry']}")


def test_moderated_streams_are_in_the_corpus() -> None:
    """The corpus holds Azure OpenAI's moderated streams, each beside a whole response to its request."""
    assert len(MODERATED) >= 8


@pytest.mark.parametrize("path", MODERATED)
def test_moderated_stream_folds_to_its_whole_response(path: Path) -> None:
    """An Azure OpenAI stream, opened by its prompt filter results and with filter results on
    every chunk, folds to the message its whole response decodes to: the response id and model
    of the chunks after the filter chunk, the response's time and fingerprint, the prompt's
    filter results and the completion's, all categories (only the generated text, the id and
    the time differ between two generations)."""
    data = _load(path)
    chunks = _chunks(data)
    model = next(c["model"] for c in chunks if c.get("model"))
    ours = accumulate(openai_chat.stream(chunks))
    whole = openai_chat.from_wire(_whole_for(data, model))
    assert ours.status == "complete"
    assert _generation_neutral(ours) == _generation_neutral(whole)


@pytest.mark.parametrize("path", STREAMS)
def test_stream_ends_with_one_completion(path: Path) -> None:
    """Every recorded stream yields exactly one MessageCompleteEvent, last."""
    events = list(openai_chat.stream(_chunks(_load(path))))
    completions = [e for e in events if isinstance(e, MessageCompleteEvent)]
    assert len(completions) == 1
    assert events[-1] is completions[0]


def _without_fast_assistant(monkeypatch: pytest.MonkeyPatch) -> None:
    from partwire.adapters.openai_chat import _encode

    monkeypatch.setattr(_encode.Encoder, "_assistant_fast", lambda *args: _encode._NOT_FAST)


def _projected(history: Any, **kwargs: Any) -> tuple[str, list[Any]]:
    projection = openai_chat.to_wire(history, **kwargs)
    return json.dumps(projection.request), [(loss.path, loss.action, loss.reason)
                                            for loss in projection.losses]


@pytest.mark.parametrize("path", REQUESTS)
def test_the_fast_encoding_gives_what_the_full_encoding_gives(path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The encoder's shortcut for common assistant messages (imported marks included) sends
    the very body, and reports the very losses, the full encoding does."""
    imported = openai_chat.from_wire_request(_load(path)["request"])
    kwargs = {**imported.to_wire_kwargs(), "model": imported.model or "m"}
    fast = _projected(imported.history, **kwargs)
    _without_fast_assistant(monkeypatch)
    assert _projected(imported.history, **kwargs) == fast


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories())
def test_the_fast_encoding_gives_what_the_full_encoding_gives_on_any_history(
        history: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The same on generated histories, foreign echo state and reasoning included."""
    fast = _projected(history, model="m")
    with monkeypatch.context() as patch:
        _without_fast_assistant(patch)
        assert _projected(history, model="m") == fast
