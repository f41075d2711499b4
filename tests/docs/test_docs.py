"""Every code block in README.md and docs/ runs, and the output it shows is the output it gives.

The pages are parsed with Sybil; docs/getting-started.md ("Docs that run") says why and how:

- ```python blocks of a page run top to bottom in one namespace, in a fresh temporary working
  directory, with no network; a block of ``>>>`` lines is a doctest, its shown output checked.
- ```console blocks are shell sessions: each ``$ command`` runs through bash in the page's
  working directory and its stdout and stderr together must equal the lines shown under it
  (``...`` matches anything, as in doctest's ELLIPSIS).
- ```sh blocks are commands whose output is not shown: each line runs through bash and must exit 0.
  Setting up an environment (``python3 -m venv``, ``pip install``, ``nox``) is what CI itself
  does from a fresh clone, so those steps are left out and ``.venv/bin/`` means this
  interpreter's own scripts; every other command runs.
- ```text, ```json and the other languages are shown, not run. A fence without a language fails
  the check below, so nothing escapes by accident.

The files the shell examples read (``body.json``, ``chat.json``, ``damaged.jsonl``) are copied
into the working directory from ``tests/docs/files``.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parents[2]
FILES = Path(__file__).resolve().parent / "files"
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])

# Languages shown but never run. Anything else must be added here or get an evaluator.
SHOWN_ONLY = frozenset({"text", "json", "jsonl", "toml", "yaml", "diff", "javascript", "ts"})
RUN = frozenset({"python", "console", "sh"})

# Steps of a ```sh line that set up an environment; CI's fresh-clone run is what checks them.
SETUP = re.compile(r"^(python3?\s+-m\s+venv\b|(\S*/)?pip\s+install\b|(\S*/)?nox\b)")
BIN = str(Path(sys.executable).parent)
CHECKER = doctest.OutputChecker()
FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    # Wide terminals would change argparse's --help wrapping; the docs show 80 columns.
    env["COLUMNS"] = "80"
    env.pop("PYTHONSTARTUP", None)
    return env


def _bash(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=120, check=False)


def _commands(source: str) -> list[str]:
    """Lines of a shell block, with ``\\`` continuations joined."""
    joined = re.sub(r"\\\n\s*", " ", source)
    return [line for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def runnable(line: str) -> str:
    """A ```sh line as the test runs it: setup steps left out, ``.venv/bin/`` as this venv."""
    steps = [step.strip() for step in line.split("&&")]
    kept = [step.replace(".venv/bin/", "") for step in steps if not SETUP.match(step)]
    return " && ".join(kept)


def run_sh(example: Example) -> None:
    """Run each command of a ```sh block; each must exit 0."""
    cwd = Path(example.namespace["__cwd__"])
    for line in _commands(str(example.parsed)):
        command = runnable(line)
        if not command:
            continue
        done = _bash(command, cwd)
        assert done.returncode == 0, (
            f"{example.path}:{example.line}: `{line}` exited {done.returncode}\n"
            f"stdout:\n{done.stdout[-2000:]}\nstderr:\n{done.stderr[-2000:]}")


def run_console(example: Example) -> None:
    """Run each ``$ command`` of a ```console block; the lines under it are its output."""
    cwd = Path(example.namespace["__cwd__"])
    sessions: list[tuple[str, list[str]]] = []
    for line in str(example.parsed).splitlines():
        if line.startswith("$ "):
            sessions.append((line[2:], []))
        elif sessions:
            sessions[-1][1].append(line)
        elif line.strip():
            raise AssertionError(f"{example.path}:{example.line}: output before any `$ ` command")
    for command, shown in sessions:
        done = _bash("{ " + command + "\n} 2>&1", cwd)
        want = "\n".join(shown).rstrip() + "\n"
        got = "\n".join(x.rstrip() for x in done.stdout.splitlines()).rstrip() + "\n"
        if shown and not CHECKER.check_output(want, got, doctest.ELLIPSIS):
            raise AssertionError(f"{example.path}:{example.line}: `$ {command}` printed\n{got}"
                                 f"but the page shows\n{want}")


SYBIL = Sybil(
    parsers=[
        PythonCodeBlockParser(doctest_optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE),
        CodeBlockParser(language="console", evaluator=run_console),
        CodeBlockParser(language="sh", evaluator=run_sh),
        SkipParser(),
    ],
)


def fences(page: Path) -> list[tuple[int, str]]:
    """The opening fences of a page: (line number, language)."""
    found: list[tuple[int, str]] = []
    inside: str | None = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        match = FENCE.match(line.strip())
        if not match:
            continue
        if inside is None:
            inside = match.group(1)
            found.append((number, match.group(2).strip().split(" ")[0]))
        elif match.group(1).startswith(inside) and not match.group(2).strip():
            inside = None
    return found


def evaluate(page: Path, cwd: Path) -> None:
    """Run every example of ``page`` in order, shell examples in ``cwd``."""
    document = SYBIL.parse(page)
    document.namespace["__cwd__"] = str(cwd)
    for example in document.examples():
        example.evaluate()


def _id(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_code_blocks_run_and_show_their_output(page: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Every python, console and sh block of the page runs, in order, and gives what it shows."""
    for fixture in FILES.iterdir():
        shutil.copy(fixture, tmp_path / fixture.name)
    monkeypatch.chdir(tmp_path)
    evaluate(page, tmp_path)


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_every_fence_names_a_known_language(page: Path) -> None:
    """A code fence names its language, and the language is either run or declared shown-only."""
    bad = [(n, lang) for n, lang in fences(page) if lang not in RUN | SHOWN_ONLY]
    assert not bad, f"{_id(page)}: fences with no or an unknown language (line, language): {bad}"


def test_the_fence_scanner_sees_every_block() -> None:
    """The scanner finds the README's blocks with their languages, so the check above is real."""
    languages = [lang for _, lang in fences(ROOT / "README.md")]
    assert "python" in languages
    assert "sh" in languages


def test_setup_steps_are_left_out_and_the_rest_runs() -> None:
    """A README-style install line keeps only its partwire commands, pointed at this venv."""
    line = ("python3 -m venv .venv && .venv/bin/pip install -q -e . && "
            ".venv/bin/partwire example | .venv/bin/partwire show -")
    assert runnable(line) == "partwire example | partwire show -"
    assert runnable("python3 -m venv .venv && .venv/bin/pip install -q nox && .venv/bin/nox -s tests") == ""


def test_a_console_block_whose_output_differs_fails(tmp_path: Path) -> None:
    """A console example that shows the wrong output is caught, naming the command."""
    page = tmp_path / "page.md"
    page.write_text("```console\n$ echo hello\ngoodbye\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="echo hello"):
        evaluate(page, tmp_path)


def test_a_failing_sh_command_fails(tmp_path: Path) -> None:
    """A ```sh command that exits non-zero fails the page, naming the command."""
    page = tmp_path / "page.md"
    page.write_text("```sh\npartwire validate missing.jsonl\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"missing\.jsonl"):
        evaluate(page, tmp_path)


def test_a_failing_python_block_fails(tmp_path: Path) -> None:
    """A python block that raises fails the page (the documented ToolDefinition mistake)."""
    page = tmp_path / "page.md"
    page.write_text("```python\nfrom partwire import ToolDefinition\n"
                    "ToolDefinition(name='x', description='d', input_schema={'type': 'object'}, strict=True)\n"
                    "```\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"side_effects"):
        evaluate(page, tmp_path)


def test_a_doctest_block_whose_output_differs_fails(tmp_path: Path) -> None:
    """A ``>>>`` block inside a python fence is a doctest: a wrong shown result fails the page."""
    page = tmp_path / "page.md"
    page.write_text("```python\n>>> 1 + 1\n3\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError):
        evaluate(page, tmp_path)


def test_readme_python_example_passes_twice_in_one_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's Python example runs twice in the same directory (it must not append to its old file)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", readme, re.DOTALL)
    assert block is not None
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        exec(compile(block.group(1), "README.md", "exec"), {"__name__": "readme"})
    assert os.path.exists("session.jsonl")
