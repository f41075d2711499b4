"""Every scenario replayed through the official ``google-genai`` client, via vcrpy.

The client is pinned to API version ``v1beta``; it rebuilds the body from typed objects (mixed key
styles, URL-safe base64), so the cassette matches it semantically against to_wire's request (any
drift fails as an unmatched request). What the SDK hands back goes through ``from_wire`` (whole
responses) or ``stream`` + the shared accumulator (streams), sync and async (``client.aio``), and
must give the golden message; a stream must give the same message as the whole response (the
stream-parity law). Interrupted and failing streams keep what arrived.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.genai import errors, types

from partwire import AssistantMessage, TextPart
from partwire.adapters import ProviderError, google
from partwire.ids import deterministic_sources, use_sources
from partwire.streaming import StreamErrorEvent, StreamEvent, aaccumulate
from tests.harness.compare import stored_form
from tests.harness.golden import Golden
from tests.harness.providers.google import KIT, MODEL, sdk_args, use_google_cassette
from tests.harness.streams import aabort_after, abort_after, assert_one_completion_last, fold
from tests.scenarios import Scenario

SCENARIOS = KIT.scenarios()
ANSWERED = [pytest.param(s, id=s.name) for s in SCENARIOS if s.reply is not None]
INTERRUPTED = [pytest.param(s, id=s.name) for s in SCENARIOS if s.abort_after_text is not None]
FAILING = [pytest.param(s, id=s.name) for s in SCENARIOS if s.stream_failure is not None]


def dumped(message: AssistantMessage) -> Any:
    """The stored form with the identity made locally (message id and time, call ids) neutral."""
    form = stored_form(message)
    form["id"], form["created_at"] = "m", "t"
    for n, part in enumerate(form["parts"]):
        if part["type"] == "tool_call":
            part["id"] = f"tu_{n}"
    return form


def non_streamed(scenario: Scenario) -> AssistantMessage:
    """The scenario's hand-written response, decoded: what every path must agree with."""
    message: AssistantMessage = KIT.non_streamed(scenario)
    return message


def call_args(scenario: Scenario) -> dict[str, Any]:
    """The keyword arguments a caller passes to ``models.generate_content`` for the scenario."""
    return {"model": MODEL, **sdk_args(KIT.project(scenario).request)}


# -- whole responses --------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ANSWERED)
def test_sync_generate_content_gives_golden_message(scenario: Scenario, golden: Golden) -> None:
    """The sync client sends to_wire's request, and from_wire of its response is the golden message."""
    client = KIT.sync_client()
    with use_google_cassette(KIT.cassette_path(scenario)) as cassette:
        response = client.models.generate_content(**call_args(scenario))
    assert isinstance(response, types.GenerateContentResponse)
    assert cassette.play_count == 1
    golden.check_json(KIT.golden_path(scenario, "message"), stored_form(KIT.decode(response)))


@pytest.mark.parametrize("scenario", ANSWERED)
async def test_async_generate_content_gives_golden_message(scenario: Scenario, golden: Golden) -> None:
    """client.aio sends the same request, and its response decodes to the same golden message."""
    client = KIT.sync_client()
    with use_google_cassette(KIT.cassette_path(scenario)) as cassette:
        response = await client.aio.models.generate_content(**call_args(scenario))
    assert cassette.play_count == 1
    golden.check_json(KIT.golden_path(scenario, "message"), stored_form(KIT.decode(response)))


@pytest.mark.parametrize("scenario", FAILING)
def test_failed_call_raises_the_sdk_error(scenario: Scenario) -> None:
    """A call the server refuses as overloaded raises the SDK's ServerError once (no retry)."""
    client = KIT.sync_client()
    with use_google_cassette(KIT.cassette_path(scenario)) as cassette, \
            pytest.raises(errors.ServerError) as caught:
        client.models.generate_content(**call_args(scenario))
    assert caught.value.code == 503
    assert caught.value.status == "UNAVAILABLE"
    assert cassette.play_count == 1


@pytest.mark.parametrize("scenario", FAILING)
def test_failed_body_raises_provider_error(scenario: Scenario) -> None:
    """The same error body given to from_wire raises partwire's ProviderError with Google's status."""
    with pytest.raises(ProviderError) as caught:
        google.from_wire(KIT.response_json(scenario))
    assert (caught.value.code, caught.value.status) == ("UNAVAILABLE", 503)


# -- whole streams ----------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ANSWERED)
def test_sync_stream_equals_whole_response(scenario: Scenario) -> None:
    """SDK chunks through google.stream and the accumulator give the non-streamed message."""
    client = KIT.sync_client()
    with use_google_cassette(KIT.cassette_path(scenario)):
        chunks = client.models.generate_content_stream(**call_args(scenario))
        message, events = fold(google.stream(chunks))
    assert_one_completion_last(events)
    assert message.status == "complete"
    assert dumped(message) == dumped(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED)
async def test_async_stream_equals_whole_response(scenario: Scenario) -> None:
    """client.aio chunks through google.astream give the non-streamed message."""
    client = KIT.sync_client()
    with use_google_cassette(KIT.cassette_path(scenario)):
        chunks = await client.aio.models.generate_content_stream(**call_args(scenario))
        message = await aaccumulate(google.astream(chunks))
    assert message.status == "complete"
    assert dumped(message) == dumped(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED)
def test_raw_sse_bytes_equal_whole_response(scenario: Scenario) -> None:
    """The cassette's raw SSE bytes, cut in 11-byte pieces, give the non-streamed message."""
    raw = KIT.response_text(scenario, stream=True).encode("utf-8")
    message, events = fold(google.stream(raw[i:i + 11] for i in range(0, len(raw), 11)))
    assert_one_completion_last(events)
    assert dumped(message) == dumped(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED)
def test_json_array_body_equals_whole_response(scenario: Scenario) -> None:
    """The same chunks as streamGenerateContent's JSON array (no alt=sse), raw or parsed, give the same message."""
    text = KIT.response_text(scenario, stream=True)
    chunks = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]
    body = json.dumps(chunks, indent=2).encode()
    message, _ = fold(google.stream(body[i:i + 13] for i in range(0, len(body), 13)))
    assert dumped(message) == dumped(non_streamed(scenario))
    assert dumped(google.from_wire(chunks)) == dumped(non_streamed(scenario))


# -- interrupted and failing streams -----------------------------------------------------------


@pytest.mark.parametrize("scenario", INTERRUPTED)
def test_interrupted_stream_gives_aborted_partial(scenario: Scenario, golden: Golden) -> None:
    """A user who stops reading mid-stream gets the text so far, status and stop_reason 'aborted'."""
    assert scenario.abort_after_text is not None
    client = KIT.sync_client()
    with use_google_cassette(KIT.cassette_path(scenario)):
        chunks = client.models.generate_content_stream(**call_args(scenario))
        ids, clock = deterministic_sources()
        with use_sources(ids=ids, clock=clock):
            partial = abort_after(google.stream(chunks), scenario.abort_after_text)
    assert (partial.status, partial.stop_reason) == ("aborted", "aborted")
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)
    assert partial.response_id == KIT.response_json(scenario)["responseId"]
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(partial))


@pytest.mark.parametrize("scenario", INTERRUPTED)
async def test_async_interrupted_stream_gives_aborted_partial(scenario: Scenario) -> None:
    """The same interruption over client.aio gives the same partial message."""
    assert scenario.abort_after_text is not None
    client = KIT.sync_client()
    with use_google_cassette(KIT.cassette_path(scenario)):
        chunks = await client.aio.models.generate_content_stream(**call_args(scenario))
        partial = await aabort_after(google.astream(chunks), scenario.abort_after_text)
    assert (partial.status, partial.stop_reason) == ("aborted", "aborted")
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)


def assert_failed_stream(scenario: Scenario, message: AssistantMessage,
                         events: list[StreamEvent]) -> None:
    """One error event, typed by the error body, and the partial message with status error."""
    assert scenario.stream_failure is not None
    errors_ = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert len(errors_) == 1
    assert errors_[0].error.code == "UNAVAILABLE"
    assert errors_[0].error.status == 503
    assert errors_[0].error.provider == "google"
    assert errors_[0].error.retryable is scenario.stream_failure.retryable
    assert message.status == "error"
    assert message.stop_reason == "error"
    assert message.parts == (TextPart(text=scenario.stream_failure.partial_text),)
    assert_one_completion_last(events)


@pytest.mark.parametrize("scenario", FAILING)
def test_in_stream_error_gives_error_event_and_partial(scenario: Scenario, golden: Golden) -> None:
    """At the {"error": ...} event the SDK raises mid-iteration; the adapter turns it into an error event and the partial message."""
    client = KIT.sync_client()
    with use_google_cassette(KIT.cassette_path(scenario)):
        chunks = client.models.generate_content_stream(**call_args(scenario))
        message, events = fold(google.stream(chunks))
    assert_failed_stream(scenario, message, events)
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(message))


@pytest.mark.parametrize("scenario", FAILING)
def test_in_stream_error_in_raw_sse_bytes(scenario: Scenario) -> None:
    """The raw SSE bytes of the same stream give the same error event and partial message."""
    raw = KIT.response_text(scenario, stream=True).encode("utf-8")
    message, events = fold(google.stream(raw[i:i + 9] for i in range(0, len(raw), 9)))
    assert_failed_stream(scenario, message, events)


@pytest.mark.parametrize("scenario", FAILING)
async def test_async_in_stream_error(scenario: Scenario) -> None:
    """client.aio's stream fails the same way and keeps the same partial message."""
    client = KIT.sync_client()
    with use_google_cassette(KIT.cassette_path(scenario)):
        chunks = await client.aio.models.generate_content_stream(**call_args(scenario))
        events = [event async for event in google.astream(chunks)]
    message, _ = fold(events)
    assert_failed_stream(scenario, message, events)
