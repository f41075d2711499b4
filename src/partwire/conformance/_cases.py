"""The conformance cases shipped in the wheel, and how to load them.

Each file under ``cases/`` is one *source* (a canonical history, a recorded response, a request
body, a file of lines) with one expectation per API (or one for the codec). Loading flattens
them into :class:`Case` values, one per check: ``<source>/<api>`` (``thinking_anthropic/google``)
or ``<source>`` for a codec case.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal

from partwire.errors import ArgumentError

__all__ = ["API_NAMES", "OPERATIONS", "Case", "Operation", "load_cases"]

Operation = Literal["to_wire", "from_wire", "read_request", "validate"]
"""What a case asks of an implementation: a history to a request body (``to_wire``), a response
or a stream to a canonical message (``from_wire``), a request body to a canonical history
(``read_request``), or a history file read tolerantly, with the problem of each bad line
(``validate``)."""

OPERATIONS: tuple[Operation, ...] = ("to_wire", "from_wire", "read_request", "validate")
"""Every operation of the protocol."""

API_NAMES: tuple[str, ...] = ("anthropic", "openai_chat", "openai_responses", "google", "bedrock")
"""The wire APIs the corpus covers."""


@dataclass(frozen=True)
class Case:
    """One check of the corpus: an operation on an input, and what must come out."""

    id: str
    """Unique name: ``<source>/<api>``, or ``<source>`` for a codec case."""
    source: str
    """The source file it comes from (``cases/<source>.json``)."""
    operation: Operation
    """The operation asked for."""
    api: str | None
    """The wire API (one of :data:`API_NAMES`), or ``None`` for a codec case (``validate``)."""
    input: dict[str, Any]
    """The operation's input, exactly as the protocol sends it."""
    expected: dict[str, Any]
    """``{"output": ...}``, what a correct implementation answers, or ``{"error": KIND}``."""
    description: str = ""
    """What the case exercises, in one sentence."""
    covers: tuple[str, ...] = field(default=())
    """Tags of what the expected answer carries (``signature``, ``tool_id``, a part type, ...),
    so a report can say which features a failure touches."""

    def request(self) -> dict[str, Any]:
        """The protocol request for this case (see ``docs/contract.md``)."""
        request: dict[str, Any] = {"id": self.id, "operation": self.operation, "input": self.input}
        if self.api is not None:
            request["api"] = self.api
        return request


def _sources() -> list[dict[str, Any]]:
    root = resources.files(__package__) / "cases"
    found: list[dict[str, Any]] = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            found.append(json.loads(entry.read_text(encoding="utf-8")))
    return found


def _flatten(source: dict[str, Any]) -> list[Case]:
    name: str = source["name"]
    operation: Operation = source["operation"]
    description: str = source.get("description", "")
    common: dict[str, Any] = source.get("input", {})
    if "expected" in source:  # a codec case: one expectation, no API
        return [Case(name, name, operation, None, common, source["expected"], description,
                     tuple(source.get("covers", ())))]
    cases = []
    for api, check in source["apis"].items():
        cases.append(Case(f"{name}/{api}", name, operation, api, {**common, **check.get("input", {})},
                          check["expected"], description, tuple(check.get("covers", ()))))
    return cases


def load_cases(api: str | None = None) -> list[Case]:
    """Every case of the corpus, in a stable order; with ``api``, only the cases of that API.

    ``api`` is one of :data:`API_NAMES`; anything else is an :class:`ArgumentError`.
    """
    if api is not None and api not in API_NAMES:
        raise ArgumentError("api", f"the corpus has no API {api!r}; it covers {', '.join(API_NAMES)}",
                            function="load_cases")
    cases = [case for source in _sources() for case in _flatten(source)]
    return [c for c in cases if api is None or c.api == api]
