"""Field docstrings reach the published JSON Schema without being read at import."""

from __future__ import annotations

from partwire._base import CanonicalModel
from partwire._docstrings import add_field_descriptions, field_docstrings
from partwire.history import EVENT_ADAPTER
from partwire.parts import ToolCallPart


def test_field_docstrings_are_read_from_the_class_body() -> None:
    """Each annotated field followed by a string literal yields that string."""
    docs = field_docstrings(ToolCallPart)
    assert docs["arguments_json"].startswith("The arguments as the exact JSON text")
    assert "provider_data" not in docs


def test_every_schema_property_gets_a_description() -> None:
    """After add_field_descriptions, no property of any definition lacks a description."""
    schema = add_field_descriptions(EVENT_ADAPTER.json_schema(), [CanonicalModel])
    missing = [
        f"{name}.{field}"
        for name, definition in schema["$defs"].items()
        for field, prop in definition.get("properties", {}).items()
        if "description" not in prop
    ]
    assert missing == []
    # Inherited fields are documented from the base class that declares them.
    assert "ignored by equality" in schema["$defs"]["TextPart"]["properties"]["provider_data"]["description"]
