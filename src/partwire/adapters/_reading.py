"""What request readers make most, made without the frozen dataclasses' ``__init__``: an
:class:`~partwire.adapters.requests.ImportedRequest` and a plain text part."""

from __future__ import annotations

import dataclasses
from typing import Any

from partwire._base import one_field
from partwire.adapters.requests import ImportedRequest, ToolChoice, ToolSpec
from partwire.history import HistoryEvent
from partwire.parts import TextPart
from partwire.settings import EMPTY_SETTINGS, RequestSettings

__all__ = ["imported_request", "plain_text_part", "text_part"]

_new = object.__new__


def imported_request(history: tuple[HistoryEvent, ...], tools: tuple[ToolSpec, ...], model: str,
                     max_tokens: int | None, tool_choice: ToolChoice | None, params: dict[str, Any],
                     options: dict[str, Any] | None = None,
                     settings: RequestSettings = EMPTY_SETTINGS) -> ImportedRequest:
    """``ImportedRequest(...)`` itself, made the way :func:`~partwire.adapters._losses.new_loss` makes a ``Loss``: each slot
    set by its own descriptor, not by the frozen dataclass's ``__init__`` (half the cost, on
    every request a reader reads)."""
    made = _new(ImportedRequest)
    _set_history(made, history)
    _set_tools(made, tools)
    _set_model(made, model)
    _set_max_tokens(made, max_tokens)
    _set_tool_choice(made, tool_choice)
    _set_params(made, params)
    _set_options(made, options)
    _set_settings(made, settings)
    return made


_FIELDS = ("history", "tools", "model", "max_tokens", "tool_choice", "params", "options", "settings")
(_set_history, _set_tools, _set_model, _set_max_tokens, _set_tool_choice, _set_params, _set_options,
 _set_settings) = (ImportedRequest.__dict__[name].__set__ for name in _FIELDS)
if tuple(f.name for f in dataclasses.fields(ImportedRequest)) != _FIELDS:
    raise ImportError("imported_request sets every field of ImportedRequest: update it")  # pragma: no cover


# -- parts readers make most ---------------------------------------------------------------

plain_text_part = one_field(TextPart, "text")
"""``TextPart(text=text)`` for a ``text`` the caller has seen to be exactly a ``str``: the maker
itself, without :func:`text_part`'s test and call (a reader's commonest part)."""


def text_part(text: Any) -> TextPart:
    """``TextPart(text=text)``: without validation when ``text`` is a ``str`` (the readers' most
    made part); validated (and refused) as usual otherwise."""
    return plain_text_part(text) if type(text) is str else TextPart(text=text)
