"""``partwire store export`` of many sessions in one run: all, the most recent, or those named."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from partwire.cli import main
from partwire.cli._store import session_file_name
from partwire.store import open_store
from tests.store._events import turn_history, user


def _main(capsys: pytest.CaptureFixture[bytes], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out.decode(), err.decode()


@pytest.fixture
def filled(store_url: str) -> str:
    """A store with 30 sessions (one with a ``/`` in its id), the last appended most recently."""
    with open_store(store_url) as store:
        for n in range(29):
            store.append(f"s{n:02d}", [user(f"U{n}", f"question number {n}", t=n)])
        store.append("team/alice", turn_history())
    return store_url


def test_all_sessions_export_in_one_run(filled: str, tmp_path: Path,
                                        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """``export --all --out DIR`` writes every session to its own file, each byte-identical to
    what ``export SESSION_ID`` prints, and says how many it wrote."""
    out = tmp_path / "all"
    code, stdout, stderr = _main(capsysbinary, "store", "--db", filled, "export", "--all", "--out", str(out))
    assert (code, stdout) == (0, "")
    assert stderr.startswith(f"30 session(s) exported to {out} (")
    files = sorted(p.name for p in out.iterdir())
    assert len(files) == 30
    assert "team%2Falice.jsonl" in files
    with open_store(filled) as store:
        for summary in store.sessions():
            written = (out / session_file_name(summary.session_id)).read_bytes()
            assert written == store.export_bytes(summary.session_id)


def test_limit_exports_the_most_recent_as_ls_lists_them(filled: str, tmp_path: Path,
                                                        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """``--all --limit N`` exports the N sessions ``ls --limit N`` lists, and no other."""
    out = tmp_path / "recent"
    assert _main(capsysbinary, "store", "--db", filled, "export", "--all", "--limit", "3", "--out", str(out))[0] == 0
    with open_store(filled) as store:
        recent = [s.session_id for s in store.sessions(limit=3)]
    assert sorted(p.name for p in out.iterdir()) == sorted(session_file_name(s) for s in recent)


def test_named_sessions_export_into_a_folder(filled: str, tmp_path: Path,
                                             capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Several SESSION_IDs with ``--out`` write those sessions (a repeated id once)."""
    out = tmp_path / "named"
    code, _, _ = _main(capsysbinary, "store", "--db", filled, "export", "s01", "s02", "s01", "--out", str(out))
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["s01.jsonl", "s02.jsonl"]


@pytest.fixture
def small(tmp_path: Path) -> str:
    """A SQLite store with two sessions (misuse is refused the same on either backend)."""
    url = str(tmp_path / "small.sqlite")
    with open_store(url) as store:
        store.append("s01", [user("U1", "one")])
        store.append("s02", [user("U2", "two")])
    return url


@pytest.mark.parametrize(("args", "message"), [
    (["s01", "s02"], "several sessions go to files: add --out DIR"),
    (["--all"], "several sessions go to files: add --out DIR"),
    (["s01", "--all", "--out", "x"], "give SESSION_IDs or --all, not both"),
    (["s01", "--limit", "2"], "--limit chooses among all sessions: add --all"),
    (["s01", "s02", "--out", "x", "--until", "U1"], "--until names an event of one session"),
    ([], "nothing to export"),
    (["s01", "ghost", "--out", "x"], "no session 'ghost'"),
])
def test_export_misuse_is_refused_before_anything_is_written(
        small: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], args: list[str],
        message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong combination of sessions and options exits 2 with why, and writes no file."""
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = _main(capsysbinary, "store", "--db", small, "export", *args)
    assert code == 2
    assert stdout == ""
    assert message in stderr
    assert not (tmp_path / "x").exists()


def test_bulk_export_shows_a_progress_bar_on_a_terminal(small: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal, the export counts sessions on a tqdm bar on stderr as it goes."""
    class Terminal:
        """stderr that says it is a terminal and keeps what is written."""

        def __init__(self) -> None:
            self.text: list[str] = []

        def isatty(self) -> bool:
            return True

        def write(self, text: str) -> int:
            self.text.append(text)
            return len(text)

        def flush(self) -> None:
            return None

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["store", "--db", small, "export", "--all", "--out", str(tmp_path / "bar")]) == 0
    drawn = "".join(terminal.text)
    assert "export: " in drawn
    assert "/2 [" in drawn  # tqdm's count of sessions done
    assert "2 session(s) exported" in drawn
