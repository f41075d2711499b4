"""Every error partwire raises, under one base.

::

    PartwireError
    ├── SchemaError              a tool's input schema leaves the portable JSON-Schema subset
    ├── ToolArgumentsError       a tool call's arguments are not valid JSON
    ├── DecodeError              a history line cannot be decoded (strict mode)
    └── LossError                a strict projection would lose data (raised by adapters)

Attributes are structured (file, line, JSON path, keyword) so callers can act on them;
``str()`` reads well on its own.
"""

from __future__ import annotations

__all__ = [
    "DecodeError",
    "LossError",
    "PartwireError",
    "SchemaError",
    "ToolArgumentsError",
]


class PartwireError(Exception):
    """Base class of every error raised by partwire."""


class SchemaError(PartwireError):
    """A tool input schema uses a construct outside the portable subset.

    Deliberately not a ``ValueError``: pydantic would wrap it in a ``ValidationError`` and bury the
    keyword and path; raised from ``ToolDefinition`` it reaches the caller as itself.
    """

    def __init__(self, tool: str, path: str, keyword: str, reason: str) -> None:
        self.tool = tool
        """Name of the tool whose schema is wrong."""
        self.path = path
        """JSON pointer of the offending schema node, e.g. ``#/properties/path``."""
        self.keyword = keyword
        """The JSON-Schema keyword at fault, e.g. ``anyOf``."""
        self.reason = reason
        """Why it is refused."""
        super().__init__(f"tool {tool!r}: {keyword!r} at {path}: {reason}")


class ToolArgumentsError(PartwireError, ValueError):
    """A tool call's ``arguments_json`` is not a JSON object."""

    def __init__(self, call_id: str, name: str, reason: str) -> None:
        self.call_id = call_id
        """Canonical id of the tool call."""
        self.name = name
        """Name of the tool called."""
        self.reason = reason
        """What is wrong with the arguments."""
        super().__init__(f"tool call {call_id} ({name}): arguments are not a JSON object: {reason}")


class DecodeError(PartwireError, ValueError):
    """A history line could not be decoded."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 path: str | None = None) -> None:
        self.message = message
        """What is wrong."""
        self.file = file
        """The file read, when there is one."""
        self.line = line
        """1-based line number, when known."""
        self.path = path
        """Location inside the line, e.g. ``parts[2].text``, when known."""
        where = ":".join(str(x) for x in (file, line) if x is not None)
        inner = f" at {path}" if path else ""
        super().__init__(f"{where}: {message}{inner}" if where else f"{message}{inner}")


class LossError(PartwireError, ValueError):
    """A projection in strict mode would have lost data."""

    def __init__(self, losses: object, adapter: str) -> None:
        self.losses = losses
        """The losses that would have happened (a sequence of ``Loss``)."""
        self.adapter = adapter
        """The adapter that refused."""
        super().__init__(f"{adapter}: strict projection would lose data: {losses!r}")
