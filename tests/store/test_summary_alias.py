"""SessionSummary names its session ``session_id``, as every other store record; ``id`` is a deprecated alias."""

from __future__ import annotations

from pathlib import Path

import pytest

from partwire.messages import UserMessage
from partwire.store import open_store


def test_session_id_is_the_name_and_id_warns(tmp_path: Path) -> None:
    """``session_id`` matches a SearchHit's; ``id`` gives the same value with a DeprecationWarning."""
    store = open_store(tmp_path / "s.db")
    try:
        store.append("s1", [UserMessage("find the needle")])
        (summary,) = store.sessions()
        (hit,) = store.search("needle")
    finally:
        store.close()
    assert summary.session_id == hit.session_id == "s1"
    with pytest.warns(DeprecationWarning, match="session_id"):
        assert summary.id == "s1"
