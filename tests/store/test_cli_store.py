"""``partwire store``: every verb, as a program and in-process, on SQLite and PostgreSQL."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from partwire.cli import main
from partwire.cli._example import example_history
from partwire.cli._store import default_db, make_progress
from partwire.codec import dumps
from partwire.render import to_html, to_markdown, to_text
from partwire.store import SCHEMA_VERSION, open_store
from partwire.store._api import Backend
from partwire.store._postgres import PostgresBackend
from partwire.store._sqlite import SqliteBackend
from tests.store._events import turn_history

SESSION = "sess_tidydates_42"


def _run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "partwire", *args], capture_output=True, check=False)


def _main(capsys: pytest.CaptureFixture[bytes], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out.decode(), err.decode()


def test_example_import_export_round_trip_as_a_program(store_url: str, tmp_path: Path) -> None:
    """``partwire example > h.jsonl; store import h.jsonl; store export ID`` prints h.jsonl byte for byte."""
    example = _run("example")
    assert example.returncode == 0
    history = tmp_path / "h.jsonl"
    history.write_bytes(example.stdout)
    imported = _run("store", "--db", store_url, "import", str(history))
    assert imported.returncode == 0, imported.stderr
    assert f"session {SESSION}: 25 event(s) added".encode() in imported.stdout
    exported = _run("store", "--db", store_url, "export", SESSION)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == history.read_bytes()


def test_show_renders_a_stored_session_in_every_format(store_url: str, tmp_path: Path,
                                                      capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """``store show ID --format F [-o OUT]`` gives partwire.render's output for the stored events."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    assert _main(capsysbinary, "store", "--db", store_url, "import", str(path))[0] == 0
    events = example_history()
    assert _main(capsysbinary, "store", "--db", store_url, "show", SESSION)[1] == to_text(events)
    markdown = _main(capsysbinary, "store", "--db", store_url, "show", SESSION, "--format", "markdown")[1]
    assert markdown == to_markdown(events)  # titled by the task, which the example has
    page = tmp_path / "s.html"
    code = _main(capsysbinary, "store", "--db", store_url, "show", SESSION, "--format", "html", "-o", str(page))[0]
    assert code == 0
    assert page.read_text(encoding="utf-8") == to_html(events)
    untitled = [e for e in events if e.type != "task_metadata"]
    path.write_bytes(dumps(untitled))
    assert _main(capsysbinary, "store", "--db", store_url, "import", str(path), "--session", "bare")[0] == 0
    shown = _main(capsysbinary, "store", "--db", store_url, "show", "bare", "--format", "markdown")[1]
    assert shown.startswith("# bare\n")


def test_query_verbs(store_url: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """ls, show, search, pending, stats and fork print what the store holds."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(turn_history()))
    assert _main(capsysbinary, "store", "--db", store_url, "import", str(path))[0] == 0
    code, out, _ = _main(capsysbinary, "store", "--db", store_url, "ls")
    assert code == 0
    assert out.splitlines()[0].split() == ["SESSION", "UPDATED", "MODEL", "MSGS", "IN", "OUT", "COST", "TITLE"]
    assert out.splitlines()[1].split()[:7] == ["s", "2026-03-01", "12:00:07", "openai:gpt-5", "5", "150", "15"]
    assert "$0.0125" in out
    out = _main(capsysbinary, "store", "--db", store_url, "show", "s")[1]
    assert "Find the flaky timezone test" in out
    out = _main(capsysbinary, "store", "--db", store_url, "search", "flaky")[1]
    assert out == "s E01 parts[0] text: Find the [flaky] timezone test\n"
    out = _main(capsysbinary, "store", "--db", store_url, "pending")[1]
    assert out.splitlines()[1].split()[:3] == ["s", "tu_C", "run_shell"]
    out = _main(capsysbinary, "store", "--db", store_url, "stats", "--session", "s")[1]
    assert any(line.split()[:3] == ["s", "openai:gpt-5", "1"] for line in out.splitlines())
    assert any(line.split()[:2] == ["(all)", "anthropic:claude-sonnet-4-6"] for line in out.splitlines())
    code, out, _ = _main(capsysbinary, "store", "--db", store_url, "fork", "s", "E03", "--as", "s2")
    assert (code, out) == (0, "s2\n")
    assert _main(capsysbinary, "store", "--db", store_url, "export", "s2")[1].encode() == dumps(turn_history()[:3])


def test_torn_file_is_one_error_line_and_loses_nothing(
    store_url: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Importing a file with a torn last line fails with one line and keeps the stored session."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(turn_history()[:2]))
    _main(capsysbinary, "store", "--db", store_url, "import", str(path))
    path.write_bytes(dumps(turn_history()) + b'{"v":1,"ty')
    code, out, err = _main(capsysbinary, "store", "--db", store_url, "import", str(path))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("partwire: error: ")
    assert "s.jsonl:8: torn final line" in err
    with open_store(store_url) as store:
        assert store.export_bytes("s") == dumps(turn_history()[:2])


def test_unknown_event_is_reported_and_kept(
    store_url: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """An unknown event type is named on stderr and stored verbatim."""
    data = dumps(turn_history()[:1]) + b'{"v":1,"type":"hologram","id":"H1","created_at":"2026-01-01T00:00:00Z"}\n'
    path = tmp_path / "odd.jsonl"
    path.write_bytes(data)
    code, _, err = _main(capsysbinary, "store", "--db", store_url, "import", str(path))
    assert code == 0
    assert err == f"{path}:2: unknown event type 'hologram' at type (stored verbatim)\n"
    assert _main(capsysbinary, "store", "--db", store_url, "export", "odd")[1].encode() == data


def _backend(url: str) -> Backend:
    return PostgresBackend(url) if url.startswith("postgresql://") else SqliteBackend(url)


def test_newer_schema_is_one_error_line(store_url: str, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A database of a newer schema ends the command with one clear line, exit status 2."""
    with open_store(store_url):
        pass
    backend = _backend(store_url)
    with backend.write() as cur:
        cur.execute("UPDATE store_meta SET value = '7' WHERE key = 'schema_version'")
    backend.close()
    code, _, err = _main(capsysbinary, "store", "--db", store_url, "ls")
    assert code == 2
    assert err.startswith(f"partwire: error: the database has store schema version 7, newer than {SCHEMA_VERSION}")
    assert err.count("\n") == 1


def test_unreachable_server_is_one_error_line(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A PostgreSQL URL nobody answers ends with one line naming it, exit status 2."""
    code, _, err = _main(capsysbinary, "store", "--db", "postgresql://me:pw@127.0.0.1:1/db", "ls")
    assert code == 2
    assert err.startswith("partwire: error: cannot connect to PostgreSQL at postgresql://me:***@127.0.0.1:1/db")
    assert "pw" not in err


def test_missing_session_and_file(store_url: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Exporting an unknown session or importing a missing file is one error line."""
    assert _main(capsysbinary, "store", "--db", store_url, "export", "ghost")[2] == "partwire: error: no session 'ghost'\n"
    err = _main(capsysbinary, "store", "--db", store_url, "import", str(tmp_path / "none.jsonl"))[2]
    assert err == f"partwire: error: {tmp_path / 'none.jsonl'}: no such file\n"


def test_default_db_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                             capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Without --db the store is $PARTWIRE_STORE, else store.sqlite under the user's data directory."""
    monkeypatch.delenv("PARTWIRE_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    if sys.platform.startswith("linux"):
        assert default_db() == str(tmp_path / "data" / "partwire" / "store.sqlite")
    monkeypatch.setenv("PARTWIRE_STORE", str(tmp_path / "env.sqlite"))
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    assert _main(capsysbinary, "store", "import", str(path))[0] == 0
    with open_store(tmp_path / "env.sqlite") as store:
        assert [s.session_id for s in store.sessions()] == [SESSION]


class _Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal() -> None:
    """A terminal gets a tqdm bar counting bytes; anything else gets none."""
    assert make_progress(io.StringIO(), 100, "h.jsonl") is None
    terminal = _Terminal()
    bar = make_progress(terminal, 1000, "h.jsonl")
    assert bar is not None
    bar.update(500)
    bar.refresh()  # tqdm redraws at most every 0.1 s; draw now
    bar.close()
    assert "h.jsonl" in terminal.getvalue()
    assert "50%" in terminal.getvalue()


def test_plain_output_when_not_a_terminal(tmp_path: Path) -> None:
    """An import whose stderr is a pipe prints the summary line and no progress bar."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    done = _run("store", "--db", str(tmp_path / "s.sqlite"), "import", str(path))
    assert done.returncode == 0
    assert done.stderr == b""
    assert done.stdout == f"{path}: session {SESSION}: 25 event(s) added, 0 already stored\n".encode()


def test_progress_bar_on_a_real_terminal(tmp_path: Path) -> None:
    """An import whose stderr is a pseudo-terminal draws tqdm's bar while it runs, and stdout still gets the summary."""
    import fcntl
    import pty
    import struct
    import termios

    path = tmp_path / "big.jsonl"
    path.write_bytes(dumps(turn_history()))
    master, slave = pty.openpty()
    # A new pseudo-terminal is 0 columns wide, and tqdm draws nothing in no columns.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        done = subprocess.run([sys.executable, "-m", "partwire", "store", "--db", str(tmp_path / "s.sqlite"),
                               "import", str(path)], stdout=subprocess.PIPE, stderr=slave, check=False)
        os.close(slave)
        drawn = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(master)
    assert done.returncode == 0
    assert done.stdout.endswith(b"7 event(s) added, 0 already stored\n")
    assert b"big.jsonl:" in drawn
    assert b"%|" in drawn
