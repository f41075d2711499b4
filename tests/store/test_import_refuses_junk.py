"""``store import`` refuses a file with no readable event unless asked to store it verbatim."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from partwire.cli import main


def _junk(tmp_path: Path) -> Path:
    path = tmp_path / "junk.jsonl"
    path.write_bytes(base64.b64encode(os.urandom(3000)) + b"\n" + base64.b64encode(os.urandom(300)) + b"\n")
    return path


def test_a_file_with_no_readable_event_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Random base64 is refused with exit 2 and a reason, and no session is stored."""
    db = str(tmp_path / "s.db")
    assert main(["store", "--db", db, "import", str(_junk(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert "not a history file: none of its 2 line(s) is a JSON history event" in err
    assert "--verbatim" in err
    assert main(["store", "--db", db, "ls"]) == 0
    assert "junk" not in capsys.readouterr().out


def test_verbatim_stores_it_all_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--verbatim`` stores such a file, each line kept as an unknown event."""
    db = str(tmp_path / "s.db")
    assert main(["store", "--db", db, "import", "--verbatim", str(_junk(tmp_path))]) == 0
    assert "2 event(s) added" in capsys.readouterr().out


def test_an_empty_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty file holds no event: refused, saying so."""
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert main(["store", "--db", str(tmp_path / "s.db"), "import", str(path)]) == 2
    assert "it is empty" in capsys.readouterr().err
