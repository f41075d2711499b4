"""The Google adapter against every recorded Gemini payload of the corpus (243 interactions:
236, plus 7 added for issue 23).

The corpus (recorded by vercel/ai, Mirascope and llm-gemini from the live API; sources and
licences: ``tests/corpus/google/README.md``) is read from the copy committed under
``tests/corpus/google``, or ``$PARTWIRE_CORPUS/google``. A missing folder fails loudly.

- Responses parse with no ``unknown`` part; error bodies raise the provider error they carry.
- Stream parity: every stream (raw SSE, stored chunks, or the JSON array ``streamGenerateContent``
  returns without ``alt=sse``) accumulates to the message ``from_wire`` gives for the same chunks
  merged, with every signature on its part; raw bytes cut anywhere give the same message.
- Import: every recorded request imports and re-exports equal (camelCase input) or equal to its
  camelCase form (the snake_case and mixed bodies the SDK sends).
- Every request ``to_wire`` produces validates against the SDK's ``Content`` /
  ``GenerateContentConfig`` types, and the recorded requests do too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from partwire import AssistantMessage, ToolCallPart, UnknownPart
from partwire._base import replace
from partwire.adapters import ProviderError, google
from partwire.adapters.google._decode import merge_chunks
from partwire.adapters.google._wire import camel_keys
from partwire.streaming import MessageCompleteEvent, accumulate
from tests.harness.replay import json_difference
from tests.harness.validity import request_errors

_ROOT = os.environ.get("PARTWIRE_CORPUS")
CORPUS = (Path(_ROOT) if _ROOT else Path(__file__).parent.parent / "corpus") / "google"
FILES = sorted(CORPUS.glob("*.json"))
# The corpus README counts 236 Gemini files, plus the 7 and the 3 added for issue 23.
EXPECTED_FILES = 246


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _files(keep: Any) -> list[Any]:
    chosen = [pytest.param(p, id=p.stem) for p in FILES if keep(_load(p))]
    return chosen or [pytest.param(CORPUS / "MISSING-CORPUS.json", id="missing")]


def _is_error(record: dict[str, Any]) -> bool:
    return isinstance(record["response"], dict) and "error" in record["response"]


RESPONSES = _files(lambda r: r["response"] is not None and not _is_error(r))
ERRORS = _files(_is_error)
STREAMS = _files(lambda r: r["sse"] is not None or r["chunks"] is not None
                 or isinstance(r["response"], list))
REQUESTS = _files(lambda r: r["request"] is not None)


def _chunks(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The parsed chunks of a recorded stream."""
    if record["chunks"] is not None:
        chunks: list[dict[str, Any]] = record["chunks"]
        return chunks
    if isinstance(record["response"], list):
        return list(record["response"])
    return [json.loads(line[5:]) for line in record["sse"].splitlines() if line.startswith("data:")]


def dumped(message: AssistantMessage) -> Any:
    """The full dump (provider data included) with the ids made fresh per decoding neutralised."""
    parts = tuple(replace(p, id=f"tu_{n}") if isinstance(p, ToolCallPart) else p
                  for n, p in enumerate(message.parts))
    return replace(message, id="m", created_at="2026-01-01T00:00:00Z",
                   parts=parts).model_dump(mode="json")


def test_corpus_is_all_there() -> None:
    """The corpus holds every recorded Gemini interaction, each with its source and licence."""
    assert len(FILES) == EXPECTED_FILES
    for path in FILES:
        record = _load(path)
        assert record["provider"] == "google"
        assert record["source"]
        assert record["license"] in ("MIT", "Apache-2.0")


@pytest.mark.parametrize("path", RESPONSES)
def test_response_parses_with_no_unknown_part(path: Path) -> None:
    """Every recorded response decodes, and every part of it is understood."""
    message = google.from_wire(_load(path)["response"])
    assert message.api == "google"
    assert not [p for p in message.parts if isinstance(p, UnknownPart)]
    assert message.status == "complete"


@pytest.mark.parametrize("path", ERRORS)
def test_error_body_raises_provider_error(path: Path) -> None:
    """An error body raises ProviderError carrying Google's status and HTTP code."""
    record = _load(path)
    with pytest.raises(ProviderError) as caught:
        google.from_wire(record["response"])
    assert caught.value.provider == "google"
    assert caught.value.status == record["status"]
    assert caught.value.code == record["response"]["error"]["status"]


@pytest.mark.parametrize("path", STREAMS)
def test_stream_equals_merged_response(path: Path) -> None:
    """The stream's message equals from_wire of its chunks merged, signatures included."""
    chunks = _chunks(_load(path))
    events = list(google.stream(chunks))
    assert isinstance(events[-1], MessageCompleteEvent)
    assert sum(isinstance(e, MessageCompleteEvent) for e in events) == 1
    streamed = events[-1].message
    assert dumped(streamed) == dumped(google.from_wire(merge_chunks(chunks)))
    assert not [p for p in streamed.parts if isinstance(p, UnknownPart)]
    assert streamed.status == "complete"


@pytest.mark.parametrize("path", STREAMS)
def test_stream_events_fold_to_the_completed_message(path: Path) -> None:
    """The events alone, folded by the shared accumulator, build the message the stream completes with."""
    events = list(google.stream(_chunks(_load(path))))
    folded = accumulate(e for e in events if not isinstance(e, MessageCompleteEvent))
    final = events[-1]
    assert isinstance(final, MessageCompleteEvent)
    assert dumped(folded.model_copy(update={"status": "complete"})) == dumped(final.message)
    assert folded.id == final.message.id


@pytest.mark.parametrize("path", STREAMS)
def test_raw_bytes_cut_anywhere_give_the_same_message(path: Path) -> None:
    """Raw SSE bytes (or the raw JSON array) in 7-byte pieces give the message of the parsed chunks."""
    record = _load(path)
    raw = (record["sse"] if record["sse"] is not None
           else json.dumps(record["response"]) if isinstance(record["response"], list)
           else "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in record["chunks"])).encode()
    pieces = [raw[i:i + 7] for i in range(0, len(raw), 7)]
    whole = accumulate(google.stream(_chunks(record)))
    assert dumped(accumulate(google.stream(pieces))) == dumped(whole)


@pytest.mark.parametrize("path", REQUESTS)
def test_import_law(path: Path) -> None:
    """to_wire(from_wire_request(r)) gives r back, in camelCase (exactly r for a camelCase body)."""
    request = _load(path)["request"]
    imported = google.from_wire_request(request)
    again = google.to_wire(imported.history, **imported.to_wire_kwargs()).request
    assert json_difference(camel_keys(request), again) is None, json_difference(camel_keys(request), again)


@pytest.mark.parametrize("path", REQUESTS)
def test_produced_request_validates_against_sdk_types(path: Path) -> None:
    """The request to_wire rebuilds is valid by the SDK's strict Content / GenerateContentConfig types."""
    request = _load(path)["request"]
    imported = google.from_wire_request(request)
    again = google.to_wire(imported.history, **imported.to_wire_kwargs()).request
    assert request_errors("google", again) == []


def test_snake_case_bodies_are_in_the_corpus() -> None:
    """The corpus really holds the SDK's mixed key styles, so the import law covers them."""
    snake = [p for p in FILES if _load(p)["request"] is not None
             and camel_keys(_load(p)["request"]) != _load(p)["request"]]
    assert len(snake) >= 10
