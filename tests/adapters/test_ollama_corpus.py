"""The Ollama adapter against every recorded Ollama payload of the corpus.

The payloads are real ``/api/chat`` traffic recorded by the ``ollama`` Python client against a
local server (``tests/corpus/ollama/README.md``: llama3, llama3.1 and gemma3:1b, whole and
streamed, a tool call and its result). What must hold:

- every response parses with no ``unknown`` part, its counts as the usage;
- every stream, as its parsed lines and as the raw NDJSON bytes cut anywhere, folds to the
  message its lines describe, and to the message of a whole response made of them;
- every request imports and re-exports equal, with nothing reported lost, and validates against
  the ``ollama`` package's own request models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from partwire import UnknownPart
from partwire.adapters import ollama
from partwire.streaming import accumulate
from tests.harness.compare import comparable
from tests.harness.corpus import CORPUS
from tests.harness.validity import request_errors

FOLDER = CORPUS / "ollama"
FILES = sorted(FOLDER.glob("*.json"))
EXPECTED_FILES = 6  # the corpus README's count


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _files(keep: Any) -> list[Path]:
    chosen = [p for p in FILES if keep(_load(p))]
    return chosen or [FOLDER / "MISSING-CORPUS.json"]


RESPONSES = _files(lambda r: isinstance(r["response"], dict))
STREAMS = _files(lambda r: r["chunks"] is not None)
REQUESTS = _files(lambda r: r["request"] is not None)


def _whole(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole response a stream's lines stand for: the last line, with the fragments joined."""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(
        line["message"].get("content", "") for line in lines)}
    thinking = "".join(line["message"].get("thinking", "") for line in lines)
    if thinking:
        message["thinking"] = thinking
    calls = [c for line in lines for c in line["message"].get("tool_calls", ())]
    if calls:
        message["tool_calls"] = calls
    return {**lines[-1], "message": message}


def test_the_corpus_is_present() -> None:
    """The corpus folder holds every Ollama file (a missing corpus fails, never skips)."""
    assert len(FILES) == EXPECTED_FILES


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.stem)
def test_every_response_parses_without_unknown_parts(path: Path) -> None:
    """A recorded response becomes a complete assistant message with its text and its counts."""
    response = _load(path)["response"]
    message = ollama.from_wire(response)
    assert [p for p in message.parts if isinstance(p, UnknownPart)] == []
    assert message.text == response["message"]["content"]
    assert (message.status, message.stop_reason_raw) == ("complete", response["done_reason"])
    assert message.usage is not None
    assert message.usage.output_tokens == response["eval_count"]
    assert message.usage.input_tokens == response.get("prompt_eval_count", 0)


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_every_stream_folds_to_its_whole_response(path: Path) -> None:
    """The recorded lines, and the raw body in 5-byte pieces, fold to what from_wire gives for
    the whole response they stand for."""
    record = _load(path)
    expected = comparable(ollama.from_wire(_whole(record["chunks"])))
    assert comparable(accumulate(ollama.stream(record["chunks"]))) == expected
    raw = record["ndjson"].encode()
    streamed = accumulate(ollama.stream([raw[i:i + 5] for i in range(0, len(raw), 5)]))
    assert [p for p in streamed.parts if isinstance(p, UnknownPart)] == []
    assert comparable(streamed) == expected


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_every_request_re_exports_exactly_and_validates(path: Path) -> None:
    """to_wire(from_wire_request(r)) is r, with no loss, and r passes the package's models."""
    request = _load(path)["request"]
    imported = ollama.from_wire_request(request)
    projection = ollama.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.request == request
    assert projection.losses == ()
    assert request_errors("ollama", request, stream=request.get("stream") is True) == []
