"""The public surface: a complete, sorted __all__, and no SDK imported by importing partwire."""

from __future__ import annotations

import subprocess
import sys

import pytest

import partwire


def test_all_is_sorted_and_complete() -> None:
    """__all__ is sorted, names only things that exist, and misses no public name."""
    names = [n for n in partwire.__all__ if n != "__version__"]
    assert names == sorted(names)
    for name in partwire.__all__:
        assert hasattr(partwire, name), name
    public = {
        n for n, v in vars(partwire).items()
        if not n.startswith("_") and getattr(v, "__module__", "").startswith("partwire")
    }
    assert public <= set(partwire.__all__), public - set(partwire.__all__)


def test_import_pulls_in_no_provider_sdk() -> None:
    """Importing partwire (and its codec and adapters) loads none of the provider SDKs."""
    code = (
        "import sys, importlib, pkgutil, partwire\n"
        "for m in ('partwire.codec', 'partwire.adapters'):\n"
        "    try:\n"
        "        pkg = importlib.import_module(m)\n"
        "    except ModuleNotFoundError:\n"
        "        continue\n"
        "    for info in pkgutil.iter_modules(pkg.__path__, m + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('anthropic', 'openai', 'google'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_import_loads_the_format_and_session_on_first_use() -> None:
    """``import partwire`` loads the format, not the adapters, the codec or the session (PEP 562
    ``__getattr__``); ``partwire.Session`` and ``from partwire import Session`` still give the class."""
    code = (
        "import sys, partwire\n"
        "print(','.join(sorted(n for n in sys.modules if n.startswith(('partwire.adapters', "
        "'partwire.codec', 'partwire.session')))))\n"
        "from partwire import Session\n"
        "from partwire.session import Session as Real\n"
        "print(Session is Real is partwire.Session, 'Session' in dir(partwire))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["", "True True"]
    with pytest.raises(AttributeError, match="no attribute 'Sesion'"):
        partwire.Sesion  # noqa: B018
