"""The coroutine API gives the synchronous store's answers without blocking the event loop."""

from __future__ import annotations

import asyncio

import pytest

from partwire.codec import dumps
from partwire.store import DEFERRED_INDEX, ExpectLastError, open_async_store
from tests.store._events import turn_history, user


async def test_async_store_round_trip(store_url: str) -> None:
    """Appends, queries, fork and export work as coroutines on both backends."""
    async with await open_async_store(store_url) as store:
        first = await store.append("s", turn_history()[:3], expect_last=None)
        await store.append("s", turn_history()[3:], expect_last=first.last_event_id)
        assert await store.export_bytes("s") == dumps(turn_history())
        assert [c.call_id for c in await store.pending_tool_calls()] == ["tu_C"]
        assert [h.event_id for h in await store.search("flaky")] == ["E01"]
        assert (await store.session("s")).event_count == 7
        compaction = await store.latest_compaction("s")
        assert compaction is not None
        assert compaction.summary == "second summary"
        assert await store.fork("s", "E02", "s2") == "s2"
        assert len(await store.load("s2")) == 2
        with pytest.raises(ExpectLastError):
            await store.append("s", [user("late", "x")], expect_last="E01")


async def test_concurrent_tasks_append_in_order(store_url: str) -> None:
    """Tasks appending at once through one async store all land, each in its own order."""
    async with await open_async_store(store_url) as store:

        async def writer(k: int) -> None:
            for n in range(20):
                await store.append("s", [user(f"T{k}-{n:02d}", "x")])

        await asyncio.gather(*(writer(k) for k in range(4)))
        ids = [e.id for e in await store.load("s")]
        assert len(ids) == 80
        for k in range(4):
            assert [i for i in ids if i.startswith(f"T{k}-")] == [f"T{k}-{n:02d}" for n in range(20)]


async def test_async_index_after_a_large_append(store_url: str) -> None:
    """index() as a coroutine indexes what a large append left, and says how many events."""
    events = [user(f"U{n:05d}", f"note {n} lantern") for n in range(DEFERRED_INDEX + 5)]
    async with await open_async_store(store_url) as store:
        await store.append("s", events)
        assert await store.index() == len(events)
        assert await store.index() == 0
        assert len(await store.search("lantern", limit=100_000)) == len(events)
