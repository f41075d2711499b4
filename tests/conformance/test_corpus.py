"""The conformance corpus: regenerated from the adapters, covering what the contract promises,
shipped inside the wheel, and passed by partwire's adapters in process."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from partwire import HistoryEvent, Part
from partwire.adapters import ADAPTER_NAMES, get_adapter
from partwire.conformance import API_NAMES, OPERATIONS, Case, check_case, load_cases
from partwire.errors import ArgumentError
from partwire.messages import Message
from tests.conformance import regen

ROOT = Path(__file__).resolve().parents[2]
CASES = load_cases()


def _tags(union: Any) -> set[str]:
    """The tags of a discriminated union's members, from its JSON Schema's discriminator."""
    from pydantic import TypeAdapter

    schema = TypeAdapter(union).json_schema()
    node = schema if "discriminator" in schema else schema["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    return set(node["discriminator"]["mapping"])


def test_committed_cases_are_what_the_adapters_give() -> None:
    """Regenerating the corpus from partwire's adapters changes no committed case file."""
    assert regen.main(["--check"]) == 0, (
        "the conformance cases are out of date: run `nox -s conformance`, review and commit")


def test_cases_have_unique_ids_and_cover_every_api_and_operation() -> None:
    """Case ids are unique, every API the corpus covers is an adapter's, and each has to_wire,
    from_wire and read_request cases."""
    assert len({c.id for c in CASES}) == len(CASES)
    for api in API_NAMES:
        assert {c.operation for c in CASES if c.api == api} == {"to_wire", "from_wire", "read_request"}, api
    assert {c.operation for c in CASES} == set(OPERATIONS)
    assert set(API_NAMES) <= set(ADAPTER_NAMES)  # every API the corpus covers has an adapter


def test_every_part_role_and_event_type_is_in_the_histories() -> None:
    """The canonical histories the cases send name every part type, role and event type."""
    text = "".join(c.input.get("history", "") + c.input.get("jsonl", "") for c in CASES)
    lines = []
    for line in text.splitlines():
        try:
            parsed = json.loads(line)
        except ValueError:
            continue  # the malformed lines of the validate cases
        if isinstance(parsed, dict):
            lines.append(parsed)

    def found(key: str, where: str) -> set[str]:
        seen: set[str] = set()

        def walk(node: object) -> None:
            if isinstance(node, dict):
                if isinstance(node.get(key), str):
                    seen.add(node[key])
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for item in node:
                    walk(item)
        for line in lines:
            walk(line.get("parts", []) if where == "parts" else {key: line.get(key)})
        return seen

    assert _tags(Part) - found("type", "parts") == set()
    assert _tags(Message) - found("role", "line") == set()
    assert _tags(HistoryEvent) - found("type", "line") == set()


def test_signatures_and_tool_ids_are_covered_for_every_api() -> None:
    """Each API has cases whose expected answer carries a tool id, and a signature where the API
    has one; Chat Completions, which has none, expects signed thinking to be a loss."""
    for api in API_NAMES:
        tags = {t for c in CASES if c.api == api for t in c.covers}
        assert {"signature", "tool_id"} - tags == ({"signature"} if api == "openai_chat" else set()), api
    (chat,) = [c for c in CASES if c.id == "thinking_from_anthropic/openai_chat"]
    assert {"path": "history[1].parts[0]", "action": "dropped"} in [
        {"path": loss["path"], "action": loss["action"]} for loss in chat.expected["output"]["losses"]]


def test_bad_lines_each_get_their_problem_kind() -> None:
    """The validate cases expect torn, malformed, unknown and future lines with their kinds."""
    kinds = {p["kind"] for c in CASES if c.operation == "validate"
             for p in c.expected["output"]["problems"]}
    assert kinds >= {"torn_line", "invalid_json", "invalid_field", "unknown_part", "unknown_event",
                     "future_version"}


def test_unknown_parts_and_fields_are_written_back() -> None:
    """The unknown-content case expects the unknown part and fields back exactly as they came."""
    (case,) = [c for c in CASES if c.id == "validate_unknown_kept"]
    first = json.loads(case.input["jsonl"].splitlines()[0])
    assert case.expected["output"]["written"][0] == first
    assert first["parts"][1]["type"] == "hologram"


def test_load_cases_filters_by_api_and_refuses_an_unknown_one() -> None:
    """load_cases(api) gives exactly that API's cases; an unknown API is an ArgumentError."""
    google = load_cases("google")
    assert google == [c for c in CASES if c.api == "google"]
    with pytest.raises(ArgumentError, match="cohere"):
        load_cases("cohere")


@pytest.mark.parametrize("api", API_NAMES)
def test_partwire_adapters_pass_their_cases_in_process(api: str) -> None:
    """check_case passes every case of an API on partwire's own adapter module."""
    adapter = get_adapter(api)
    failed = [(r.case.id, r.diff) for r in (check_case(c, adapter) for c in load_cases(api)) if not r.passed]
    assert failed == []


def test_check_case_shows_a_readable_diff_for_a_wrong_adapter() -> None:
    """An adapter whose request differs fails with a diff naming the expected and actual values."""
    real = get_adapter("openai_chat")

    class Renamed:
        NAME, CAPABILITIES, Options = real.NAME, real.CAPABILITIES, real.Options

        def to_wire(self, history: object, **kwargs: object) -> object:
            projection = real.to_wire(history, **kwargs)  # type: ignore[arg-type]
            projection.request["model"] = "gpt-4"
            return projection

    (case,) = [c for c in CASES if c.id == "plain_chat/openai_chat"]
    result = check_case(case, Renamed())  # type: ignore[arg-type]
    assert not result.passed
    assert '-    "model": "gpt-5.5"' in result.diff
    assert '+    "model": "gpt-4"' in result.diff


def test_case_request_is_the_protocol_request() -> None:
    """A case's protocol request names its id, operation, API and input, and no API for the codec."""
    wire: Case = next(c for c in CASES if c.api is not None)
    codec: Case = next(c for c in CASES if c.api is None)
    assert wire.request() == {"id": wire.id, "operation": wire.operation, "api": wire.api, "input": wire.input}
    assert "api" not in codec.request()


def test_the_built_wheel_carries_the_corpus(tmp_path: Path) -> None:
    """A wheel built from the checkout holds every case file, and loads the corpus from itself."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                           "--no-build-isolation", "-q", "-w", str(tmp_path)],
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("partwire-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    shipped = {p.name for p in (ROOT / "src" / "partwire" / "conformance" / "cases").glob("*.json")}
    assert {f"partwire/conformance/cases/{name}" for name in shipped} <= names
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import partwire.conformance as c; "
              "assert c.__file__.startswith(sys.argv[1]), c.__file__; print(len(c.load_cases()))")
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "site")],
                         capture_output=True, text=True, check=True, timeout=120)
    assert int(out.stdout) == len(CASES)
