"""Stored lines back to events, as the codec's tolerant reader decodes a file."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ValidationError

from partwire.codec._reader import LineDecoder, validate_line
from partwire.history import HistoryEvent
from partwire.messages import FILLED_IN

from ._errors import StoreError

__all__ = ["decode_lines"]


def decode_lines(lines: Iterable[bytes]) -> list[HistoryEvent]:
    """Stored lines to events as the codec's tolerant reader decodes a file: pydantic-core's
    ``validate_json`` on each line's bytes, the reader's slow path (migrations, unknown types kept)
    for a line it refuses. One event per line, always."""
    events: list[HistoryEvent] = []
    append = events.append
    validate = validate_line
    decoder: LineDecoder | None = None
    for line_no, line in enumerate(lines, 1):
        filled = FILLED_IN[0]
        try:
            event = validate(line)
        except ValidationError:
            pass
        else:
            if FILLED_IN[0] == filled:  # else it lacks v, id or created_at: the slow path fills them
                append(event)
                continue
        decoder = decoder or LineDecoder()
        record = decoder.slow(bytes(line), line_no)
        if record is None:  # a blank stored line: impossible through this API
            raise StoreError(f"stored line {line_no} is blank")
        append(record.event)
    return events
