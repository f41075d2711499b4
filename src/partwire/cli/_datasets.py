"""``partwire export`` and ``partwire import``: histories to and from Parquet (docs/datasets.md).

Both stream: a session at a time from the files or the store, a row group at a time to and from
Parquet. They need ``pyarrow`` (the ``arrow`` extra), imported only when they run.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from partwire.cli._io import CommandError
from partwire.cli._store import default_db
from partwire.codec import dump, dumps, iter_records
from partwire.history import HistoryEvent, TaskMetadataEvent

__all__ = ["add_dataset_parsers"]

EXPORT_FORMATS = ("parquet",)


def add_dataset_parsers(commands: Any) -> None:
    """Add ``export`` and ``import`` to ``partwire``'s subcommands."""
    export = commands.add_parser(
        "export", help="write histories (JSONL files, or sessions of the store) to one Parquet file",
        description="Write histories to one Parquet file in partwire's Arrow schema (docs/datasets.md), "
                    "one row per event, a row group at a time. The histories are JSONL FILEs (the "
                    "session id is the file's task_id, else its name), or with --store the sessions "
                    "of the store, chosen as 'partwire store ls' lists them.",
    )
    export.add_argument("files", metavar="FILE", nargs="*", help="history files (JSONL)")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="parquet", help="the output format")
    export.add_argument("-o", "--output", metavar="OUT", required=True, help="the file to write")
    export.add_argument("--store", action="store_true", help="export sessions of the store instead of FILEs")
    export.add_argument("--db", metavar="URL", default=None,
                        help="the store (as 'partwire store --db'); implies --store")
    export.add_argument("--limit", type=int, default=None,
                        help="with --store: the most recently active N sessions, as 'store ls --limit'")
    export.add_argument("--session", metavar="ID", action="append", default=None,
                        help="with --store: this session (repeat for more) instead of the listing")
    export.add_argument("--row-group-rows", type=int, default=None, metavar="N",
                        help="events per Parquet row group (default 8192)")
    export.set_defaults(run=_run_export)

    imp = commands.add_parser(
        "import", help="read a Parquet file of histories back into JSONL files or the store",
        description="Read a Parquet file written by 'partwire export' back, a row group at a time: "
                    "each session to DIR/SESSION.jsonl with -o, or into the store with --store.",
    )
    imp.add_argument("file", metavar="FILE", help="a Parquet file in partwire's Arrow schema")
    imp.add_argument("-o", "--output", metavar="DIR", help="write each session as DIR/SESSION.jsonl")
    imp.add_argument("--store", action="store_true", help="import the sessions into the store")
    imp.add_argument("--db", metavar="URL", default=None, help="the store (as 'partwire store --db'); implies --store")
    imp.set_defaults(run=_run_import)


def _open_store(db: str | None) -> Any:
    from partwire.store import open_store

    url = db or default_db()
    if db is None and "://" not in url:
        Path(url).parent.mkdir(parents=True, exist_ok=True)
    return open_store(url)


def _arrow() -> Any:
    try:
        return importlib.import_module("partwire.arrow")
    except ImportError as exc:
        raise CommandError("Parquet needs pyarrow: pip install 'partwire[arrow]'") from exc


def _progress(total: int, unit: str, desc: str) -> Any | None:
    """A tqdm bar on stderr when it is a terminal and tqdm (the ``progress`` extra) is there."""
    if not sys.stderr.isatty():
        return None
    try:
        tqdm = importlib.import_module("tqdm")
    except ImportError:
        return None
    return tqdm.tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, leave=False)


def _file_sessions(files: list[str]) -> Iterator[tuple[str, Iterator[HistoryEvent]]]:
    for name in files:
        if not os.path.isfile(name):
            raise CommandError(f"{name}: no such file" if not os.path.exists(name) else f"{name} is not a file")
        records = iter_records(name, strict=True)
        first = next(records, None)
        session = Path(name).stem
        if first is not None and isinstance(first.event, TaskMetadataEvent) and first.event.task_id:
            session = first.event.task_id

        def events(first: Any = first, records: Any = records) -> Iterator[HistoryEvent]:
            if first is not None:
                yield first.event
            for record in records:
                yield record.event

        yield session, events()


def _run_export(args: argparse.Namespace) -> int:
    arrow = _arrow()
    from_store = args.store or args.db is not None
    if from_store and args.files:
        raise CommandError("give FILEs or --store, not both")
    if not from_store and not args.files:
        raise CommandError("nothing to export: give FILEs, or --store")
    if not from_store and (args.limit is not None or args.session):
        raise CommandError("--limit and --session choose sessions of the store: add --store")
    rows = args.row_group_rows or arrow.BATCH_ROWS
    if rows < 1:
        raise CommandError(f"--row-group-rows must be at least 1, not {rows}")
    if from_store:
        with _open_store(args.db) as store:
            ids = args.session or [s.session_id for s in store.sessions(limit=args.limit)]
            bar = _progress(len(ids), "session", "export")
            sessions = ((sid, _tick(bar, store.load(sid))) for sid in ids)
            count = _write(arrow, sessions, args.output, rows, bar)
            print(f"{args.output}: {count} event(s) of {len(ids)} session(s)", file=sys.stderr)
        return 0
    bar = _progress(len(args.files), "file", "export")
    files = ((sid, _tick_after(bar, events)) for sid, events in _file_sessions(args.files))
    count = _write(arrow, files, args.output, rows, bar)
    print(f"{args.output}: {count} event(s) of {len(args.files)} file(s)", file=sys.stderr)
    return 0


def _tick(bar: Any, events: list[HistoryEvent]) -> list[HistoryEvent]:
    if bar is not None:
        bar.update(1)
    return events


def _tick_after(bar: Any, events: Iterator[HistoryEvent]) -> Iterator[HistoryEvent]:
    yield from events
    if bar is not None:
        bar.update(1)


def _write(arrow: Any, sessions: Any, output: str, rows: int, bar: Any) -> int:
    try:
        count: int = arrow.write_parquet(sessions, output, row_group_rows=rows)
        return count
    finally:
        if bar is not None:
            bar.close()


def _run_import(args: argparse.Namespace) -> int:
    arrow = _arrow()
    to_store = args.store or args.db is not None
    if to_store == (args.output is not None):
        raise CommandError("say where to: -o DIR or --store (one of them)")
    if not os.path.isfile(args.file):
        raise CommandError(f"{args.file}: no such file")
    pq = importlib.import_module("pyarrow.parquet")
    try:
        total = pq.ParquetFile(args.file).metadata.num_rows
    except Exception as exc:  # pyarrow's own errors: not a Parquet file, a torn footer
        raise CommandError(f"{args.file}: not a readable Parquet file: {exc}") from exc
    bar = _progress(total, "event", "import")
    sessions = 0
    events_read = 0
    try:
        if to_store:
            with _open_store(args.db) as store:
                for sid, events in arrow.iter_parquet(args.file):
                    _check_session(sid, args.file)
                    store.import_records(sid, iter_records(io.BytesIO(dumps(events))))
                    sessions, events_read = sessions + 1, events_read + len(events)
                    if bar is not None:
                        bar.update(len(events))
        else:
            out = Path(args.output)
            out.mkdir(parents=True, exist_ok=True)
            fallback = Path(args.file).stem
            written: set[str] = set()
            for sid, events in arrow.iter_parquet(args.file):
                name = sid if sid is not None else fallback
                _check_session(name, args.file)
                if name in written:  # the session's rows came in more than one run: add them
                    with open(out / f"{name}.jsonl", "ab") as handle:
                        handle.write(dumps(events))
                else:
                    dump(events, out / f"{name}.jsonl")
                    written.add(name)
                sessions, events_read = sessions + 1, events_read + len(events)
                if bar is not None:
                    bar.update(len(events))
    finally:
        if bar is not None:
            bar.close()
    where = "the store" if to_store else args.output
    print(f"{args.file}: {events_read} event(s) of {sessions} session(s) into {where}", file=sys.stderr)
    return 0


def _check_session(session: str | None, file: str) -> None:
    if session is None:
        raise CommandError(f"{file}: rows without a session_id cannot go into the store")
    if not session or session in (".", "..") or "/" in session or "\\" in session or "\0" in session:
        raise CommandError(f"{file}: session id {session!r} cannot name a file")


