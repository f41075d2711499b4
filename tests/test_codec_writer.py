"""The append-only writer: one line per event, torn-line repair, fsync policies, concurrent appenders."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from partwire import ErrorEvent, HistoryEvent, UnknownEvent, UserMessage
from partwire.codec import Writer, WriterClosedError, dump, dumps, encode, iter_records, load, read


def test_append_and_extend_write_one_line_each(tmp_path: Path) -> None:
    """Each appended event is one line, in order, and the file loads strictly."""
    path = tmp_path / "h.jsonl"
    events: list[HistoryEvent] = [UserMessage("a"), ErrorEvent(message="b"), UserMessage("c")]
    with Writer(path) as writer:
        writer.append(events[0])
        writer.extend(events[1:])
        writer.extend([])
    assert path.read_bytes() == dumps(events)
    assert load(path, strict=True) == events


def test_writer_appends_to_an_existing_file(tmp_path: Path) -> None:
    """A new writer appends after what is already there."""
    path = tmp_path / "h.jsonl"
    with Writer(path) as writer:
        writer.append(UserMessage("first"))
    with Writer(path) as writer:
        writer.append(UserMessage("second"))
    assert [e.text for e in load(path, strict=True) if isinstance(e, UserMessage)] == ["first", "second"]


def test_each_line_is_one_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line goes out in a single os.write call, newline included."""
    writes: list[bytes] = []
    real_write = os.write

    def spy(fd: int, data: bytes) -> int:
        writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    events = [UserMessage("a"), UserMessage("b")]
    with Writer(tmp_path / "h.jsonl") as writer:
        writer.extend(events)
    assert writes == [encode(e) + b"\n" for e in events]


def test_closed_writer_refuses_appends(tmp_path: Path) -> None:
    """Appending after close raises; closing twice is harmless."""
    writer = Writer(tmp_path / "h.jsonl")
    writer.close()
    writer.close()
    assert writer.closed
    with pytest.raises(WriterClosedError):
        writer.append(UserMessage("late"))


def test_unknown_fsync_policy_is_refused(tmp_path: Path) -> None:
    """A misspelt fsync policy fails at construction."""
    with pytest.raises(ValueError, match="fsync"):
        Writer(tmp_path / "h.jsonl", fsync="sometimes")  # type: ignore[arg-type]


# -- torn final line ---------------------------------------------------------------------------


def test_torn_final_line_is_replaced_by_an_unknown_event(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A torn tail is cut off and stored as an unknown event holding its text, with a WARNING."""
    path = tmp_path / "h.jsonl"
    good = encode(UserMessage("kept")) + b"\n"
    torn = encode(UserMessage("lost in the crash ✓"))[:-12]
    path.write_bytes(good + torn)
    with caplog.at_level(logging.WARNING, logger="partwire.codec"), Writer(path) as writer:
        writer.append(UserMessage("after"))
    events = load(path, strict=True)
    assert len(events) == 3
    repaired = events[1]
    assert isinstance(repaired, UnknownEvent)
    assert repaired.original_type is None
    assert repaired.raw == torn.decode()
    assert repaired.problem == "torn final line repaired by the writer"
    assert isinstance(events[2], UserMessage)
    assert events[2].text == "after"
    assert path.read_bytes().startswith(good)
    assert any(r.levelno == logging.WARNING and "torn" in r.getMessage() for r in caplog.records)


def test_torn_line_with_a_broken_character_keeps_the_rest(tmp_path: Path) -> None:
    """A tail cut inside a multi-byte character is kept, the broken character replaced."""
    path = tmp_path / "h.jsonl"
    line = encode(UserMessage("ab✓"))
    torn = line[: line.index("✓".encode()) + 2]
    path.write_bytes(torn)
    with Writer(path) as writer:
        writer.append(UserMessage("next"))
    events = load(path, strict=True)
    assert isinstance(events[0], UnknownEvent)
    assert events[0].raw == torn[:-2].decode() + "\ufffd"


def test_complete_final_line_only_gets_its_newline(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A whole last event missing only its newline is kept as is: the writer adds the newline."""
    path = tmp_path / "h.jsonl"
    first = encode(UserMessage("whole"))
    path.write_bytes(first)
    with caplog.at_level(logging.WARNING, logger="partwire.codec"), Writer(path) as writer:
        writer.append(UserMessage("next"))
    assert path.read_bytes() == first + b"\n" + encode(load(path)[1]) + b"\n"
    assert not [r for r in caplog.records if r.name == "partwire.codec"]


def test_tail_torn_by_another_process_after_our_first_append_is_repaired(tmp_path: Path) -> None:
    """A torn line left by another appender between two of our appends is repaired too."""
    path = tmp_path / "h.jsonl"
    with Writer(path) as writer:
        writer.append(UserMessage("one"))
        with path.open("ab") as other:
            other.write(b'{"v":1,"type":"mess')
        writer.append(UserMessage("two"))
    result = read(path)
    assert result.problems == []
    assert [type(e).__name__ for e in result.events] == ["UserMessage", "UnknownEvent", "UserMessage"]


def test_repaired_file_has_no_problems_left(tmp_path: Path) -> None:
    """After the writer repairs a torn tail, a strict read of the file succeeds."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(encode(UserMessage("a")) + b"\n" + b"\xe2\x9c")
    with Writer(path) as writer:
        writer.append(UserMessage("b"))
    assert all(r.understood for r in iter_records(path, strict=True))


# -- fsync -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("policy", "expected"), [("always", 3), ("on_close", 1), ("never", 0)])
def test_fsync_policies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str, expected: int) -> None:
    """always syncs after every append or extend, on_close once at close, never not at all."""
    calls: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd))
    writer = Writer(tmp_path / "h.jsonl", fsync=policy)  # type: ignore[arg-type]
    writer.append(UserMessage("a"))
    writer.append(UserMessage("b"))
    writer.extend([UserMessage("c"), UserMessage("d")])
    before_close = len(calls)
    writer.close()
    assert len(calls) == expected
    assert before_close == (3 if policy == "always" else 0)


def test_on_close_does_not_sync_when_nothing_was_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing a writer that wrote nothing does not call fsync."""
    calls: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd))
    Writer(tmp_path / "h.jsonl").close()
    assert calls == []


# -- concurrency -------------------------------------------------------------------------------

_APPENDER = textwrap.dedent(
    """
    import sys
    from partwire import UserMessage
    from partwire.codec import Writer

    path, tag = sys.argv[1], sys.argv[2]
    with Writer(path, fsync="never") as writer:
        for i in range(1000):
            # Lines of a few KB make interleaved writes likely if the lock did not hold.
            writer.append(UserMessage(f"{tag}-{i} " + tag * 3000, metadata={"tag": tag, "i": i}))
    """
)


def test_two_processes_appending_leave_intact_lines(tmp_path: Path) -> None:
    """Two processes appending 1,000 events each to one file leave 2,000 intact lines, each in order."""
    path = tmp_path / "shared.jsonl"
    procs = [
        subprocess.Popen([sys.executable, "-c", _APPENDER, str(path), tag], stderr=subprocess.PIPE)
        for tag in ("A", "B")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert len(lines) - 1 == 2000
    events = load(path, strict=True)
    for tag in ("A", "B"):
        seen = [e.metadata["i"] for e in events if e.metadata.get("tag") == tag]
        assert seen == list(range(1000))
    assert all(json.loads(line)["type"] == "message" for line in lines[:-1])


def test_threads_sharing_one_writer_leave_intact_lines(tmp_path: Path) -> None:
    """Several threads appending through one writer leave one intact line per event."""
    path = tmp_path / "h.jsonl"
    with Writer(path, fsync="never") as writer:

        def work(tag: str) -> None:
            for i in range(200):
                writer.append(UserMessage(tag * 2000, metadata={"tag": tag, "i": i}))

        threads = [threading.Thread(target=work, args=(tag,)) for tag in "ABCD"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    events = load(path, strict=True)
    assert len(events) == 800
    for tag in "ABCD":
        assert [e.metadata["i"] for e in events if e.metadata["tag"] == tag] == list(range(200))


# -- 11. leftovers of a killed dump --------------------------------------------------------------


def test_a_stale_temporary_file_is_removed_by_the_next_dump(tmp_path: Path) -> None:
    """A temporary file left by a dump killed with -9 is removed by the next dump of that file."""
    target = tmp_path / "h.jsonl"
    script = (
        "import os, sys\n"
        "from partwire.codec import dump\n"
        "from partwire import UserMessage\n"
        "def events():\n"
        "    yield UserMessage('a')\n"
        "    print('writing', flush=True)\n"
        "    sys.stdin.read()\n"  # blocks until killed
        "    yield UserMessage('b')\n"
        f"dump(events(), {str(target)!r})\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.stdout is not None
    assert child.stdout.readline() == "writing\n"
    child.kill()
    child.wait()
    (left,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    past = time.time() - 60
    os.utime(left, (past, past))
    dump([UserMessage("c")], target)
    assert [p.name for p in tmp_path.iterdir()] == ["h.jsonl"]
    assert len(load(target)) == 1


def test_a_live_writers_temporary_file_is_left_alone(tmp_path: Path) -> None:
    """A temporary file another writer still holds (locked), however old, is not removed."""
    target = tmp_path / "h.jsonl"
    script = (
        "import fcntl, os, sys\n"
        f"fd = os.open({str(tmp_path / '.h.jsonl.0123456789ab.tmp')!r}, os.O_WRONLY | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "os.utime(fd, (0, 0))\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    try:
        assert child.stdout.readline() == "held\n"
        dump([UserMessage("c")], target)
        assert sorted(p.name for p in tmp_path.iterdir()) == [".h.jsonl.0123456789ab.tmp", "h.jsonl"]
    finally:
        child.kill()
        child.wait()

