"""The JSON Schema of one history line, generated from the canonical types.

Other services validate partwire files against it. One schema is committed per format version,
``docs/schema/v<N>/partwire.schema.json`` with the ``$id`` ``urn:partwire:schema:history-line:v<N>``
(earlier versions' files are frozen); the current version's is also at
``docs/schema/partwire.schema.json``. A test fails when either drifts from this module's output;
regenerate both with ``nox -s schema`` (``python -m partwire.codec.schema --all docs/schema``, or
``python -m partwire.codec.schema OUT`` for one file). Field descriptions are the attribute
docstrings, read from the source at export time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from partwire._base import CanonicalModel
from partwire._docstrings import add_field_descriptions
from partwire.history import EVENT_ADAPTER
from partwire.messages import SCHEMA_VERSION
from partwire.settings import RequestSettings
from partwire.tools import ServerToolDefinition, ToolDefinition

__all__ = ["REQUEST_MODELS", "SCHEMA_FILE", "SCHEMA_ID", "json_schema", "main", "render",
           "schema_id", "versioned_path"]


def schema_id(version: int) -> str:
    """The ``$id`` of format version ``version``'s schema: a URN, since the format is not served
    from any one web address."""
    return f"urn:partwire:schema:history-line:v{version}"


SCHEMA_ID = schema_id(SCHEMA_VERSION)
"""The current schema's ``$id``."""

SCHEMA_FILE = "partwire.schema.json"
"""The file name of every version's schema."""


def versioned_path(root: str | Path, version: int = SCHEMA_VERSION) -> Path:
    """Where version ``version``'s schema is committed under ``root`` (``docs/schema``)."""
    return Path(root) / f"v{version}" / SCHEMA_FILE

_DESCRIPTION = (
    f"One line of a partwire history file (JSONL, schema version {SCHEMA_VERSION}): a message "
    "(type \"message\", told apart by \"role\") or a history event, discriminated by \"type\". "
    "Parts inside messages are discriminated by \"type\" too. Objects allow extra properties: "
    "readers keep fields they do not know and write them back. The canonical types of the request "
    "around a history (generation settings, tool definitions) are in $defs too, for services that "
    "exchange them."
)

REQUEST_MODELS: tuple[type[CanonicalModel], ...] = (RequestSettings, ToolDefinition,
                                                     ServerToolDefinition)
"""Canonical types outside a history line whose schemas are published in ``$defs`` as well."""


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one history line, parts included."""
    # The message union is a definition of its own (``Message``, see ``NamedUnion``), so every
    # discriminator mapping is a ``$ref``, as OpenAPI tooling expects.
    generated = EVENT_ADAPTER.json_schema()
    defs: dict[str, Any] = generated.pop("$defs")
    for model in REQUEST_MODELS:
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[model.__name__] = schema
    return add_field_descriptions({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "partwire history line",
        "description": _DESCRIPTION,
        **generated,
        "$defs": defs,
    }, [CanonicalModel])


def render() -> str:
    """The schema as committed: sorted keys, two-space indent, trailing newline."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the schema to the file named by the only argument (``-`` for stdout); with
    ``--all ROOT``, to ``ROOT/partwire.schema.json`` and ``ROOT/v<N>/partwire.schema.json``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "--all":
        targets = [Path(args[1]) / SCHEMA_FILE, versioned_path(args[1])]
    elif len(args) == 1 and args[0] != "--all":
        targets = [Path(args[0])]
    else:
        print("usage: python -m partwire.codec.schema OUT | --all ROOT", file=sys.stderr)
        return 2
    text = render()
    for out in targets:
        if str(out) == "-":
            sys.stdout.write(text)
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
