"""One committed schema per format version, and every version's golden lines still valid and
still readable by the current code (docs/contract.md states the policy these tests hold)."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from partwire.codec import MIGRATIONS, SCHEMA_VERSION, encode, load
from partwire.codec.schema import SCHEMA_FILE, json_schema, main, render, schema_id, versioned_path
from partwire.settings import RequestSettings
from partwire.tools import ToolDefinition

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "docs" / "schema"
COMPAT = ROOT / "tests" / "compat"
VERSIONS = list(range(SCHEMA_VERSION + 1))
CHANGELOG = ROOT / "CHANGELOG.md"
# The schemas of versions the code no longer writes are frozen: their bytes are pinned here, and
# a version bump adds the version it leaves behind.
FROZEN = {0: "e8bbc2ff065d031bd19f137d5cf0a71fada901ef4e984b05f6c598677e31bf8d"}


# Generating the schema reads every docstring from source: once per module is enough.
_generated = functools.cache(json_schema)
_rendered = functools.cache(render)


def _schema(version: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(versioned_path(SCHEMAS, version).read_text(encoding="utf-8"))
    return data


def _golden(version: int) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in sorted((COMPAT / f"v{version}").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield path, json.loads(line)


def _leaves(error: jsonschema.ValidationError) -> Iterator[str]:
    """The innermost messages under an error (a union's error says only that no member fit)."""
    if not error.context:
        yield error.message
    for sub in error.context or ():
        yield from _leaves(sub)


def incompatible(schema: dict[str, Any], version: int) -> list[str]:
    """Why version ``version``'s golden lines do not hold under ``schema`` and the current code:
    each must validate against its own version's committed schema, read strictly, and come out
    as lines that validate against ``schema`` (the current one). Empty when compatible."""
    own = jsonschema.Draft202012Validator(_schema(version))
    current = jsonschema.Draft202012Validator(schema)
    problems = [f"{path.name}: " + "; ".join(sorted(set(_leaves(error)))) + f" (v{version} schema)"
                for path, line in _golden(version) for error in own.iter_errors(line)]
    for path in sorted((COMPAT / f"v{version}").glob("*.jsonl")):
        try:
            events = load(path, strict=True)
        except Exception as exc:
            problems.append(f"{path.name}: does not read: {exc}")
            continue
        problems += [f"{path.name}: read back, " + "; ".join(sorted(set(_leaves(error))))
                     for event in events for error in current.iter_errors(json.loads(encode(event)))]
    return problems


@pytest.mark.parametrize("version", VERSIONS)
def test_every_version_has_a_committed_schema_with_its_id(version: int) -> None:
    """docs/schema/v<N>/ holds a valid draft 2020-12 schema whose $id names version N."""
    schema = _schema(version)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == schema_id(version)


def test_the_current_version_schema_is_the_generated_one_at_both_paths() -> None:
    """The current version's folder and docs/schema/partwire.schema.json both equal the code's schema."""
    assert versioned_path(SCHEMAS).read_text(encoding="utf-8") == _rendered(), (
        "run `nox -s schema` and commit the result")
    assert (SCHEMAS / SCHEMA_FILE).read_text(encoding="utf-8") == _rendered()


def test_no_schema_folder_beyond_the_current_version() -> None:
    """Only versions 0..SCHEMA_VERSION have schema folders (a folder for a version the code does
    not write would be a promise nobody keeps)."""
    found = sorted(int(p.name[1:]) for p in SCHEMAS.glob("v*") if p.is_dir())
    assert found == VERSIONS


def test_earlier_versions_schemas_are_frozen() -> None:
    """Every earlier version's schema file is pinned, byte for byte."""
    assert sorted(FROZEN) == list(range(SCHEMA_VERSION))
    for version, digest in FROZEN.items():
        assert hashlib.sha256(versioned_path(SCHEMAS, version).read_bytes()).hexdigest() == digest, (
            f"docs/schema/v{version}/ is frozen: restore it; a change to the format needs a new version")


@pytest.mark.parametrize("version", VERSIONS)
def test_every_version_has_golden_lines(version: int) -> None:
    """tests/compat/v<N>/ holds lines of every version, so each one's compatibility is tested."""
    assert list(_golden(version))


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_every_earlier_version_has_a_migration(version: int) -> None:
    """A version bump comes with a migration from the version before it."""
    assert version in MIGRATIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_golden_lines_of_every_version_validate_and_read(version: int) -> None:
    """Each version's golden lines validate under their own schema, read strictly with the
    current code, and are written back as lines the current schema accepts."""
    assert incompatible(_generated(), version) == []


def test_a_breaking_change_without_a_migration_is_caught() -> None:
    """A schema in which an existing field became required (a breaking change) fails the check
    for the current version's golden lines, naming the field."""
    breaking = copy.deepcopy(_generated())
    breaking["$defs"]["UserMessage"]["required"].append("mood")
    problems = incompatible(breaking, SCHEMA_VERSION)
    assert problems
    assert any("'mood' is a required property" in p for p in problems)


def test_request_settings_and_tool_definitions_are_in_every_written_version() -> None:
    """The current schema publishes RequestSettings and ToolDefinition, and real ones validate."""
    schema = _schema(SCHEMA_VERSION)
    for name, value in (
        ("RequestSettings", RequestSettings(max_output_tokens=256, temperature=0.2)),
        ("ToolDefinition", ToolDefinition(name="ls", input_schema={"type": "object"}, side_effects="none")),
    ):
        sub = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{name}"}
        jsonschema.Draft202012Validator(sub).validate(value.model_dump(mode="json"))


def test_schema_all_writes_both_paths(tmp_path: Path) -> None:
    """``python -m partwire.codec.schema --all ROOT`` writes the current and the versioned file."""
    assert main(["--all", str(tmp_path)]) == 0
    assert (tmp_path / SCHEMA_FILE).read_text(encoding="utf-8") == _rendered()
    assert versioned_path(tmp_path).read_text(encoding="utf-8") == _rendered()
    assert main(["--all"]) == 2


def test_the_changelog_records_the_format_versions() -> None:
    """CHANGELOG.md has a section recording format changes, naming every version."""
    text = CHANGELOG.read_text(encoding="utf-8")
    assert "Format" in text
    assert all(f"v{version}" in text for version in VERSIONS)
