"""``partwire export --format parquet`` and ``partwire import``: files and store sessions to
Parquet and back, byte for byte, a row group at a time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from partwire import AssistantMessage, TaskMetadataEvent, UserMessage
from partwire.cli import main
from partwire.codec import dump, dumps
from partwire.history import HistoryEvent
from partwire.store import open_store

T0 = datetime(2026, 5, 1, tzinfo=UTC)


def _history(n: int, task: str | None = None) -> list[HistoryEvent]:
    events: list[HistoryEvent] = [TaskMetadataEvent(task_id=task, created_at=T0)] if task else []
    for i in range(n):
        at = T0 + timedelta(minutes=i)
        events += [UserMessage(f"question {i}", created_at=at),
                   AssistantMessage(f"answer {i}", model="openai:gpt-5", created_at=at)]
    return events


def test_files_export_to_parquet_and_import_back_byte_identical(tmp_path: Path) -> None:
    """JSONL files go to one Parquet file in small row groups and come back as the same bytes,
    each under its session id (the task id, else the file name)."""
    a, b = _history(5), _history(3, task="task-b")
    dump(a, tmp_path / "a.jsonl")
    dump(b, tmp_path / "b.jsonl")
    out = tmp_path / "h.parquet"
    assert main(["export", "--format", "parquet", "-o", str(out), "--row-group-rows", "4",
                 str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 0
    assert pq.ParquetFile(out).metadata.num_row_groups == 5  # 17 rows, 4 per group
    assert main(["import", str(out), "-o", str(tmp_path / "back")]) == 0
    assert (tmp_path / "back" / "a.jsonl").read_bytes() == dumps(a)
    assert (tmp_path / "back" / "task-b.jsonl").read_bytes() == dumps(b)


def test_store_sessions_export_as_store_ls_chooses_them(tmp_path: Path) -> None:
    """``--store --limit N`` exports the N most recently active sessions; imported into another
    store they export the same lines."""
    db, other = tmp_path / "s.sqlite", tmp_path / "t.sqlite"
    with open_store(db) as store:
        store.append("old", _history(2))
        store.append("new", [*_history(1), UserMessage("later", created_at=T0 + timedelta(days=1))])
    out = tmp_path / "s.parquet"
    assert main(["export", "--format", "parquet", "--db", str(db), "--limit", "1", "-o", str(out)]) == 0
    assert set(pq.read_table(out, columns=["session_id"]).column(0).to_pylist()) == {"new"}
    assert main(["import", str(out), "--db", str(other)]) == 0
    with open_store(db) as store, open_store(other) as copy:
        assert [s.session_id for s in copy.sessions()] == ["new"]
        assert copy.export_bytes("new") == store.export_bytes("new")
    assert main(["export", "--db", str(db), "--session", "old", "--session", "new", "-o", str(out)]) == 0
    assert pq.read_table(out, columns=["session_id"]).column(0).unique().to_pylist() == ["old", "new"]


@pytest.mark.parametrize(("argv", "message"), [
    (["export", "-o", "x.parquet"], "nothing to export"),
    (["export", "-o", "x.parquet", "--limit", "2", "a.jsonl"], "--limit and --session choose sessions of the store"),
    (["export", "-o", "x.parquet", "missing.jsonl"], "missing.jsonl: no such file"),
    (["import", "a.jsonl", "-o", "d"], "a.jsonl: not a readable Parquet file"),
    (["import", "x.parquet"], "say where to"),
])
def test_bad_command_lines_end_in_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    argv: list[str], message: str,
) -> None:
    """A command line that cannot work exits 2 with one ``partwire: error:`` line naming why."""
    monkeypatch.chdir(tmp_path)
    dump(_history(1), tmp_path / "a.jsonl")
    (tmp_path / "x.parquet").write_bytes(b"")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("partwire: error: ")
    assert message in err


def test_a_session_split_across_the_file_imports_whole(tmp_path: Path) -> None:
    """Rows of one session that are not adjacent in the Parquet file (two files of one task)
    come back as one JSONL file holding both runs, in order."""
    first, other, second = _history(1, task="t"), _history(1, task="u"), _history(2)
    dump(first, tmp_path / "a.jsonl")
    dump(other, tmp_path / "b.jsonl")
    dump(second, tmp_path / "t.jsonl")  # no task id: the file name, "t", names the session
    out = tmp_path / "h.parquet"
    files = [str(tmp_path / name) for name in ("a.jsonl", "b.jsonl", "t.jsonl")]
    assert main(["export", "-o", str(out), *files]) == 0
    assert main(["import", str(out), "-o", str(tmp_path / "back")]) == 0
    assert (tmp_path / "back" / "t.jsonl").read_bytes() == dumps(first) + dumps(second)
    assert (tmp_path / "back" / "u.jsonl").read_bytes() == dumps(other)
