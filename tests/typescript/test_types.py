"""The TypeScript package (``types/typescript``): current with the schema, and it types every
canonical line partwire writes while refusing wrong ones, under ``tsc --strict``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from partwire.cli._example import example_history
from partwire.codec import loads
from partwire.conformance import load_cases
from partwire.history import EVENT_ADAPTER
from tests.harness.providers import KIT_NAMES, get_kit
from tests.scenarios import build_scenarios
from tests.typescript.conftest import PACKAGE, Run

REPO = PACKAGE.parents[1]
TSC = PACKAGE / "node_modules" / "typescript" / "bin" / "tsc"


def _line(event: Any) -> dict[str, Any]:
    line: dict[str, Any] = json.loads(EVENT_ADAPTER.dump_json(event))
    return line


def canonical_lines() -> list[tuple[str, dict[str, Any]]]:
    """Every canonical line of the project's corpus, named by where it comes from: the
    conformance corpus (histories sent, as read; messages and histories expected),
    the committed v1 compatibility files, the example history, and every scenario as each
    provider's echo state makes it."""
    found: list[tuple[str, dict[str, Any]]] = []
    for case in load_cases():
        output = case.expected.get("output") or {}
        # A history sent may hold lines a tolerant reader mends (unknown parts, future versions):
        # their canonical lines are what it reads. Lines written back verbatim are not canonical.
        lines: list[Any] = [_line(e) for e in loads(case.input.get("history") or "")]
        lines += [output.get("message"), *(output.get("history") or ())]
        found += [(f"{case.id}:{n}", line) for n, line in enumerate(lines, 1) if isinstance(line, dict)]
    for path in sorted((REPO / "tests" / "compat" / "v1").glob("*.jsonl")):
        for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if text.strip():
                found.append((f"{path.name}:{n}", json.loads(text)))
    found += [(f"example:{n}", _line(e)) for n, e in enumerate(example_history(), 1)]
    for name in KIT_NAMES:
        for scenario in build_scenarios(get_kit(name).origin):
            found += [(f"{name}/{scenario.name}:{n}", _line(e))
                      for n, e in enumerate(scenario.history, 1)]
    return found


def _typed_file(folder: Path, lines: list[tuple[str, Any]]) -> Path:
    """A TypeScript file giving each line its own ``PartwireHistoryLine`` constant (so tsc's
    errors name the constant), and a tsconfig that compiles it with the package's settings."""
    source = [f'import type {{ PartwireHistoryLine }} from "{PACKAGE / "index.js"}";', ""]
    for n, (label, line) in enumerate(lines):
        source.append(f"// {label}")
        source.append(f"export const line_{n}: PartwireHistoryLine = {json.dumps(line, ensure_ascii=False)};")
    typed = folder / "lines.ts"
    typed.write_text("\n".join(source) + "\n", encoding="utf-8")
    (folder / "tsconfig.json").write_text(json.dumps(
        {"extends": str(PACKAGE / "tsconfig.json"), "files": [str(typed)]}), encoding="utf-8")
    return folder / "tsconfig.json"


def _failing_constants(output: str, typed: Path) -> set[str]:
    """The names of the constants tsc reports errors on."""
    source = typed.read_text(encoding="utf-8").splitlines()
    rows = {int(m.group(1)) for m in re.finditer(r"lines\.ts\((\d+),\d+\): error", output)}
    return {re.sub(r"^export const (line_\d+):.*", r"\1", source[r - 1]) for r in rows}


def test_committed_types_match_the_schema(node: Run, tmp_path: Path) -> None:
    """Regenerating index.d.ts from docs/schema/partwire.schema.json gives the committed file."""
    fresh = tmp_path / "index.d.ts"
    done = node("generate.mjs", fresh)
    assert done.returncode == 0, done.stderr
    assert fresh.read_text(encoding="utf-8") == (PACKAGE / "index.d.ts").read_text(encoding="utf-8"), (
        "types/typescript/index.d.ts is out of date: run `npm run generate` in types/typescript and commit it")


def test_every_canonical_line_compiles_under_strict(node: Run, tmp_path: Path) -> None:
    """A file that types every canonical line as PartwireHistoryLine passes tsc --strict."""
    lines = canonical_lines()
    assert {line["role"] for _, line in lines if line["type"] == "message"} == {
        "system", "developer", "user", "assistant", "tool"}
    config = _typed_file(tmp_path, lines)
    done = node(TSC, "-p", config)
    assert done.returncode == 0, done.stdout[-4000:]


def test_a_wrong_line_fails_to_compile(node: Run, tmp_path: Path) -> None:
    """Each deliberately wrong line (a number for text, an unknown role, a call without its name,
    a wrong schema version) is a tsc error on that line, and a right line beside them is none."""
    lines = [line for _, line in canonical_lines()]
    user = next(line for line in lines if line.get("role") == "user" and line["parts"][0]["type"] == "text")
    calls = [line for line in lines if line.get("role") == "assistant"
             and any(p["type"] == "tool_call" for p in line["parts"])]
    wrong_text = json.loads(json.dumps(user))
    wrong_text["parts"][0]["text"] = 42
    wrong_role = {**user, "role": "robot"}
    nameless = json.loads(json.dumps(calls[0]))
    next(p for p in nameless["parts"] if p["type"] == "tool_call").pop("name")
    future = {**user, "v": 2}
    config = _typed_file(tmp_path, [("right", user), ("text", wrong_text), ("role", wrong_role),
                                    ("call", nameless), ("version", future)])
    done = node(TSC, "-p", config)
    assert done.returncode != 0
    assert _failing_constants(done.stdout, tmp_path / "lines.ts") == {"line_1", "line_2", "line_3", "line_4"}, (
        done.stdout[-4000:])
