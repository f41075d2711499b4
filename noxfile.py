"""The development workflow: ``nox`` runs the tests; the other sessions are named."""

from __future__ import annotations

import os

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_external_run = True

DEV = ".[dev]"


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (the default session), on every core: ``nox -s tests -- -n 0`` runs it
    in one process, ``-- -k NAME`` a part of it."""
    session.install("-e", DEV)
    session.run("pytest", "-n", "auto", *session.posargs)


@nox.session(default=False)
def deep(session: nox.Session) -> None:
    """Run only the property tests, each with ten times its examples (``PARTWIRE_HYPOTHESIS_SCALE``;
    ``nox -s deep -- -k law`` narrows it) and new random ones each run (the default run draws the
    same examples every time): slower, for rarer failures. Never a default."""
    session.install("-e", DEV)
    session.run("pytest", "-n", "auto", "-m", "hypothesis", *session.posargs,
                env={"PARTWIRE_HYPOTHESIS_SCALE": os.environ.get("PARTWIRE_HYPOTHESIS_SCALE", "10"),
                     "PARTWIRE_HYPOTHESIS_RANDOM": "1"})


@nox.session
def distributed(session: nox.Session) -> None:
    """The dataset jobs on a local Ray runtime (2 CPUs) over a generated dataset, and Hugging Face
    ``datasets`` loading the TRL rows (tests/distributed): heavy installs and minutes of run time,
    so a session of its own, run by CI."""
    session.install("-e", ".[dev,distributed]")
    session.run("pytest", "tests/distributed", *session.posargs,
                env={"PARTWIRE_DISTRIBUTED": "1"})


@nox.session
def lint(session: nox.Session) -> None:
    """Check style with ruff, and the architecture contracts of pyproject.toml with import-linter
    (layers import downward only, adapters independent, private modules kept private, no cycles)."""
    session.install("ruff>=0.6", "import-linter>=2.17", "-e", ".")
    session.run("ruff", "check", "src", "tests", "noxfile.py")
    session.run("lint-imports")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Check types with mypy in strict mode over src and tests."""
    session.install("-e", DEV, "mypy>=1.11")
    session.run("mypy")


@nox.session
def bench(session: nox.Session) -> None:
    """Measure partwire against peers in the same run; writes .bench/results.json."""
    session.install("-e", ".[dev,bench]")
    session.run("python", "-m", "tests.benchmarks", *session.posargs)


@nox.session
def bench_docs(session: nox.Session) -> None:
    """Regenerate docs/benchmarks.md from .bench/results.json (copied to docs/benchmarks.json);
    run it after `nox -s bench` and commit both files."""
    session.install("-e", ".")
    session.run("python", "-m", "tests.benchmarks.report", ".bench/results.json")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the docs site (mkdocs.yml) with every warning an error, and check that no page shows a
    raw Sphinx role; the pages' code runs in the tests."""
    session.install("-e", ".[docs]")
    site = os.path.join(session.create_tmp(), "site")
    session.run("mkdocs", "build", "--strict", "--site-dir", site)
    # No page may show a docstring's Sphinx role as text (docs/_ext/sphinx_roles.py renders them).
    session.run("python", "-m", "tests.docs.check_site", site)


@nox.session
def schema(session: nox.Session) -> None:
    """Regenerate the current version's committed JSON Schema: docs/schema/partwire.schema.json
    and docs/schema/v<N>/ (earlier versions' folders are frozen)."""
    session.install("-e", ".")
    session.run("python", "-m", "partwire.codec.schema", "--all", "docs/schema")


@nox.session(default=False)
def conformance(session: nox.Session) -> None:
    """Regenerate the conformance corpus (src/partwire/conformance/cases/) from partwire's own
    adapters, the compatibility files and the recorded traffic; review the diff, then commit it.
    ``nox -s conformance -- --check`` only lists the files that are out of date."""
    session.install("-e", DEV)
    session.run("python", "-m", "tests.conformance.regen", *session.posargs)


RECORD_KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai_chat": "OPENAI_API_KEY",
               "openai_responses": "OPENAI_API_KEY", "google": "GEMINI_API_KEY"}


@nox.session(default=False)
def record(session: nox.Session) -> None:
    """Re-record cassettes against the live APIs: ``nox -s record -- anthropic``. Needs real keys.

    Never a default and never in CI. Cassettes go through the same secret filters as replays;
    the recorded answers differ from the hand-written ones, so review and adjust before committing.
    """
    providers = session.posargs or sorted(RECORD_KEYS)
    missing = [RECORD_KEYS[p] for p in providers if not os.environ.get(RECORD_KEYS[p])]
    if missing:
        session.error(f"set {', '.join(missing)} to record {', '.join(providers)}")
    session.install("-e", DEV)
    for provider in providers:
        session.run("pytest", "tests/adapters", "-k", f"{provider} and cassette",
                    env={"PARTWIRE_RECORD": "1"}, success_codes=[0, 1])
