"""The Bedrock Converse adapter against every recorded Bedrock payload of the corpus.

The payloads are real Converse / ConverseStream traffic recorded by permissively licensed
projects (``shared/corpus/README.md``: Nova, Titan, Llama, Claude and Devstral on Bedrock, with
guardrail traces and reasoning). What must hold:

- every response parses with no ``unknown`` part, one part per content block;
- every stream, as boto3's event dicts, as the raw event stream bytes (whole and cut into
  7-byte chunks; botocore's own decoder reads the same bytes), folds to the message
  ``from_wire`` gives for the response the stream stands for;
- every request imports and re-exports equal, with nothing reported lost, and the re-export
  passes botocore's own parameter validator plus the role, name and id rules it does not check.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from botocore.eventstream import EventStreamBuffer

import partwire.adapters.bedrock as bedrock
from partwire import AssistantMessage, ToolCallPart, UnknownPart
from partwire._base import replace
from partwire._json import json_text
from partwire.adapters.bedrock._eventstream import iter_events
from partwire.streaming import accumulate
from tests.harness.bedrock import converse_errors
from tests.harness.corpus import CORPUS
from tests.harness.eventstream import assemble, encode_events

FOLDER = CORPUS / "bedrock"
FILES = sorted(FOLDER.glob("*.json"))
EXPECTED_FILES = 56  # the corpus README's count


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _files(keep: Any) -> list[Path]:
    chosen = [p for p in FILES if keep(_load(p))]
    return chosen or [FOLDER / "MISSING-CORPUS.json"]


RESPONSES = _files(lambda r: isinstance(r["response"], dict))
STREAMS = _files(lambda r: r["chunks"] is not None)
REQUESTS = _files(lambda r: r["request"] is not None and r["status"] != 400)


def comparable(message: AssistantMessage) -> AssistantMessage:
    """The message with fresh ids made neutral and tool arguments in one spelling."""
    parts = tuple(
        replace(p, id=f"call-{i}", arguments_json=json_text(json.loads(p.arguments_json)))
        if isinstance(p, ToolCallPart) else p
        for i, p in enumerate(message.parts))
    return replace(message, id="m", created_at="2026-01-01T00:00:00Z", parts=parts)


def test_the_corpus_is_present() -> None:
    """The corpus folder holds every Bedrock file (a missing corpus fails, never skips)."""
    assert len(FILES) == EXPECTED_FILES


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.stem)
def test_every_response_parses_without_unknown_parts(path: Path) -> None:
    """A recorded response becomes an assistant message in which every block was understood."""
    response = _load(path)["response"]
    message = bedrock.from_wire(response)
    assert [p.original_type for p in message.parts if isinstance(p, UnknownPart)] == []
    assert len(message.parts) == len(response["output"]["message"]["content"])
    assert message.stop_reason_raw == response["stopReason"]
    assert message.stop_reason is not None
    assert message.usage is not None
    assert message.usage.output_tokens == response["usage"]["outputTokens"]


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_every_stream_folds_to_the_message_of_its_whole_response(path: Path) -> None:
    """Event dicts, raw event stream bytes and those bytes in 7-byte chunks all give the message
    of the response the stream stands for."""
    chunks = _load(path)["chunks"]
    expected = comparable(bedrock.from_wire(assemble(chunks)))
    assert comparable(accumulate(bedrock.stream(chunks))) == expected
    raw = encode_events(chunks)
    assert comparable(accumulate(bedrock.stream(raw))) == expected
    pieces = [raw[i:i + 7] for i in range(0, len(raw), 7)]
    streamed = accumulate(bedrock.stream(pieces))
    assert comparable(streamed) == expected
    assert streamed.status == "complete"


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_the_event_stream_decoder_reads_what_botocore_reads(path: Path) -> None:
    """partwire's pure-Python decoder and botocore's give the same items from the same bytes."""
    raw = encode_events(_load(path)["chunks"])
    buffer = EventStreamBuffer()
    buffer.add_data(raw)
    theirs = [{str(m.headers[":event-type"]): json.loads(m.payload)} for m in buffer]
    assert list(iter_events([raw[i:i + 5] for i in range(0, len(raw), 5)])) == theirs


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_every_request_imports_and_reexports_equal(path: Path) -> None:
    """to_wire(from_wire_request(r)) == r (with its model id), nothing lost, and botocore's
    validator and the API's role, name and id rules accept it."""
    record = _load(path)
    body = record["request"]
    imported = bedrock.from_wire_request(body)
    kwargs = imported.to_wire_kwargs()
    kwargs["model"] = record["model"] or "amazon.nova-micro-v1:0"
    projection = bedrock.to_wire(imported.history, **kwargs)
    assert projection.request == {**body, "modelId": kwargs["model"]}
    assert projection.losses == ()
    assert converse_errors(projection.request) == []
    assert converse_errors(projection.request, stream=True) == []


def test_the_validator_refuses_what_converse_refuses() -> None:
    """The request check is not a rubber stamp: a bad role, tool name and call id are named."""
    request = {"modelId": "m", "messages": [
        {"role": "tool", "content": [{"text": "x"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "a b", "name": "x.y",
                                                        "input": {}}}]}],
        "inferenceConfig": {"maxTokens": "9"}}
    errors = converse_errors(request)
    assert any("role" in e for e in errors)
    assert any("toolUseId" in e for e in errors)
    assert any(re.search(r"\bname\b", e) for e in errors)
    assert any("maxTokens" in e for e in errors)
