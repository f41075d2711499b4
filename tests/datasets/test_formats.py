"""``partwire.datasets``: the training and batch formats hold what they can, name what they
cannot, and every batch body validates against its SDK's request type."""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import TypeAdapter
from pydantic_core import SchemaValidator, ValidationError

from partwire import (
    AssistantMessage,
    DeveloperMessage,
    ErrorEvent,
    ImagePart,
    Opaque,
    SystemMessage,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from partwire import datasets as formats
from partwire.adapters import get_adapter
from partwire.codec import dumps
from partwire.errors import ArgumentError, DecodeError, PartwireError
from partwire.history import HistoryEvent
from tests.datasets.corpus_histories import corpus_histories, invalid_sources
from tests.harness.bedrock import converse_errors
from tests.harness.corpus import CORPUS
from tests.harness.validity import _tighten, request_errors

T0 = datetime(2026, 4, 1, tzinfo=UTC)
WEATHER = ToolDefinition(name="weather", description="Weather in a city", side_effects="none",
                         input_schema={"type": "object", "properties": {"city": {"type": "string"}},
                                       "required": ["city"]})


def _history() -> list[HistoryEvent]:
    call = ToolCallPart(id="tu_1", name="weather", arguments_json='{"city":"Paris"}')
    return [
        SystemMessage("Be brief.", created_at=T0),
        UserMessage("Weather in Paris?", created_at=T0),
        AssistantMessage([ThinkingPart(text="Use the tool.", signature=Opaque(value="sig", issuer="anthropic")),
                          call], model="anthropic:claude-sonnet-4-6", created_at=T0),
        ToolMessage(call_id="tu_1", tool_name="weather", output_text="18C, clear", created_at=T0),
        AssistantMessage("18C and clear.", model="anthropic:claude-sonnet-4-6", created_at=T0),
    ]


def _histories() -> list[tuple[str, list[HistoryEvent]]]:
    """The sample, and the corpus histories whose recorded request its own SDK accepts (what a
    refused request carries, an undeclared field, is echoed and refused again)."""
    refused = invalid_sources()
    found = [("sample", _history()), *((n, h) for n, h in corpus_histories() if h and n not in refused)]
    assert len(found) > 900
    return found


@functools.cache
def _anthropic_batch_validator() -> SchemaValidator:
    """Anthropic's ``batch_create_params.Request``, strict: lists eager, unknown keys refused."""
    from anthropic.types.messages.batch_create_params import Request

    return SchemaValidator(_tighten(copy.deepcopy(TypeAdapter(Request).core_schema)))


def _every(make: Callable[[str, list[HistoryEvent]], list[str]]) -> None:
    failures = [(name, errors) for name, history in _histories() if (errors := make(name, history))]
    assert not failures, f"{len(failures)} invalid, e.g. {failures[:3]}"


def test_openai_batch_lines_hold_valid_chat_and_responses_bodies() -> None:
    """Every history becomes a Batch API line whose body the OpenAI SDK's request type accepts,
    for Chat Completions and for Responses."""
    apis: tuple[Literal["openai_chat", "openai_responses"], ...] = ("openai_chat", "openai_responses")
    for api in apis:
        def check(name: str, history: list[HistoryEvent],
                  api: Literal["openai_chat", "openai_responses"] = api) -> list[str]:
            line = formats.openai_batch(history, custom_id=name, model="openai:gpt-5", api=api)
            value = json.loads(line.json())
            assert (value["custom_id"], value["method"], value["url"]) == (name, "POST", formats.BATCH_URLS[api])
            return request_errors(api, value["body"])
        _every(check)


def test_anthropic_batch_requests_validate_as_the_sdk_batch_request() -> None:
    """Every history becomes a Message Batches request the SDK's batch request type accepts."""
    def check(name: str, history: list[HistoryEvent]) -> list[str]:
        line = formats.anthropic_batch(history, custom_id=f"r{abs(hash(name))}", model="anthropic:claude-sonnet-4-6",
                                       settings={"max_output_tokens": 1024})
        try:
            _anthropic_batch_validator().validate_python(json.loads(line.json()), strict=True)
        except ValidationError as exc:
            return [str(e["loc"]) + e["msg"] for e in exc.errors(include_url=False)]
        return []
    _every(check)


def test_bedrock_records_hold_a_valid_converse_body_without_its_model() -> None:
    """Every history becomes a Bedrock batch record whose ``modelInput`` is a Converse body
    botocore accepts once the job's model is added; bytes become base64 in the JSON line."""
    def check(name: str, history: list[HistoryEvent]) -> list[str]:
        line = formats.bedrock_batch(history, record_id="rec1", model="bedrock:anthropic.claude-3-haiku")
        assert "modelId" not in line.value["modelInput"]
        json.loads(line.json())
        return converse_errors({"modelId": "anthropic.claude-3-haiku", **line.value["modelInput"]})
    _every(check)


def test_openai_finetune_lines_validate_and_name_what_they_cannot_hold() -> None:
    """A fine-tuning line holds messages and tools (a Chat body apart from its model), puts
    ``weight`` on the chosen assistant messages, and names the settings it cannot hold."""
    history = _history()
    line = formats.openai_finetune(history, tools=[WEATHER], settings={"temperature": 0.3},
                                   weights={history[2].id: 0})
    assert set(line.value) == {"messages", "tools"}
    assistants = [m for m in line.value["messages"] if m["role"] == "assistant"]
    assert [m.get("weight") for m in assistants] == [0, None]
    assert any(loss.path == "request.temperature" and loss.action == "dropped" for loss in line.losses)
    body = copy.deepcopy(line.value)
    for message in body["messages"]:
        message.pop("weight", None)
    assert request_errors("openai_chat", {"model": "gpt-4.1", **body}) == []
    with pytest.raises(ArgumentError, match="a weight is 0 or 1"):
        formats.openai_finetune(history, weights={history[2].id: 2})


def test_batch_writers_refuse_bad_ids_and_drop_streaming_by_name() -> None:
    """An id the API would refuse raises ``ArgumentError``; a ``stream`` flag is a named loss."""
    with pytest.raises(ArgumentError, match="1 to 64 letters"):
        formats.anthropic_batch(_history(), custom_id="has space", model="anthropic:claude-sonnet-4-6")
    with pytest.raises(ArgumentError, match="custom_id"):
        formats.openai_batch(_history(), custom_id="", model="openai:gpt-5")
    line = formats.openai_batch(_history(), custom_id="a", model="openai:gpt-5", params={"stream": True})
    assert "stream" not in line.value["body"]
    assert [loss.path for loss in line.losses if loss.path == "request.stream"] == ["request.stream"]


def test_trl_rows_hold_text_reasoning_and_tool_calls_and_name_the_rest() -> None:
    """A TRL row has every key on every message, reasoning in ``reasoning_content``, tool calls
    with their JSON text, tools as JSON schemas, and losses for what it cannot hold."""
    history = [DeveloperMessage("ctx", created_at=T0), *_history(),
               UserMessage(["see", ImagePart(source=UrlSource(url="https://x.test/a.png"))], created_at=T0),
               ErrorEvent(message="overloaded", created_at=T0)]
    line = formats.trl_row(history, tools=[WEATHER])
    messages = line.value["messages"]
    assert {tuple(m) for m in messages} == {("role", "content", "reasoning_content", "tool_calls", "name", "tool_call_id")}
    assert [m["role"] for m in messages] == ["system", "system", "user", "assistant", "tool", "assistant", "user"]
    assert messages[3]["reasoning_content"] == "Use the tool."
    assert messages[3]["tool_calls"] == [{"id": "tu_1", "type": "function",
                                          "function": {"name": "weather", "arguments": '{"city":"Paris"}'}}]
    assert (messages[4]["name"], messages[4]["tool_call_id"], messages[4]["content"]) == ("weather", "tu_1", "18C, clear")
    assert json.loads(line.value["tools"])[0]["function"]["name"] == "weather"
    assert {(loss.path, loss.action) for loss in line.losses} == {
        ("history[0]", "rewritten"), ("history[3].parts[0]", "dropped"),
        ("history[6].parts[1]", "dropped"), ("history[7]", "dropped")}


def _same(event: HistoryEvent) -> str:
    """An event's line with the ids and time a fresh read gives it set aside."""
    line = dumps([event.model_copy(update={"id": "x", "created_at": T0})]).decode()
    return re.sub(r"tu_[0-9A-Z]{26}", "tu_X", line)


def _corpus_responses(folder: str) -> list[dict[str, Any]]:
    found = []
    for path in sorted((CORPUS / folder).glob("*.json")):
        record = json.loads(path.read_text())
        if record.get("status") in (None, 200) and isinstance(record.get("response"), dict):
            found.append(record["response"])
    return found


def test_openai_batch_output_reads_back_as_the_adapters_responses(tmp_path: Path) -> None:
    """An OpenAI batch output file (Chat and Responses bodies, and failures) reads back by
    ``custom_id`` as what each adapter's ``from_wire`` makes of the body, errors as error events."""
    expected: dict[str, str] = {}
    lines = []
    for api, folder in (("openai_chat", "openai-chat"), ("openai_responses", "openai-responses")):
        for k, body in enumerate(_corpus_responses(folder)):
            try:
                message = get_adapter(api).from_wire(body)
            except PartwireError:  # bodies the adapter itself refuses are not answers
                continue
            key = f"{api}-{k}"
            expected[key] = _same(message)
            lines.append({"id": f"batch_req_{k}", "custom_id": key,
                          "response": {"status_code": 200, "request_id": "r", "body": body}, "error": None})
    lines.append({"id": "x", "custom_id": "failed", "response": {"status_code": 429, "request_id": "r",
                  "body": {"error": {"message": "slow down", "type": "rate_limit", "code": "rate_limit_exceeded"}}},
                  "error": None})
    path = tmp_path / "output.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    results = formats.read_batch_output(path, api="openai")
    assert len(expected) > 100
    failed = results.pop("failed")
    assert {k: _same(v) for k, v in results.items()} == expected
    assert isinstance(failed, ErrorEvent)
    assert (failed.code, failed.status, failed.retryable) == ("rate_limit_exceeded", 429, True)


def test_anthropic_batch_results_read_back_and_attach_by_custom_id() -> None:
    """Anthropic batch results read back as the adapter's messages (errored, canceled and
    expired requests as error events) and attach to their histories by ``custom_id``."""
    bodies = _corpus_responses("anthropic")[:40]
    lines: list[str] = [json.dumps({"custom_id": f"r{k}", "result": {"type": "succeeded", "message": body}})
                        for k, body in enumerate(bodies)]
    lines.append(json.dumps({"custom_id": "bad", "result": {"type": "errored", "error": {
        "type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: too big"}}}}))
    lines.append(json.dumps({"custom_id": "late", "result": {"type": "expired"}}))
    results = formats.read_batch_output(lines, api="anthropic")
    adapter = get_adapter("anthropic")
    for k, body in enumerate(bodies):
        assert _same(results[f"r{k}"]) == _same(adapter.from_wire(body))
    bad, late = results["bad"], results["late"]
    assert isinstance(bad, ErrorEvent)
    assert (bad.code, bad.message) == ("invalid_request_error", "max_tokens: too big")
    assert isinstance(late, ErrorEvent)
    assert (late.code, late.retryable) == ("expired", True)
    histories = {"r0": _history(), "none": _history()}
    joined = formats.attach(histories, results)
    assert joined["r0"][-1] is results["r0"]
    assert joined["none"] == histories["none"]


def test_batch_output_of_another_shape_is_refused_by_line() -> None:
    """A line that is not JSON, or not a batch output line of the named API, raises a
    ``DecodeError`` naming its line."""
    with pytest.raises(DecodeError, match=r"^2: not JSON"):
        formats.read_batch_output(['{"custom_id": "a", "result": {"type": "expired"}}', "{oops"], api="anthropic")
    with pytest.raises(DecodeError, match=r"^1: not an openai batch output line"):
        formats.read_batch_output([{"custom_id": "a"}], api="openai")
