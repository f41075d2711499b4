"""Every canonical scenario replayed through the official ``anthropic`` client, via vcrpy.

The SDK sends the request ``to_wire`` built; the cassette matches it on the JSON body, so any drift
fails here as an unmatched request. What the SDK hands back goes through ``from_wire`` (whole
responses) or ``stream`` + the shared accumulator (streams), sync and async, and must give the
golden message; a stream must give the same message as the whole response (the stream-parity
law), through the real client. Interrupted and failing streams keep what arrived.
"""

from __future__ import annotations

import anthropic
import pytest

from partwire import AssistantMessage, TextPart
from partwire.ids import deterministic_sources, use_sources
from partwire.streaming import (
    StreamErrorEvent,
    StreamEvent,
    aaccumulate,
)
from tests.harness.compare import comparable, stored_form
from tests.harness.golden import Golden
from tests.harness.providers import get_kit
from tests.harness.replay import use_cassette
from tests.harness.streams import aabort_after, abort_after, assert_one_completion_last, fold
from tests.scenarios import Scenario

KIT = get_kit("anthropic")
ADAPTER = KIT.adapter()
SCENARIOS = KIT.scenarios()
ANSWERED, INTERRUPTED, FAILING = KIT.answered(), KIT.interrupted(), KIT.failing()


def ids(scenario: Scenario) -> str:
    """Test id of a scenario."""
    return scenario.name


def non_streamed(scenario: Scenario) -> AssistantMessage:
    """The scenario's hand-written response, decoded: what every path must agree with."""
    message: AssistantMessage = KIT.non_streamed(scenario)
    return message


# -- whole responses --------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_sync_create_gives_golden_message(scenario: Scenario, golden: Golden) -> None:
    """The sync client sends to_wire's request as is, and from_wire of its Message is the golden message."""
    with use_cassette(KIT.cassette_path(scenario)) as cassette:
        response = KIT.sync_client().messages.create(**KIT.project(scenario).request)
    assert isinstance(response, anthropic.types.Message)
    assert cassette.play_count == 1
    golden.check_json(KIT.golden_path(scenario, "message"), stored_form(KIT.decode(response)))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
async def test_async_create_gives_golden_message(scenario: Scenario, golden: Golden) -> None:
    """The async client sends the same request, and its Message decodes to the same golden message."""
    with use_cassette(KIT.cassette_path(scenario)):
        response = await KIT.async_client().messages.create(**KIT.project(scenario).request)
    assert isinstance(response, anthropic.types.Message)
    golden.check_json(KIT.golden_path(scenario, "message"), stored_form(KIT.decode(response)))


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_failed_call_raises_the_sdk_error(scenario: Scenario) -> None:
    """A call the provider refuses as overloaded raises the SDK's OverloadedError, once (no retry)."""
    with use_cassette(KIT.cassette_path(scenario)) as cassette, pytest.raises(anthropic.OverloadedError) as caught:
        KIT.sync_client().messages.create(**KIT.project(scenario).request)
    assert caught.value.status_code == 529
    assert caught.value.type == "overloaded_error"
    assert caught.value.request_id == KIT.response_json(scenario)["request_id"]
    assert cassette.play_count == 1


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
async def test_async_failed_call_raises_the_sdk_error(scenario: Scenario) -> None:
    """The async client raises the same OverloadedError."""
    with use_cassette(KIT.cassette_path(scenario)), pytest.raises(anthropic.OverloadedError):
        await KIT.async_client().messages.create(**KIT.project(scenario).request)


def test_request_drift_fails_the_replay() -> None:
    """A request that differs from the cassette in one value fails, naming the JSON path that differs."""
    scenario = next(s for s in SCENARIOS if s.name == "parallel_tools")
    request = KIT.project(scenario).request
    drifted = {**request, "messages": [*request["messages"][:2], {
        **request["messages"][2],
        "content": [request["messages"][2]["content"][0],
                    {**request["messages"][2]["content"][1], "is_error": False}],
    }]}
    with pytest.raises(AssertionError, match=r"\$\.messages\[2\]\.content\[1\]\.is_error: cassette has true"), \
            use_cassette(KIT.cassette_path(scenario)):
        KIT.sync_client().messages.create(**drifted)


# -- whole streams ----------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_sync_stream_equals_whole_response(scenario: Scenario) -> None:
    """SDK stream events through anthropic.stream and the accumulator give the non-streamed message."""
    with use_cassette(KIT.cassette_path(scenario)):
        sdk_stream = KIT.sync_client().messages.create(**KIT.project(scenario).request, stream=True)
        message, events = fold(ADAPTER.stream(sdk_stream))
    assert_one_completion_last(events)
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
async def test_async_stream_equals_whole_response(scenario: Scenario) -> None:
    """Async SDK stream events through anthropic.astream give the non-streamed message."""
    with use_cassette(KIT.cassette_path(scenario)):
        sdk_stream = await KIT.async_client().messages.create(**KIT.project(scenario).request, stream=True)
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            message = await aaccumulate(ADAPTER.astream(sdk_stream))
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_raw_sse_bytes_equal_whole_response(scenario: Scenario) -> None:
    """The raw SSE bytes the client received, parsed by anthropic.stream, give the non-streamed message."""
    request = KIT.project(scenario).request
    with use_cassette(KIT.cassette_path(scenario)), \
            KIT.sync_client().messages.with_streaming_response.create(**request, stream=True) as response:
        message, events = fold(ADAPTER.stream(response.iter_bytes()))
    assert_one_completion_last(events)
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_sdk_stream_helper_agrees_with_whole_response(scenario: Scenario) -> None:
    """The SDK's own accumulator (messages.stream) builds from the SSE the message the JSON body holds.

    This checks the hand-written pair: the stream and the body of a cassette describe one message.
    """
    with use_cassette(KIT.cassette_path(scenario)), \
            KIT.sync_client().messages.stream(**KIT.project(scenario).request) as stream:
        final = stream.get_final_message()
    assert comparable(KIT.decode(final)) == comparable(non_streamed(scenario))
    assert final.to_dict() == KIT.response_json(scenario)


# -- interrupted and failing streams -----------------------------------------------------------


@pytest.mark.parametrize("scenario", INTERRUPTED, ids=ids)
def test_interrupted_stream_gives_aborted_partial(scenario: Scenario, golden: Golden) -> None:
    """A user who stops reading mid-stream gets the text so far, status and stop_reason 'aborted'."""
    assert scenario.abort_after_text is not None
    with use_cassette(KIT.cassette_path(scenario)):
        sdk_stream = KIT.sync_client().messages.create(**KIT.project(scenario).request, stream=True)
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            partial = abort_after(ADAPTER.stream(sdk_stream), scenario.abort_after_text)
        sdk_stream.close()
    assert partial.status == "aborted"
    assert partial.stop_reason == "aborted"
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)
    assert partial.response_id == KIT.response_json(scenario)["id"]
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(partial))


@pytest.mark.parametrize("scenario", INTERRUPTED, ids=ids)
async def test_async_interrupted_stream_gives_aborted_partial(scenario: Scenario) -> None:
    """The same interruption over the async client gives the same partial message."""
    assert scenario.abort_after_text is not None
    with use_cassette(KIT.cassette_path(scenario)):
        sdk_stream = await KIT.async_client().messages.create(**KIT.project(scenario).request, stream=True)
        partial = await aabort_after(ADAPTER.astream(sdk_stream), scenario.abort_after_text)
        await sdk_stream.close()
    assert (partial.status, partial.stop_reason) == ("aborted", "aborted")
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)


def assert_failed_stream(scenario: Scenario, message: AssistantMessage, events: list[StreamEvent]) -> None:
    """One error event, typed by the error body, and the partial message with status error."""
    assert scenario.stream_failure is not None
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert len(errors) == 1
    assert errors[0].error.code == "overloaded_error"
    assert errors[0].error.provider == "anthropic"
    assert errors[0].error.retryable is scenario.stream_failure.retryable
    assert message.status == "error"
    assert message.stop_reason == "error"
    assert message.parts == (TextPart(text=scenario.stream_failure.partial_text),)


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_in_stream_error_gives_error_event_and_partial(scenario: Scenario, golden: Golden) -> None:
    """At ``event: error`` the SDK raises mid-iteration; the adapter turns it into an error event and the partial message."""
    with use_cassette(KIT.cassette_path(scenario)):
        sdk_stream = KIT.sync_client().messages.create(**KIT.project(scenario).request, stream=True)
        message, events = fold(ADAPTER.stream(sdk_stream))
    assert_failed_stream(scenario, message, events)
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(message))


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_in_stream_error_in_raw_sse_bytes(scenario: Scenario) -> None:
    """The raw SSE bytes of the same stream give the same error event and partial message."""
    request = KIT.project(scenario).request
    with use_cassette(KIT.cassette_path(scenario)), \
            KIT.sync_client().messages.with_streaming_response.create(**request, stream=True) as response:
        message, events = fold(ADAPTER.stream(response.iter_bytes()))
    assert_failed_stream(scenario, message, events)


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
async def test_async_in_stream_error(scenario: Scenario) -> None:
    """The async client's stream fails the same way and keeps the same partial message."""
    with use_cassette(KIT.cassette_path(scenario)):
        sdk_stream = await KIT.async_client().messages.create(**KIT.project(scenario).request, stream=True)
        events = [event async for event in ADAPTER.astream(sdk_stream)]
    message, _ = fold(events)
    assert_failed_stream(scenario, message, events)
