"""The Responses adapter against every recorded Responses payload of the corpus.

The payloads are real traffic recorded by permissively licensed projects (provenance and
licences: ``tests/corpus/openai-responses/README.md``). The tests read the copy committed under
``tests/corpus/openai-responses``, or ``$PARTWIRE_CORPUS/openai-responses`` when that variable
points at another copy (``../shared/corpus`` in the development checkout). A missing folder fails.

- every response parses with no ``unknown`` part; every error body raises ``ProviderError``;
- every stream (raw SSE, SSE cut into small pieces, parsed events) accumulates to the message
  ``from_wire`` gives for the ``openai`` SDK's own accumulation of it (``ResponseStreamState``);
- every request imports and re-exports equal, loses nothing doing so, and is exactly as valid
  against the SDK's ``ResponseCreateParams`` as the recorded one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from openai import omit
from openai._models import construct_type_unchecked
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent

from partwire import AssistantMessage, ToolCallPart, UnknownPart
from partwire._base import replace
from partwire.adapters import ProviderError, openai_responses
from partwire.streaming import (
    MessageCompleteEvent,
    MessageStartEvent,
    StreamErrorEvent,
    accumulate,
)
from tests.harness.replay import json_difference
from tests.harness.validity import request_errors

_ROOT = os.environ.get("PARTWIRE_CORPUS")
CORPUS = (Path(_ROOT) if _ROOT else Path(__file__).parent.parent / "corpus") / "openai-responses"
FILES = sorted(CORPUS.glob("*.json"))
# The corpus README counts 262 Responses files, plus the 7 added for issue 23; a copy with fewer
# is not the corpus.
EXPECTED_FILES = 269
# SDK-only keys its parsed types add to a completed response; never on the wire.
_SDK_ONLY = frozenset({"parsed", "output_parsed", "parsed_arguments"})


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _files(keep: Any) -> list[Any]:
    """The corpus files ``keep`` selects; a sentinel that fails when the corpus is missing."""
    chosen = [pytest.param(p, id=p.stem) for p in FILES if keep(_load(p))]
    return chosen or [pytest.param(CORPUS / "MISSING-CORPUS.json", id="missing-corpus")]


def _is_error(record: dict[str, Any]) -> bool:
    response = record["response"]
    return isinstance(response, dict) and "output" not in response and "error" in response


REQUESTS = _files(lambda r: isinstance(r["request"], dict))
RESPONSES = _files(lambda r: isinstance(r["response"], dict) and not _is_error(r))
ERRORS = _files(_is_error)
STREAMS = _files(lambda r: bool(r["sse"] or r["chunks"]))


def comparable(message: AssistantMessage) -> dict[str, Any]:
    """The full dump with what is fresh per decoding made neutral: message id and time, call ids."""
    parts = tuple(replace(p, id=f"call-{i}") if isinstance(p, ToolCallPart) else p
                  for i, p in enumerate(message.parts))
    dumped: dict[str, Any] = replace(message, id="m", created_at="2026-01-01T00:00:00Z",
                                     parts=parts).model_dump(mode="json")
    return dumped


def wire_events(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The parsed events of a recorded stream (stored chunks, or the data lines of its SSE)."""
    if record["chunks"] is not None:
        chunks: list[dict[str, Any]] = record["chunks"]
        return chunks
    return [json.loads(line[5:]) for line in record["sse"].splitlines()
            if line.startswith("data:") and not line[5:].strip().startswith("[DONE]")]


def _without_sdk_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_sdk_keys(v) for k, v in value.items() if k not in _SDK_ONLY}
    if isinstance(value, list):
        return [_without_sdk_keys(v) for v in value]
    return value


def sdk_final_response(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The response the SDK's own stream state ends with (its output rebuilt when it had none)."""
    terminal = next(e for e in reversed(events) if e.get("type") in (
        "response.completed", "response.incomplete", "response.failed"))
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    done: dict[int, Any] = {}
    try:
        for event in events:
            state.handle_event(construct_type_unchecked(type_=ResponseStreamEvent, value=event))  # type: ignore[arg-type]
            if event.get("type") == "response.output_item.done":
                done[event["output_index"]] = event["item"]
    except RuntimeError:
        # The SDK refuses a stream whose item ids change between added and done (one recorded
        # tool-search stream); the terminal event's own response is the final word there.
        return dict(terminal["response"])
    if terminal["type"] == "response.completed" and state._completed_response is not None:
        final: dict[str, Any] = _without_sdk_keys(state._completed_response.to_dict())
        return final
    response = dict(terminal["response"])
    if response.get("output") is None:
        response["output"] = [done[i] for i in sorted(done)]
    return response


def test_corpus_is_all_there() -> None:
    """The corpus holds every recorded Responses interaction (262), each with its source."""
    assert CORPUS.is_dir(), f"corpus folder {CORPUS} is missing (set PARTWIRE_CORPUS or restore tests/corpus)"
    assert len(FILES) == EXPECTED_FILES
    for path in FILES:
        data = _load(path)
        assert data["provider"] == "openai-responses"
        assert data["license"] in ("MIT", "Apache-2.0")


@pytest.mark.parametrize("path", RESPONSES)
def test_response_parses_without_unknown_parts(path: Path) -> None:
    """Every recorded response decodes, item for item, with no unknown part, its usage normalised."""
    body = _load(path)["response"]
    message = openai_responses.from_wire(body)
    assert not [p for p in message.parts if isinstance(p, UnknownPart)]
    assert message.response_id == body["id"]
    assert message.model == f"openai:{body['model']}"
    assert message.stop_reason is not None
    assert message.text == "".join(c.get("text", "") for item in body["output"]
                                   if item["type"] == "message" for c in item["content"])
    calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
    assert [(c.name, c.arguments_json, c.provider_ids) for c in calls] == [
        (i["name"], i["arguments"], {"openai": i["call_id"]}) for i in body["output"]
        if i["type"] == "function_call"]
    usage = body.get("usage")
    if usage:
        assert message.usage is not None
        assert message.usage.input_tokens == usage["input_tokens"]
        assert message.usage.output_tokens == usage["output_tokens"]
        assert message.usage.reasoning_tokens == usage["output_tokens_details"]["reasoning_tokens"]
        assert message.usage.cache_read_tokens == usage["input_tokens_details"]["cached_tokens"]


@pytest.mark.parametrize("path", ERRORS)
def test_error_body_raises_provider_error(path: Path) -> None:
    """An error body raises ProviderError with its code (or type) and message."""
    error = _load(path)["response"]["error"]
    with pytest.raises(ProviderError) as caught:
        openai_responses.from_wire(_load(path)["response"])
    assert caught.value.code == (error["code"] or error["type"])
    assert caught.value.message == error["message"]


@pytest.mark.parametrize("path", STREAMS)
def test_stream_parity_with_the_sdk(path: Path) -> None:
    """A recorded stream accumulates to the message from_wire gives for the SDK's own final response."""
    record = _load(path)
    events = wire_events(record)
    ours = accumulate(openai_responses.stream(events))
    theirs = openai_responses.from_wire(sdk_final_response(events))
    assert comparable(ours) == comparable(theirs)
    if record["sse"]:
        raw = record["sse"].encode()
        pieces = [raw[i:i + 37] for i in range(0, len(raw), 37)]
        assert comparable(accumulate(openai_responses.stream(pieces))) == comparable(ours)


@pytest.mark.parametrize("path", STREAMS)
def test_stream_ends_with_one_completion(path: Path) -> None:
    """Every recorded stream yields exactly one MessageCompleteEvent, last, and one identity."""
    events = list(openai_responses.stream(wire_events(_load(path))))
    completions = [e for e in events if isinstance(e, MessageCompleteEvent)]
    assert len(completions) == 1
    assert events[-1] is completions[0]
    starts = [e for e in events if isinstance(e, MessageStartEvent)]
    assert len(starts) == 1
    assert completions[0].message.id == starts[0].message_id
    if any(e.get("type") in ("error", "response.failed") for e in wire_events(_load(path))):
        assert [e for e in events if isinstance(e, StreamErrorEvent)]
        assert completions[0].message.status == "error"


@pytest.mark.parametrize("path", REQUESTS)
def test_import_law(path: Path) -> None:
    """to_wire(from_wire_request(r)) gives the recorded request back exactly."""
    request = _load(path)["request"]
    imported = openai_responses.from_wire_request(request)
    again = openai_responses.to_wire(imported.history, **imported.to_wire_kwargs()).request
    assert json_difference(request, again) is None, json_difference(request, again)
    assert again == request


@pytest.mark.parametrize("path", REQUESTS)
def test_reimported_request_loses_nothing_and_is_as_valid(path: Path) -> None:
    """Re-exporting an imported request loses nothing and is exactly as valid as the recorded one."""
    request = _load(path)["request"]
    imported = openai_responses.from_wire_request(request)
    projection = openai_responses.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.losses == ()
    stream = bool(request.get("stream"))
    assert sorted(request_errors("openai_responses", projection.request, stream=stream)) == sorted(
        request_errors("openai_responses", request, stream=stream))
