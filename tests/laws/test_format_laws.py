"""Law 9 of DESIGN §11, formats are told apart: every reader refuses another API's body.

Each corpus request (and response) of each API is read by every other API's reader. A reading
either raises :class:`WireFormatError`, or the body is one the reader's API defines alike (a lone
user text that both Chat Completions and Anthropic accept): then nothing of it is lost, the
reading holds no part the reader could not read, and the reader writes the body back with every
field it had. None turns a body into an empty or partial request.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from partwire.adapters import get_adapter
from partwire.cli import main
from partwire.errors import ProviderError, WireFormatError
from partwire.parts import UnknownPart
from tests.harness.corpus import CORPUS

# Corpus folder -> the adapter that reads it (Mistral is a dialect of Chat Completions).
FOLDERS = {"anthropic": "anthropic", "openai-chat": "openai_chat", "openai-responses": "openai_responses",
           "google": "google", "bedrock": "bedrock", "mistral": "openai_chat", "ollama": "ollama",
           "cohere": "cohere"}
READERS = sorted(set(FOLDERS.values()))
# How a refusal names each API's body when it can tell.
NAMES = {"anthropic": "Anthropic Messages", "openai_chat": "OpenAI Chat Completions",
         "openai_responses": "OpenAI Responses", "google": "Gemini generateContent",
         "bedrock": "Bedrock Converse", "ollama": "Ollama chat",
         "cohere": "Cohere v2 Chat"}
# The pairs of APIs whose bodies can be alike (the check above says when).
_ALIKE = {frozenset({"anthropic", "openai_chat"}), frozenset({"cohere", "openai_chat"}),
          frozenset({"anthropic", "cohere"}), frozenset({"anthropic", "ollama"}),
          frozenset({"ollama", "openai_chat"}), frozenset({"cohere", "ollama"})}
PAIRS = [(folder, reader) for folder in FOLDERS for reader in READERS if reader != FOLDERS[folder]]


@cache
def _bodies(folder: str, key: str) -> list[tuple[str, dict[str, Any]]]:
    """The corpus bodies under ``key`` (``request`` or ``response``) of one API, by file name."""
    found = []
    for path in sorted((CORPUS / folder).glob("*.json")):
        data = json.loads(path.read_text())
        body = data.get(key)
        if isinstance(body, dict) and (key == "request" or (data.get("status") or 200) < 400):
            found.append((path.name, body))
    return found


def _complete(reader: str, body: dict[str, Any]) -> list[str]:
    """What a foreign reading of ``body`` lost: unreadable parts, or fields not written back."""
    adapter = get_adapter(reader)
    imported = adapter.from_wire_request(body)
    problems = [f"an unknown {part.original_type} part" for event in imported.history
                for part in getattr(event, "parts", ()) if isinstance(part, UnknownPart)]
    back = adapter.to_wire(imported.history, **imported.to_wire_kwargs()).request
    problems += [f"{key} not written back as it was" for key in body if back.get(key) != body[key]]
    return problems


@pytest.mark.parametrize(("folder", "reader"), PAIRS)
def test_a_reader_refuses_another_apis_request_or_reads_it_whole(folder: str, reader: str) -> None:
    """Each corpus request read by another API's reader is refused, or read with nothing lost."""
    bodies = _bodies(folder, "request")
    assert bodies, f"no requests in {CORPUS / folder}"
    taken: list[str] = []
    misnamed: list[str] = []
    for name, body in bodies:
        try:
            problems = _complete(reader, body)
        except WireFormatError as exc:
            if exc.provider != reader:
                misnamed.append(name)
            continue
        taken.append(name)
        assert not problems, f"{name} read by {reader}: {problems}"
    assert not misnamed, f"refusals that do not name {reader} as the reader: {misnamed[:3]}"
    # Anthropic, Chat, Converse, Cohere and Ollama all call their list "messages"; only a body valid for
    # both, with nothing only one of them defines (a bare text with max_tokens and a model no
    # table knows, and between Cohere and Chat, whose roles and tools are alike, more), may pass
    # between Anthropic, Chat, Cohere and Ollama (whose body is Chat's in shape:
    # docs/adapters/ollama.md says how the two are told apart). Every other pair refuses every body.
    if frozenset({FOLDERS[folder], reader}) not in _ALIKE:
        assert not taken, f"{reader} read {len(taken)} {folder} bodies: {taken[:3]}"


@pytest.mark.parametrize(("folder", "reader"), PAIRS)
def test_a_refusal_names_the_format_it_sees(folder: str, reader: str) -> None:
    """A request refused for being another API's names that API, unless only a field is missing."""
    source = FOLDERS[folder]
    for name, body in _bodies(folder, "request"):
        try:
            get_adapter(reader).from_wire_request(body)
        except WireFormatError as exc:
            message = str(exc)
            assert NAMES[source] in message or "it has no" in message, f"{name} by {reader}: {message}"


@pytest.mark.parametrize(("folder", "reader"), PAIRS)
def test_a_reader_refuses_another_apis_response(folder: str, reader: str) -> None:
    """Each corpus response read by another API's reader raises, naming the format it sees."""
    source = FOLDERS[folder]
    for name, body in _bodies(folder, "response"):
        if set(body) == {"error"}:
            continue  # a bare error body is alike for several APIs, and raises ProviderError
        with pytest.raises(WireFormatError) as caught:
            get_adapter(reader).from_wire(body)
        assert NAMES[source] in str(caught.value), f"{name} by {reader}: {caught.value}"


def test_a_bare_error_body_is_a_provider_error_for_any_reader() -> None:
    """An error body (``{"error": {...}}``) read by any OpenAI-shaped reader raises ProviderError."""
    body = {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}}
    for reader in ("openai_chat", "openai_responses"):
        with pytest.raises(ProviderError):
            get_adapter(reader).from_wire(body)


def test_a_converse_body_read_as_anthropic_is_refused_on_the_command_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``convert --from anthropic`` on a Bedrock body exits non-zero and says it is a Converse body."""
    name, body = _bodies("bedrock", "request")[0]
    path = tmp_path / name
    path.write_text(json.dumps(body))
    assert main(["convert", "--from", "anthropic", "--to", "canonical", str(path)]) != 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "Bedrock Converse request" in err
