"""Search over a store holding one very long line: bounded memory and time, the same hits.

A search cuts each hit's snippet from its stored line. A line longer than
``partwire.store._snippet.WHOLE_LINE`` is read a window at a time, so the memory a search takes
does not grow with the line (it once held every hit's whole line and all its words at once: a
52 MB text line took 1.46 GB and 17 s on every search).
"""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

import pytest

from partwire import AssistantMessage, HistoryEvent, ThinkingPart, ToolMessage, UserMessage
from partwire.codec import dumps
from partwire.store import SearchHit, open_store

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "lorem", "ipsum", "kappa"]
LINE_BYTES = 6_000_000
MEMORY_BOUND = 4_000_000
"""What a search may allocate at its peak (Python allocations, tracemalloc): less than the line."""


def _text(size: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(size // 6))


@pytest.fixture(scope="module")
def long_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A SQLite store with a 6 MB user text, a long thinking part and a long tool output."""
    folder = tmp_path_factory.mktemp("long")
    history: list[HistoryEvent] = [
        UserMessage(_text(LINE_BYTES, 1) + " the quoted \"needles\" at the very end\nfin"),
        AssistantMessage([ThinkingPart(text="Thinking of " + _text(2_000_000, 2) + " haystacks")]),
        ToolMessage("Output: " + _text(2_000_000, 3) + " zebras", call_id="tu_1", tool_name="ls"),
    ]
    path = folder / "long.jsonl"
    path.write_bytes(dumps(history))
    url = str(folder / "store.sqlite")
    with open_store(url) as store:
        store.import_file(str(path), "long")
    return url


def _search(url: str, words: str) -> tuple[list[SearchHit], int]:
    with open_store(url) as store:
        tracemalloc.start()
        try:
            hits = store.search(words)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return list(hits), peak


def test_a_match_at_the_end_of_a_6_mb_line_is_found_in_bounded_memory(long_store: str) -> None:
    """The last words of a 6 MB text are found, their snippet cut around them, with a peak
    allocation well under the line's size."""
    hits, peak = _search(long_store, "needle")
    assert peak < MEMORY_BOUND, f"a search allocated {peak:,} bytes at its peak"
    [hit] = hits
    assert (hit.part_index, hit.part_type) == (0, "text")
    assert hit.snippet.startswith("...")
    assert hit.snippet.endswith('the quoted "[needles]" at the very end\nfin')


def test_a_long_thinking_part_and_a_long_tool_output_keep_their_kinds(long_store: str) -> None:
    """Hits in long lines name the part's type (a thinking part) and a tool output as such."""
    [thinking], peak = _search(long_store, "haystack")
    assert peak < MEMORY_BOUND
    assert (thinking.part_type, thinking.snippet.split()[-1]) == ("thinking", "[haystacks]")
    [output], _ = _search(long_store, "zebra")
    assert (output.part_type, output.part_index) == ("tool_output", -1)


def test_a_long_line_gives_the_snippet_a_short_one_gives(long_store: str, tmp_path: Path) -> None:
    """The snippet cut from a window of a long line is the one the whole line gives when short."""
    hits, _ = _search(long_store, "gamma")
    [long_hit] = [h for h in hits if h.part_type == "text"]
    prefix = _text(LINE_BYTES, 1)[:2000]
    url = str(tmp_path / "short.sqlite")
    with open_store(url) as store:
        store.append("short", [UserMessage(prefix)])
    [short_hit], _ = _search(url, "gamma")
    assert long_hit.snippet == short_hit.snippet
