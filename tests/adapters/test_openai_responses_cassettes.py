"""Every scenario replayed through the official ``openai`` client's Responses resource, via vcrpy.

The SDK sends the request ``to_wire`` built (``client.responses.create(**request)``); the cassette
matches it on the JSON body, so any drift fails here as an unmatched request. What the SDK hands
back goes through ``from_wire`` (whole responses) or ``stream`` + the shared accumulator
(``stream=True``, raw SSE bytes, and the SDK's ``responses.stream()`` helper), sync and async,
and must give the golden message; a stream must give the same message as the whole response.
Interrupted and failing streams keep what arrived.
"""

from __future__ import annotations

from typing import Any

import openai
import pytest

from partwire import AssistantMessage, TextPart
from partwire.adapters import openai_responses
from partwire.ids import deterministic_sources, use_sources
from partwire.streaming import StreamErrorEvent, StreamEvent, aaccumulate
from tests.harness.compare import comparable, stored_form
from tests.harness.golden import Golden
from tests.harness.providers.openai_responses import KIT, ResponsesKit
from tests.harness.replay import use_cassette
from tests.harness.streams import aabort_after, abort_after, assert_one_completion_last, fold
from tests.scenarios import Scenario


def _cases(select: Any) -> list[Any]:
    return [pytest.param(KIT, s, id=s.name) for s in KIT.scenarios() if select(s)]


ANSWERED = _cases(lambda s: s.reply is not None)
INTERRUPTED = _cases(lambda s: s.abort_after_text is not None)
FAILING = _cases(lambda s: s.stream_failure is not None)


def non_streamed(kit: ResponsesKit, scenario: Scenario) -> AssistantMessage:
    """from_wire of the scenario's hand-written response body: what every path must agree with."""
    message: AssistantMessage = kit.decode(kit.response_json(scenario))
    return message


def create_kwargs(kit: ResponsesKit, scenario: Scenario, *, stream: bool = False) -> dict[str, Any]:
    """The keyword arguments a caller passes to ``responses.create`` for the scenario."""
    request = kit.project(scenario).request
    return kit.stream_request(request) if stream else dict(request)


def helper_kwargs(kit: ResponsesKit, scenario: Scenario) -> dict[str, Any]:
    """The keyword arguments of ``responses.stream()``: the request without ``stream``."""
    return create_kwargs(kit, scenario)


# -- whole responses --------------------------------------------------------------------------


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_sync_create_gives_golden_message(kit: ResponsesKit, scenario: Scenario, golden: Golden) -> None:
    """The sync client sends to_wire's request as is, and from_wire of its Response is the golden message."""
    with use_cassette(kit.cassette_path(scenario)) as cassette:
        response = kit.client().responses.create(**create_kwargs(kit, scenario))
    assert isinstance(response, openai.types.responses.Response)
    assert cassette.play_count == 1
    golden.check_json(kit.golden_path(scenario, "message"), stored_form(kit.decode(response)))


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
async def test_async_create_gives_golden_message(kit: ResponsesKit, scenario: Scenario, golden: Golden) -> None:
    """The async client sends the same request, and its Response decodes to the same golden message."""
    with use_cassette(kit.cassette_path(scenario)):
        response = await kit.aclient().responses.create(**create_kwargs(kit, scenario))
    golden.check_json(kit.golden_path(scenario, "message"), stored_form(kit.decode(response)))


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
def test_failed_call_raises_the_sdk_error(kit: ResponsesKit, scenario: Scenario) -> None:
    """A call the server refuses as overloaded raises the SDK's status error, once (no retry)."""
    with use_cassette(kit.cassette_path(scenario)) as cassette, \
            pytest.raises(openai.InternalServerError) as caught:
        kit.client().responses.create(**create_kwargs(kit, scenario))
    assert caught.value.status_code == 503
    assert cassette.play_count == 1


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
async def test_async_failed_call_raises_the_sdk_error(kit: ResponsesKit, scenario: Scenario) -> None:
    """The async client raises the same status error."""
    with use_cassette(kit.cassette_path(scenario)), pytest.raises(openai.InternalServerError):
        await kit.aclient().responses.create(**create_kwargs(kit, scenario))


# -- whole streams ----------------------------------------------------------------------------


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_sync_stream_equals_whole_response(kit: ResponsesKit, scenario: Scenario) -> None:
    """SDK events of create(stream=True) through openai_responses.stream give the non-streamed message."""
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = kit.client().responses.create(**create_kwargs(kit, scenario, stream=True))
        message, events = fold(openai_responses.stream(sdk_stream))
    assert_one_completion_last(events)
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(kit, scenario))


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
async def test_async_stream_equals_whole_response(kit: ResponsesKit, scenario: Scenario) -> None:
    """Async SDK events through openai_responses.astream give the non-streamed message."""
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = await kit.aclient().responses.create(**create_kwargs(kit, scenario, stream=True))
        ids, clock = deterministic_sources()
        with use_sources(ids=ids, clock=clock):
            message = await aaccumulate(openai_responses.astream(sdk_stream))
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(kit, scenario))


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_raw_sse_bytes_equal_whole_response(kit: ResponsesKit, scenario: Scenario) -> None:
    """The raw SSE bytes the client received, parsed by openai_responses.stream, give the same message."""
    with use_cassette(kit.cassette_path(scenario)), \
            kit.client().responses.with_streaming_response.create(
                **create_kwargs(kit, scenario, stream=True)) as response:
        message, events = fold(openai_responses.stream(response.iter_bytes()))
    assert_one_completion_last(events)
    assert comparable(message) == comparable(non_streamed(kit, scenario))


# The helper's final response holds its own parsed types, which pydantic warns about when the
# SDK's to_dict serialises them; the JSON it gives is the wire's all the same.
_PARSED_WARNING = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")


@_PARSED_WARNING
@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_sdk_stream_helper_agrees_with_whole_response(kit: ResponsesKit, scenario: Scenario) -> None:
    """The SDK's own accumulator (responses.stream) builds from the SSE the message the JSON body holds.

    This checks the hand-written pair: the stream and the body of a cassette describe one message.
    """
    with use_cassette(kit.cassette_path(scenario)), \
            kit.client().responses.stream(**helper_kwargs(kit, scenario)) as helper:
        final = helper.get_final_response()
    assert comparable(kit.decode(final)) == comparable(non_streamed(kit, scenario))


@_PARSED_WARNING
@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_sdk_stream_helper_events_equal_whole_response(kit: ResponsesKit, scenario: Scenario) -> None:
    """The responses.stream() helper's own events, given to openai_responses.stream, give the same message."""
    with use_cassette(kit.cassette_path(scenario)), \
            kit.client().responses.stream(**helper_kwargs(kit, scenario)) as helper:
        message, events = fold(openai_responses.stream(helper))
    assert_one_completion_last(events)
    assert comparable(message) == comparable(non_streamed(kit, scenario))


@_PARSED_WARNING
@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
async def test_async_sdk_stream_helper_events_equal_whole_response(kit: ResponsesKit, scenario: Scenario) -> None:
    """The async responses.stream() helper's events, given to openai_responses.astream, give the same message."""
    with use_cassette(kit.cassette_path(scenario)):
        async with kit.aclient().responses.stream(**helper_kwargs(kit, scenario)) as helper:
            ids, clock = deterministic_sources()
            with use_sources(ids=ids, clock=clock):
                message = await aaccumulate(openai_responses.astream(helper))
    assert comparable(message) == comparable(non_streamed(kit, scenario))


# -- interrupted and failing streams -----------------------------------------------------------


@pytest.mark.parametrize(("kit", "scenario"), INTERRUPTED)
def test_interrupted_stream_gives_aborted_partial(kit: ResponsesKit, scenario: Scenario, golden: Golden) -> None:
    """A user who stops reading mid-stream gets the text so far, status and stop_reason 'aborted'."""
    assert scenario.abort_after_text is not None
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = kit.client().responses.create(**create_kwargs(kit, scenario, stream=True))
        ids, clock = deterministic_sources()
        with use_sources(ids=ids, clock=clock):
            partial = abort_after(openai_responses.stream(sdk_stream), scenario.abort_after_text)
        sdk_stream.close()
    assert (partial.status, partial.stop_reason) == ("aborted", "aborted")
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)
    assert partial.response_id == kit.response_json(scenario)["id"]
    golden.check_json(kit.golden_path(scenario, "partial"), stored_form(partial))


@pytest.mark.parametrize(("kit", "scenario"), INTERRUPTED)
async def test_async_interrupted_stream_gives_aborted_partial(kit: ResponsesKit, scenario: Scenario) -> None:
    """The same interruption over the async client gives the same partial message."""
    assert scenario.abort_after_text is not None
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = await kit.aclient().responses.create(**create_kwargs(kit, scenario, stream=True))
        partial = await aabort_after(openai_responses.astream(sdk_stream), scenario.abort_after_text)
        await sdk_stream.close()
    assert (partial.status, partial.stop_reason) == ("aborted", "aborted")
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)


def assert_failed_stream(scenario: Scenario, message: AssistantMessage, events: list[StreamEvent]) -> None:
    """One error event, typed by the error event's code, and the partial message with status error."""
    assert scenario.stream_failure is not None
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert len(errors) == 1
    assert errors[0].error.code == "server_error"
    assert errors[0].error.provider == "openai"
    assert errors[0].error.retryable is scenario.stream_failure.retryable
    assert (message.status, message.stop_reason) == ("error", "error")
    assert message.parts == (TextPart(text=scenario.stream_failure.partial_text),)
    assert_one_completion_last(events)


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
def test_in_stream_error_gives_error_event_and_partial(kit: ResponsesKit, scenario: Scenario, golden: Golden) -> None:
    """The SDK yields the stream's error event; the adapter turns it into an error event and the partial message."""
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = kit.client().responses.create(**create_kwargs(kit, scenario, stream=True))
        message, events = fold(openai_responses.stream(sdk_stream))
    assert_failed_stream(scenario, message, events)
    golden.check_json(kit.golden_path(scenario, "partial"), stored_form(message))


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
def test_in_stream_error_in_raw_sse_bytes(kit: ResponsesKit, scenario: Scenario) -> None:
    """The raw SSE bytes of the same stream give the same error event and partial message."""
    with use_cassette(kit.cassette_path(scenario)), \
            kit.client().responses.with_streaming_response.create(
                **create_kwargs(kit, scenario, stream=True)) as response:
        message, events = fold(openai_responses.stream(response.iter_bytes()))
    assert_failed_stream(scenario, message, events)


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
async def test_async_in_stream_error(kit: ResponsesKit, scenario: Scenario) -> None:
    """The async client's stream fails the same way and keeps the same partial message."""
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = await kit.aclient().responses.create(**create_kwargs(kit, scenario, stream=True))
        events = [event async for event in openai_responses.astream(sdk_stream)]
    message, _ = fold(events)
    assert_failed_stream(scenario, message, events)
