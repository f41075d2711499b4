"""Reading an import ahead of its writes: batch k+1 is read, validated and derived in a second
thread while the database indexes and commits batch k.

Reading and validating lines (pydantic) and deriving rows hold the GIL; Python's ``sqlite3``
releases it while SQLite runs a statement, and the two longest statements of a SQLite batch, the
full-text index's ``INSERT ... SELECT`` and the ``COMMIT``, run wholly inside SQLite. So the
reader starts on the next batch only when the writer reaches them (:meth:`BatchReader.resume`):
started earlier, it would hold the GIL while the writer's row-by-row inserts each wait to take it
back (up to the interpreter's switch interval, 5 ms, per row).

The rows are derived for the session as the writer left it after the previous batch; the writer
uses them only if it finds the session so under its lock (:meth:`Batch.rows_for`), else it derives
again, so another writer in between changes nothing but the speed. The reader never touches the
database connection.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Final

from partwire.codec import Record
from partwire.history import HistoryEvent

from ._backlog import DEFERRED_INDEX
from ._derive import Derived, SessionTotals, derive
from ._errors import StoreError

__all__ = ["Batch", "BatchReader"]

_STOP: Final = None


@dataclass(slots=True)
class Batch:
    """A batch of decoded lines, and its rows when they could be derived ahead."""

    items: list[tuple[HistoryEvent, bytes]] = field(default_factory=list)
    """The events and their verbatim lines."""
    size: int = 0
    """Bytes of the lines, newlines included (what ``progress`` counts)."""
    problems: list[str] = field(default_factory=list)
    """What the reader reported about these lines."""
    after: SessionTotals | None = None
    """The session's totals the rows were derived after (``None``: not derived ahead)."""
    derived: Derived | None = None
    """The rows of ``items`` appended after ``after``."""
    totals: SessionTotals | None = None
    """The session's totals after them."""

    with_texts: bool = True
    """Whether ``derived`` holds the searchable texts (a batch that the writer indexes inline)."""

    def rows_for(
        self, current: SessionTotals, new: list[tuple[HistoryEvent, bytes]], *, with_texts: bool
    ) -> tuple[Derived, SessionTotals] | None:
        """The rows derived ahead, if the session is as they assumed, every item is new and the
        texts were derived as the writer needs them."""
        if (self.derived is None or self.totals is None or len(new) != len(self.items)
                or self.after != current or self.with_texts != with_texts):
            return None
        return self.derived, self.totals


class BatchReader:
    """Reads ``records`` in batches of ``size`` in a thread, one batch ahead of the writer.

    The writer calls :meth:`next` for a batch, :meth:`resume` once per batch as soon as it no
    longer needs the GIL (or when it is done with the batch), and :meth:`close` at the end.
    With ``ahead=False`` there is no thread: :meth:`next` reads the batch in the caller's thread
    (for an iterator that must stay in the thread that made it), and the writer derives its rows.
    """

    def __init__(self, session_id: str, records: Iterable[Record], size: int, *, ahead: bool = True) -> None:
        self._session_id = session_id
        self._records = records
        self._size = size
        self._ready: queue.SimpleQueue[Batch | BaseException | None] = queue.SimpleQueue()
        self._go: queue.SimpleQueue[SessionTotals | None] = queue.SimpleQueue()
        self._resumed = True
        self._inline = None if ahead else iter(records)
        self._thread = None
        if ahead:
            self._thread = threading.Thread(target=self._run, name="partwire-store-import", daemon=True)
            self._thread.start()

    def next(self) -> Batch | None:
        """The next batch (``None`` after the last); raises what reading or validating raised."""
        if self._inline is not None:
            return self._read(self._inline)
        item = self._ready.get()
        if isinstance(item, BaseException):
            raise item
        self._resumed = item is None
        return item

    def resume(self, totals: SessionTotals) -> None:
        """Start reading the next batch, to be derived after ``totals`` (a no-op if already called)."""
        if not self._resumed:
            self._resumed = True
            self._go.put(replace(totals))

    def close(self) -> None:
        """Stop reading (after the batch being read, if any) and wait for the thread."""
        if self._thread is None:
            return
        self._resumed = True
        self._go.put(_STOP)  # read after any go already sent; left unread if the thread has ended
        self._thread.join()

    def _run(self) -> None:
        try:
            records = iter(self._records)
            after: SessionTotals | None = None
            while True:
                batch = self._read(records)
                if batch is None:
                    self._ready.put(None)
                    return
                if after is not None:
                    batch.after, batch.totals = after, replace(after)
                    # As the writer will if every item is new: texts only for a batch it indexes inline.
                    batch.with_texts = len(batch.items) <= DEFERRED_INDEX
                    batch.derived = derive(self._session_id, batch.items, batch.totals,
                                           with_texts=batch.with_texts)
                self._ready.put(batch)
                after = self._go.get()
                if after is _STOP:
                    return
        except BaseException as exc:  # handed to the writer, which raises it
            self._ready.put(exc)

    def _read(self, records: Iterable[Record]) -> Batch | None:
        batch = Batch()
        items, problems = batch.items, batch.problems
        size = 0
        for record in records:
            for problem in record.problems:
                if problem.kind == "torn_line":
                    raise StoreError(f"{problem}: not imported (repair the file and import it again)")
                problems.append(str(problem))
            items.append((record.event, record.raw))
            size += len(record.raw) + 1
            if len(items) >= self._size:
                break
        batch.size = size
        return batch if items else None
