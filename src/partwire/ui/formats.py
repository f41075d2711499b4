"""The chat-UI formats by name, for ``convert`` and the ``partwire convert`` command.

A UI message list is read into a canonical history, then written as the target asks (and the
other way round); :func:`partwire.convert.convert` hands these formats to :func:`convert_ui`.
"""

from __future__ import annotations

import importlib
from typing import Any

from partwire.codec import loads
from partwire.errors import LossError
from partwire.projection import Loss, log_losses

__all__ = ["UI_FORMATS", "convert_ui"]

UI_FORMATS = {"ai-sdk-ui": "partwire.ui.ai_sdk", "ai-sdk-model": "partwire.ui.ai_sdk_model",
              "ag-ui": "partwire.ui.ag_ui"}
"""Each chat-UI format's name, and the module that reads and writes it."""


def convert_ui(data: Any, *, source: str, target: str, strict: bool = False,
               **kwargs: Any) -> tuple[Any, tuple[Loss, ...]]:
    """Convert ``data`` when ``source`` or ``target`` is a chat-UI format; ``kwargs`` go to
    :func:`partwire.convert.convert` for the leg to or from the other format."""
    from partwire.convert import CANONICAL, convert

    losses: list[Loss] = []
    if source in UI_FORMATS:
        read = importlib.import_module(UI_FORMATS[source]).from_wire(data)
        _report(read.losses, strict, source)
        losses.extend(read.losses)
        data, source = read.value, CANONICAL
    if target in UI_FORMATS:
        if source != CANONICAL or not isinstance(data, list):
            jsonl, more = convert(data, source=source, target=CANONICAL, strict=strict,
                                  options=kwargs.get("options"))
            losses.extend(more)
            data = loads(jsonl, strict=True)
        written = importlib.import_module(UI_FORMATS[target]).to_wire(data)
        _report(written.losses, strict, target)
        return written.value, (*losses, *written.losses)
    output, more = convert(data, source=source, target=target, strict=strict, **kwargs)
    return output, (*losses, *more)


def _report(losses: tuple[Loss, ...], strict: bool, name: str) -> None:
    if strict and losses:
        raise LossError(losses, name)
    log_losses(losses)

