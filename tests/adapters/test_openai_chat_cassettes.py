"""Every scenario replayed through the official ``openai`` client, via vcrpy, for OpenAI and each dialect.

The SDK sends the request ``to_wire`` built (dialect fields through ``extra_body``, as a caller
would); the cassette matches it on the JSON body, so any drift fails here as an unmatched request.
What the SDK hands back goes through ``from_wire`` (whole responses) or ``stream`` + the shared
accumulator (streams), sync and async, and must give the golden message; a stream must give the
same message as the whole response (the stream-parity law), through the real client. Interrupted
and failing streams keep what arrived. Dialect kits point the same client at the dialect's host.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from partwire import AssistantMessage, TextPart
from partwire.adapters import openai_chat
from partwire.ids import deterministic_sources, use_sources
from partwire.streaming import (
    StreamErrorEvent,
    StreamEvent,
    aaccumulate,
)
from tests.harness.compare import comparable, stored_form
from tests.harness.golden import Golden
from tests.harness.providers.openai_chat import ALL_KITS, ChatKit, sdk_kwargs
from tests.harness.replay import use_cassette
from tests.harness.streams import aabort_after, abort_after, assert_one_completion_last, fold
from tests.scenarios import Scenario


def _cases(select: Any) -> list[Any]:
    return [pytest.param(kit, s, id=f"{kit.dialect}-{s.name}")
            for kit in ALL_KITS for s in kit.scenarios() if select(s)]


ANSWERED = _cases(lambda s: s.reply is not None)


def _indexed_calls(kit: ChatKit, scenario: Scenario) -> bool:
    """Whether every tool-call fragment of the scenario's stream has an ``index``: the SDK's
    ``.stream()`` helper needs one (it raises TypeError on Mistral's, which have none)."""
    for line in kit.response_text(scenario, stream=True).splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:]).get("choices") or ():
                if any("index" not in call for call in choice["delta"].get("tool_calls") or ()):
                    return False
    return True


HELPED = [p for p in ANSWERED if _indexed_calls(*p.values)]
INTERRUPTED = _cases(lambda s: s.abort_after_text is not None)
FAILING = _cases(lambda s: s.stream_failure is not None)

# What each dialect's failure says: the code it gives and the HTTP status of the whole call.
FAILURES: dict[str, tuple[str, int]] = {
    "openai": ("server_error", 503),
    "openrouter": ("502", 502),
    "deepseek": ("service_unavailable", 503),
    "vllm": ("ServiceUnavailableError", 503),
    "ollama": ("api_error", 500),
    "mistral": ("1300", 503),
}


def non_streamed(kit: ChatKit, scenario: Scenario) -> AssistantMessage:
    """from_wire of the scenario's hand-written response body: what every path must agree with."""
    message: AssistantMessage = kit.decode(kit.response_json(scenario))
    return message


def create_kwargs(kit: ChatKit, scenario: Scenario, *, stream: bool = False) -> dict[str, Any]:
    """The keyword arguments a caller passes to ``chat.completions.create`` for the scenario."""
    request = kit.project(scenario).request
    return sdk_kwargs(kit.stream_request(request) if stream else request)


# -- whole responses --------------------------------------------------------------------------


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_sync_create_gives_golden_message(kit: ChatKit, scenario: Scenario, golden: Golden) -> None:
    """The sync client sends to_wire's request as is, and from_wire of its ChatCompletion is the golden message."""
    with use_cassette(kit.cassette_path(scenario)) as cassette:
        response = kit.client().chat.completions.create(**create_kwargs(kit, scenario))
    assert isinstance(response, openai.types.chat.ChatCompletion)
    assert cassette.play_count == 1
    golden.check_json(kit.golden_path(scenario, "message"), stored_form(kit.decode(response)))


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
async def test_async_create_gives_golden_message(kit: ChatKit, scenario: Scenario, golden: Golden) -> None:
    """The async client sends the same request, and its ChatCompletion decodes to the same golden message."""
    with use_cassette(kit.cassette_path(scenario)):
        response = await kit.aclient().chat.completions.create(**create_kwargs(kit, scenario))
    golden.check_json(kit.golden_path(scenario, "message"), stored_form(kit.decode(response)))


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
def test_failed_call_raises_the_sdk_error(kit: ChatKit, scenario: Scenario) -> None:
    """A call the server refuses as overloaded raises the SDK's status error, once (no retry)."""
    _, status = FAILURES[kit.dialect]
    with use_cassette(kit.cassette_path(scenario)) as cassette, \
            pytest.raises(openai.InternalServerError) as caught:
        kit.client().chat.completions.create(**create_kwargs(kit, scenario))
    assert caught.value.status_code == status
    assert cassette.play_count == 1


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
async def test_async_failed_call_raises_the_sdk_error(kit: ChatKit, scenario: Scenario) -> None:
    """The async client raises the same status error."""
    with use_cassette(kit.cassette_path(scenario)), pytest.raises(openai.InternalServerError):
        await kit.aclient().chat.completions.create(**create_kwargs(kit, scenario))


# -- whole streams ----------------------------------------------------------------------------


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_sync_stream_equals_whole_response(kit: ChatKit, scenario: Scenario) -> None:
    """SDK chunks through openai_chat.stream and the accumulator give the non-streamed message."""
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = kit.client().chat.completions.create(**create_kwargs(kit, scenario, stream=True))
        message, events = fold(openai_chat.stream(sdk_stream, dialect=kit.dialect))
    assert_one_completion_last(events)
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(kit, scenario))


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
async def test_async_stream_equals_whole_response(kit: ChatKit, scenario: Scenario) -> None:
    """Async SDK chunks through openai_chat.astream give the non-streamed message."""
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = await kit.aclient().chat.completions.create(**create_kwargs(kit, scenario, stream=True))
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            message = await aaccumulate(openai_chat.astream(sdk_stream, dialect=kit.dialect))
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(kit, scenario))


@pytest.mark.parametrize(("kit", "scenario"), ANSWERED)
def test_raw_sse_bytes_equal_whole_response(kit: ChatKit, scenario: Scenario) -> None:
    """The raw SSE bytes the client received, parsed by openai_chat.stream, give the non-streamed message."""
    with use_cassette(kit.cassette_path(scenario)), \
            kit.client().chat.completions.with_streaming_response.create(
                **create_kwargs(kit, scenario, stream=True)) as response:
        message, events = fold(openai_chat.stream(response.iter_bytes(), dialect=kit.dialect))
    assert_one_completion_last(events)
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(kit, scenario))


@pytest.mark.parametrize(("kit", "scenario"), HELPED)
def test_sdk_stream_helper_agrees_with_whole_response(kit: ChatKit, scenario: Scenario) -> None:
    """The SDK's own accumulator (chat.completions.stream) builds from the SSE the message the JSON body holds.

    This checks the hand-written pair: the stream and the body of a cassette describe one message.
    """
    kwargs = create_kwargs(kit, scenario, stream=True)
    del kwargs["stream"]
    with use_cassette(kit.cassette_path(scenario)), kit.client().chat.completions.stream(**kwargs) as stream:
        final = stream.get_final_completion()
    assert comparable(kit.decode(final)) == comparable(non_streamed(kit, scenario))


@pytest.mark.parametrize(("kit", "scenario"), HELPED)
def test_sdk_stream_helper_events_equal_whole_response(kit: ChatKit, scenario: Scenario) -> None:
    """The .stream() helper's own events, given to openai_chat.stream, give the non-streamed message."""
    kwargs = create_kwargs(kit, scenario, stream=True)
    del kwargs["stream"]
    with use_cassette(kit.cassette_path(scenario)), kit.client().chat.completions.stream(**kwargs) as helper:
        message, events = fold(openai_chat.stream(helper, dialect=kit.dialect))
    assert_one_completion_last(events)
    assert comparable(message) == comparable(non_streamed(kit, scenario))


@pytest.mark.parametrize(("kit", "scenario"), HELPED)
async def test_async_sdk_stream_helper_events_equal_whole_response(kit: ChatKit, scenario: Scenario) -> None:
    """The async .stream() helper's events, given to openai_chat.astream, give the same message."""
    kwargs = create_kwargs(kit, scenario, stream=True)
    del kwargs["stream"]
    with use_cassette(kit.cassette_path(scenario)):
        async with kit.aclient().chat.completions.stream(**kwargs) as helper:
            ids_, clock = deterministic_sources()
            with use_sources(ids=ids_, clock=clock):
                message = await aaccumulate(openai_chat.astream(helper, dialect=kit.dialect))
    assert comparable(message) == comparable(non_streamed(kit, scenario))


# -- interrupted and failing streams -----------------------------------------------------------


@pytest.mark.parametrize(("kit", "scenario"), INTERRUPTED)
def test_interrupted_stream_gives_aborted_partial(kit: ChatKit, scenario: Scenario, golden: Golden) -> None:
    """A user who stops reading mid-stream gets the text so far, status and stop_reason 'aborted'."""
    assert scenario.abort_after_text is not None
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = kit.client().chat.completions.create(**create_kwargs(kit, scenario, stream=True))
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            partial = abort_after(openai_chat.stream(sdk_stream, dialect=kit.dialect),
                                   scenario.abort_after_text)
        sdk_stream.close()
    assert partial.status == "aborted"
    assert partial.stop_reason == "aborted"
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)
    assert partial.response_id == kit.response_json(scenario)["id"]
    golden.check_json(kit.golden_path(scenario, "partial"), stored_form(partial))


@pytest.mark.parametrize(("kit", "scenario"), INTERRUPTED)
async def test_async_interrupted_stream_gives_aborted_partial(kit: ChatKit, scenario: Scenario) -> None:
    """The same interruption over the async client gives the same partial message."""
    assert scenario.abort_after_text is not None
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = await kit.aclient().chat.completions.create(**create_kwargs(kit, scenario, stream=True))
        partial = await aabort_after(openai_chat.astream(sdk_stream, dialect=kit.dialect), scenario.abort_after_text)
        await sdk_stream.close()
    assert (partial.status, partial.stop_reason) == ("aborted", "aborted")
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)


def assert_failed_stream(kit: ChatKit, scenario: Scenario, message: AssistantMessage,
                         events: list[StreamEvent]) -> None:
    """One error event, typed by the error body, and the partial message with status error."""
    assert scenario.stream_failure is not None
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert len(errors) == 1
    assert errors[0].error.code == FAILURES[kit.dialect][0]
    assert errors[0].error.provider == kit.spec.issuer
    assert errors[0].error.retryable is scenario.stream_failure.retryable
    assert message.status == "error"
    assert message.stop_reason == "error"
    assert message.parts == (TextPart(text=scenario.stream_failure.partial_text),)
    assert_one_completion_last(events)


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
def test_in_stream_error_gives_error_event_and_partial(kit: ChatKit, scenario: Scenario, golden: Golden) -> None:
    """At the ``{"error": ...}`` chunk the SDK raises mid-iteration; the adapter turns it into an error event and the partial message."""
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = kit.client().chat.completions.create(**create_kwargs(kit, scenario, stream=True))
        message, events = fold(openai_chat.stream(sdk_stream, dialect=kit.dialect))
    assert_failed_stream(kit, scenario, message, events)
    golden.check_json(kit.golden_path(scenario, "partial"), stored_form(message))


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
def test_in_stream_error_in_raw_sse_bytes(kit: ChatKit, scenario: Scenario) -> None:
    """The raw SSE bytes of the same stream give the same error event and partial message."""
    with use_cassette(kit.cassette_path(scenario)), \
            kit.client().chat.completions.with_streaming_response.create(
                **create_kwargs(kit, scenario, stream=True)) as response:
        message, events = fold(openai_chat.stream(response.iter_bytes(), dialect=kit.dialect))
    assert_failed_stream(kit, scenario, message, events)


@pytest.mark.parametrize(("kit", "scenario"), FAILING)
async def test_async_in_stream_error(kit: ChatKit, scenario: Scenario) -> None:
    """The async client's stream fails the same way and keeps the same partial message."""
    with use_cassette(kit.cassette_path(scenario)):
        sdk_stream = await kit.aclient().chat.completions.create(**create_kwargs(kit, scenario, stream=True))
        events = [event async for event in openai_chat.astream(sdk_stream, dialect=kit.dialect)]
    message, _ = fold(events)
    assert_failed_stream(kit, scenario, message, events)
