"""The published JSON Schema matches the code and describes every line partwire writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from partwire.cli._example import example_history
from partwire.codec.schema import SCHEMA_ID, json_schema, main, render
from partwire.history import EVENT_ADAPTER

COMMITTED = Path(__file__).resolve().parent.parent / "docs" / "schema" / "partwire.schema.json"


@pytest.fixture(scope="module")
def validator() -> Any:
    """A draft 2020-12 validator over the generated schema."""
    return jsonschema.Draft202012Validator(json_schema())


def _example_lines() -> list[dict[str, Any]]:
    return [json.loads(EVENT_ADAPTER.dump_json(e)) for e in example_history()]


def test_committed_schema_matches_the_generated_one() -> None:
    """docs/schema/partwire.schema.json is byte-identical to what the code generates."""
    assert COMMITTED.read_text(encoding="utf-8") == render(), (
        "docs/schema/partwire.schema.json is out of date: run `nox -s schema` and commit the result"
    )


def test_schema_is_a_valid_draft_2020_12_schema_with_identity() -> None:
    """The schema passes the metaschema check and names its dialect, id, title and description."""
    generated = json_schema()
    jsonschema.Draft202012Validator.check_schema(generated)
    assert generated["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert generated["$id"] == SCHEMA_ID
    assert generated["title"]
    assert generated["description"]


def test_discriminator_mappings_are_all_references() -> None:
    """Every discriminator mapping value is a $ref string, the nested message union included."""

    def mappings(node: Any) -> list[Any]:
        if isinstance(node, dict):
            found = [node["discriminator"]["mapping"]] if "discriminator" in node else []
            return found + [m for v in node.values() for m in mappings(v)]
        if isinstance(node, list):
            return [m for v in node for m in mappings(v)]
        return []

    found = mappings(json_schema())
    assert found
    assert all(isinstance(t, str) and t.startswith("#/$defs/") for m in found for t in m.values())


def test_fields_are_described_from_their_docstrings() -> None:
    """Field descriptions come from the source, inherited ones included."""
    defs = json_schema()["$defs"]
    assert defs["ToolCallPart"]["properties"]["arguments_json"]["description"].startswith("The arguments")
    assert defs["SystemMessage"]["properties"]["role"]["description"] == "The message's role."
    assert defs["Usage"]["properties"]["cost"]["description"]


def test_every_example_line_validates(validator: Any) -> None:
    """Each line of the bundled example is valid under the schema."""
    for line in _example_lines():
        errors = list(validator.iter_errors(line))
        assert errors == [], (line["type"], [e.message for e in errors])


@pytest.mark.parametrize(
    ("index", "path", "value"),
    [
        (0, ("title",), 42),  # task title must be a string or null
        (4, ("retryable",), "yes"),  # error.retryable is a boolean
        (3, ("parts", 0, "text"), ["not", "text"]),  # a text part's text is a string
        (3, ("parts", 1, "type"), "hologram"),  # an unknown part tag is not this version's format
        (3, ("v",), 2),  # a future schema version
    ],
)
def test_a_line_with_a_wrong_type_does_not_validate(
    validator: Any, index: int, path: tuple[str | int, ...], value: object
) -> None:
    """Changing one value to the wrong type or tag makes the line invalid."""
    line = _example_lines()[index]
    target: Any = line
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert not validator.is_valid(line)


def test_schema_module_writes_the_file(tmp_path: Path) -> None:
    """``python -m partwire.codec.schema OUT`` writes the rendered schema to OUT."""
    out = tmp_path / "sub" / "schema.json"
    assert main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render()
    assert out.read_text(encoding="utf-8").endswith("}\n")
