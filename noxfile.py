"""The development workflow: ``nox`` runs the tests; the other sessions are named."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_external_run = True

DEV = ".[dev]"


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (the default session)."""
    session.install("-e", DEV)
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Check style with ruff."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", "src", "tests", "noxfile.py")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Check types with mypy in strict mode over src and tests."""
    session.install("-e", DEV, "mypy>=1.11")
    session.run("mypy")


@nox.session
def bench(session: nox.Session) -> None:
    """Measure load, dump and import against peers in the same run; writes .bench/results.json."""
    session.install("-e", DEV)
    session.run("python", "-m", "tests.benchmarks", *session.posargs)


@nox.session
def schema(session: nox.Session) -> None:
    """Regenerate the committed JSON Schema under docs/schema/."""
    session.install("-e", ".")
    session.run("python", "-m", "partwire.codec.schema", "docs/schema/partwire.schema.json")
