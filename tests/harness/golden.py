"""Golden files: compare what the code produces with a committed file, or rewrite the file.

Run ``pytest --update-golden`` (or set ``PARTWIRE_UPDATE_GOLDEN=1``) to write every golden file a
test checks instead of comparing; then review the diff before committing it. JSON goldens compare
as parsed JSON, so the first difference is reported as a path, not a wall of text.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.harness.replay import json_difference

__all__ = ["UPDATE_ENV", "Golden", "dump_json", "update_requested"]

UPDATE_ENV = "PARTWIRE_UPDATE_GOLDEN"
"""Environment variable that, set to ``1``, rewrites golden files instead of checking them."""


def update_requested(option: bool = False) -> bool:
    """Whether golden files are to be rewritten: the pytest option or the environment says so."""
    return option or os.environ.get(UPDATE_ENV, "") not in ("", "0")


def dump_json(value: Any) -> str:
    """The canonical text of a JSON golden file: two-space indents, UTF-8, final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Golden:
    """Checks values against golden files, or rewrites them when an update was requested."""

    update: bool
    """Rewrite files instead of comparing."""

    def check_json(self, path: Path, value: Any) -> None:
        """``value`` (JSON-compatible) equals the JSON in ``path``."""
        if self._write_if_updating(path, dump_json(value)):
            return
        expected = json.loads(self._read(path))
        difference = json_difference(expected, value, names=("golden file", "value"))
        assert difference is None, f"{_rel(path)} differs: {difference}; {_HOW}"

    def check_text(self, path: Path, text: str) -> None:
        """``text`` equals the content of ``path`` exactly."""
        if self._write_if_updating(path, text):
            return
        expected = self._read(path)
        if expected != text:
            line = next(
                (n for n, (a, b) in enumerate(zip(expected.splitlines(), text.splitlines(), strict=False), 1)
                 if a != b),
                min(len(expected.splitlines()), len(text.splitlines())) + 1,
            )
            raise AssertionError(f"{_rel(path)} differs from line {line} on; {_HOW}")

    def _write_if_updating(self, path: Path, text: str) -> bool:
        if not self.update:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return True

    @staticmethod
    def _read(path: Path) -> str:
        if not path.is_file():
            raise AssertionError(f"golden file {_rel(path)} is missing; {_HOW}")
        return path.read_text(encoding="utf-8")


_HOW = f"if the change is intended, rerun with --update-golden (or {UPDATE_ENV}=1) and review the diff"


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
