"""Every error partwire raises, under one base.

::

    PartwireError
    ├── SchemaError              a tool's input schema leaves the portable JSON-Schema subset
    ├── ToolArgumentsError       a tool call's arguments are not valid JSON
    ├── DecodeError              a history line cannot be decoded (strict mode)
    ├── ConversionError          convert() cannot run on what it was given (no model for the target, ...)
    ├── LossError                a strict projection would lose data (raised by adapters)
    ├── SwitchRefusedError       a session cannot move to a target at all (check_switch)
    ├── ProviderError            the provider answered with an error body
    ├── WireFormatError          wire data does not have the shape its API defines
    ├── UnknownAdapterError      no adapter has that name
    ├── StreamProtocolError      a stream event does not fit the part it addresses
    └── ArgumentError            a function or constructor was given an argument it cannot take

Attributes are structured (file, line, JSON path, keyword) so callers can act on them;
``str()`` reads well on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import JsonValue

if TYPE_CHECKING:
    from partwire._loss import Loss

__all__ = [
    "ArgumentError",
    "ConversionError",
    "DecodeError",
    "LossError",
    "PartwireError",
    "ProviderError",
    "SchemaError",
    "StreamProtocolError",
    "SwitchRefusedError",
    "ToolArgumentsError",
    "UnknownAdapterError",
    "WireFormatError",
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


class ConversionError(PartwireError, ValueError):
    """A conversion cannot run on what it was given: no model for the target, a model of another
    provider, an empty history, a tool file of no known shape, an option no adapter has."""

    def __init__(self, reason: str, *, option: str | None = None) -> None:
        self.reason = reason
        """What is wrong."""
        self.option = option
        """The keyword argument of ``convert()`` that fixes it (``model``), when one does; the
        command line names it as an option (``--model``)."""
        fix = f" (pass {option}=)" if option else ""
        super().__init__(f"{reason}{fix}")


class LossError(PartwireError, ValueError):
    """A projection in strict mode would have lost data."""

    def __init__(self, losses: object, adapter: str) -> None:
        self.losses = losses
        """The losses that would have happened (a sequence of ``Loss``)."""
        self.adapter = adapter
        """The adapter that refused."""
        listed = ("; ".join(str(loss) for loss in losses)
                  if isinstance(losses, Sequence) and not isinstance(losses, str) else repr(losses))
        super().__init__(f"{adapter}: strict projection would lose data: {listed}")


class ProviderError(PartwireError):
    """The provider answered with an error body instead of a response."""

    def __init__(self, provider: str, code: str | None, message: str, *,
                 status: int | None = None, request_id: str | None = None,
                 body: JsonValue = None) -> None:
        self.provider = provider
        """The provider that answered."""
        self.code = code
        """Its machine-readable error type (``overloaded_error``, ``not_found_error``)."""
        self.message = message
        """Its human-readable message."""
        self.status = status
        """HTTP status, when known."""
        self.request_id = request_id
        """The provider's request id, for support tickets."""
        self.body = body
        """The error body as received."""
        where = f" (HTTP {status})" if status is not None else ""
        super().__init__(f"{provider} error{where}: {code or 'error'}: {message}")


class WireFormatError(PartwireError, ValueError):
    """Wire data does not have the shape the adapter's API defines."""

    def __init__(self, provider: str, what: str, reason: str, path: str | None = None) -> None:
        self.provider = provider
        """The adapter's API."""
        self.what = what
        """What was being read (``response``, ``request``, ``stream event``)."""
        self.reason = reason
        """What is wrong with it."""
        self.path = path
        """Where in it, as a JSON path from the body (``messages[3]``, ``tools[0]``), when known."""
        super().__init__(provider, what, reason)

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"{self.provider}: not a valid {self.what}{where}: {self.reason}"


class UnknownAdapterError(PartwireError, LookupError):
    """No adapter has that name (or it is not part of this installation)."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        """The name asked for."""
        self.reason = reason
        """Why it is not available."""
        super().__init__(f"no adapter {name!r}: {reason}")


class StreamProtocolError(PartwireError, ValueError):
    """An event does not fit the part it addresses (an adapter bug, not a provider error)."""

    def __init__(self, index: int, event_type: str, part_type: str) -> None:
        self.index = index
        """The part index the event addressed."""
        self.event_type = event_type
        """The event's type."""
        self.part_type = part_type
        """The type of the part already at that index."""
        super().__init__(f"a {event_type} event cannot extend the {part_type} part at index {index}")


class SwitchRefusedError(PartwireError):
    """Moving a session to the target cannot work: the target cannot take some of its content."""

    def __init__(self, target: str, refusals: tuple[Loss, ...], losses: tuple[Loss, ...]) -> None:
        self.target = target
        """The adapter or model refused."""
        self.refusals = refusals
        """What cannot work there, one entry per part or message."""
        self.losses = losses
        """What would be lost besides, as :func:`check_switch` would have returned it."""
        first = "; ".join(str(r) for r in refusals[:3])
        more = f" (and {len(refusals) - 3} more)" if len(refusals) > 3 else ""
        super().__init__(f"cannot switch this session to {target}: {first}{more}")


class ArgumentError(PartwireError, ValueError):
    """A function or constructor was given an argument it cannot take (a target without a model,
    tool-call arguments that are not a mapping, content that is neither text nor parts)."""

    def __init__(self, argument: str, reason: str, *, function: str | None = None) -> None:
        self.argument = argument
        """The argument at fault (``target``, ``arguments``, ``session_id``)."""
        self.reason = reason
        """What is wrong with it, and what would do."""
        self.function = function
        """The function or class called (``Session``, ``ToolCallPart.create``), when known."""
        where = f"{function}: " if function else ""
        super().__init__(f"{where}{argument}: {reason}")
