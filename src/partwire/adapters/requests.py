"""The request types every adapter shares, around the history, in and out.

What ``to_wire`` takes besides the history, and what ``from_wire_request`` gives back.

:class:`ImportedRequest` is a request body read into canonical form; :data:`ToolSpec`,
:data:`ToolChoice` and :data:`SettingsArg` are the types of ``to_wire``'s ``tools``,
``tool_choice`` and ``settings`` arguments. ``partwire.adapters`` exports them too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from partwire.history import HistoryEvent
from partwire.settings import EMPTY_SETTINGS, RequestSettings
from partwire.tools import ServerToolDefinition, ToolDefinition

__all__ = ["ImportedRequest", "SettingsArg", "ToolChoice", "ToolSpec"]

ToolSpec = ToolDefinition | ServerToolDefinition | Mapping[str, Any]
"""A tool offered to the model: a canonical function tool, a canonical provider-run tool, or a
provider-native tool dict. A dict is sent only to the API whose shape it has (each adapter checks
it); any other adapter reports it as dropped at ``request.tools[i]``, never copies it."""

ToolChoice = str | Mapping[str, Any]
"""``"auto"``, ``"required"``, ``"none"``, any other string (that tool's name), or a
provider-native dict sent as is."""

SettingsArg = RequestSettings | Mapping[str, Any] | None
"""What ``to_wire(settings=...)`` takes: :class:`~partwire.settings.RequestSettings`, a mapping
of its fields (validated into one), or ``None`` (no setting)."""


@dataclass(frozen=True, slots=True)
class ImportedRequest:
    """A provider request body read back into canonical form (``from_wire_request``).

    Unpacks as ``history, tools = adapter.from_wire_request(body)``; the other fields carry what
    the body holds besides, so ``adapter.to_wire(imported.history, **imported.to_wire_kwargs())``
    rebuilds the body.

    ``settings`` holds every generation setting the body states in canonical form (what crosses
    to another API); ``params`` the fields that have no canonical form, raw. ``max_tokens`` and
    ``tool_choice`` are kept for callers that read them: ``max_tokens`` is
    ``settings.max_output_tokens``; ``tool_choice`` is the body's tool choice as before (a word,
    a tool's name, or the native dict), and it is passed to ``to_wire`` only when ``settings``
    could not hold it.
    """

    history: tuple[HistoryEvent, ...]
    """The conversation: system prompt, then the messages."""
    tools: tuple[ToolSpec, ...] = ()
    """The tools offered: canonical definitions where they fit exactly, native dicts otherwise."""
    model: str = ""
    """The model as the body names it (the wire name, without a provider prefix)."""
    max_tokens: int | None = None
    """The output token limit, when the body sets one."""
    tool_choice: ToolChoice | None = None
    """The tool choice as the body states it."""
    params: dict[str, Any] = field(default_factory=dict)
    """Every other top-level field of the body, verbatim (sampling, thinking, metadata, ...)."""
    options: dict[str, Any] | None = None
    """The adapter options that rebuild this body (Responses: ``continuation="none"``, since
    the body's own ``store`` and ``include`` are in ``params``); ``None`` for the defaults."""
    settings: RequestSettings = EMPTY_SETTINGS
    """The generation settings the body states, in canonical form (``to_wire(settings=...)``)."""

    def __iter__(self) -> Iterator[Any]:
        yield self.history
        yield self.tools

    def to_wire_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``to_wire`` that rebuild the body around ``history``.

        ``settings`` carries the settings; ``max_tokens`` and ``tool_choice`` are added only when
        ``settings`` does not hold them (a native tool choice the canonical form cannot say).
        """
        settings = self.settings
        kwargs: dict[str, Any] = {"model": self.model, "tools": self.tools, "settings": settings,
                                  "params": self.params}
        if self.max_tokens is not None and settings.max_output_tokens is None:
            kwargs["max_tokens"] = self.max_tokens
        if self.tool_choice is not None and settings.tool_choice is None:
            kwargs["tool_choice"] = self.tool_choice
        if self.options is not None:
            kwargs["options"] = self.options
        return kwargs
