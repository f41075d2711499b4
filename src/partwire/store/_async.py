"""The store's API as coroutines, for asyncio code: :class:`AsyncStore` and :func:`open_async_store`.

Each call runs the synchronous :class:`~partwire.store.Store` in a worker thread
(``asyncio.to_thread``), so the event loop never blocks on the database; the guarantees are the
synchronous store's, on both backends. A store serialises its own calls: open one per task that
needs to read in parallel.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from datetime import datetime
from types import TracebackType

from partwire.history import CompactionEvent, HistoryEvent
from partwire.pricing import PriceTable

from ._api import (
    UNSET,
    AppendResult,
    ImportResult,
    SearchHit,
    SessionSummary,
    Store,
    ToolCallRecord,
    UsageTotal,
    _Unset,
)
from ._open import open_store

__all__ = ["AsyncStore", "open_async_store"]


async def open_async_store(url: str | os.PathLike[str]) -> AsyncStore:
    """Open the store at ``url`` (see :func:`~partwire.store.open_store`) without blocking the loop."""
    return AsyncStore(await asyncio.to_thread(open_store, url))


class AsyncStore:
    """A :class:`~partwire.store.Store` whose methods are coroutines."""

    def __init__(self, store: Store) -> None:
        self.sync = store
        """The synchronous store underneath."""

    async def __aenter__(self) -> AsyncStore:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the connection."""
        await asyncio.to_thread(self.sync.close)

    async def append(
        self, session_id: str, events: Iterable[HistoryEvent], *, expect_last: str | _Unset | None = UNSET
    ) -> AppendResult:
        """See :meth:`Store.append`."""
        batch = list(events)
        return await asyncio.to_thread(self.sync.append, session_id, batch, expect_last=expect_last)

    async def import_file(self, path: str | os.PathLike[str], session_id: str | None = None) -> ImportResult:
        """See :meth:`Store.import_file`."""
        return await asyncio.to_thread(self.sync.import_file, path, session_id)

    async def export_bytes(self, session_id: str, *, until: str | None = None) -> bytes:
        """See :meth:`Store.export_bytes`."""
        return await asyncio.to_thread(self.sync.export_bytes, session_id, until=until)

    async def load(self, session_id: str, *, until: str | None = None) -> list[HistoryEvent]:
        """See :meth:`Store.load`."""
        return await asyncio.to_thread(self.sync.load, session_id, until=until)

    async def sessions(self, *, limit: int | None = None) -> list[SessionSummary]:
        """See :meth:`Store.sessions`."""
        return await asyncio.to_thread(self.sync.sessions, limit=limit)

    async def session(self, session_id: str) -> SessionSummary:
        """See :meth:`Store.session`."""
        return await asyncio.to_thread(self.sync.session, session_id)

    async def pending_tool_calls(self, session_id: str | None = None) -> list[ToolCallRecord]:
        """See :meth:`Store.pending_tool_calls`."""
        return await asyncio.to_thread(self.sync.pending_tool_calls, session_id)

    async def tool_calls(
        self, session_id: str | None = None, *, status: str | None = None, name: str | None = None
    ) -> list[ToolCallRecord]:
        """See :meth:`Store.tool_calls`."""
        return await asyncio.to_thread(self.sync.tool_calls, session_id, status=status, name=name)

    async def latest_compaction(self, session_id: str) -> CompactionEvent | None:
        """See :meth:`Store.latest_compaction`."""
        return await asyncio.to_thread(self.sync.latest_compaction, session_id)

    async def usage(self, session_id: str | None = None) -> list[UsageTotal]:
        """See :meth:`Store.usage`."""
        return await asyncio.to_thread(self.sync.usage, session_id)

    async def search(self, text: str, *, session_id: str | None = None, limit: int = 20) -> list[SearchHit]:
        """See :meth:`Store.search`."""
        return await asyncio.to_thread(self.sync.search, text, session_id=session_id, limit=limit)

    async def fork(self, session_id: str, event_id: str, new_session_id: str | None = None) -> str:
        """See :meth:`Store.fork`."""
        return await asyncio.to_thread(self.sync.fork, session_id, event_id, new_session_id)

    async def reprice(self, session_id: str | None = None, *, table: PriceTable | None = None,
                      at: datetime | None = None) -> int:
        """See :meth:`Store.reprice`."""
        return await asyncio.to_thread(self.sync.reprice, session_id, table=table, at=at)

    async def rebuild(self, session_id: str | None = None) -> None:
        """See :meth:`Store.rebuild`."""
        await asyncio.to_thread(self.sync.rebuild, session_id)

    async def index(self) -> int:
        """See :meth:`Store.index`."""
        return await asyncio.to_thread(self.sync.index)
