"""A griffe extension for the API reference: Sphinx roles in docstrings become cross-references.

partwire's docstrings name other objects the Sphinx way (``:class:`~partwire.projection.Projection```),
which mkdocstrings would print as they are. This rewrites each role, before rendering, into an
optional autorefs reference: a link where the target is in the reference, the name in code where
it is not (a private helper), never the raw role. ``mkdocs.yml`` loads it; ``nox -s docs`` checks
that no built page still holds a role (``tests/docs/check_site.py``).
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

__all__ = ["ROLE", "SphinxRoles", "render_roles"]

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|exc|data|obj|const|type):`(?P<body>[^`]+)`")
"""A Sphinx cross-reference role, with its target (and an optional ``~`` or explicit title)."""
_TITLED = re.compile(r"(?P<title>.+?)\s*<(?P<target>[^>]+)>")


def render_roles(text: str, module: str = "") -> str:
    """``text`` with every role as an optional autorefs reference; ``module`` resolves ``.name``."""

    def replace(found: re.Match[str]) -> str:
        body = found["body"].strip()
        titled = _TITLED.fullmatch(body)
        if titled:
            title, target = titled["title"], titled["target"].lstrip("~")
        else:
            short = body.startswith("~")
            target = body.lstrip("~")
            title = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
        if module and (target.startswith(".") or "." not in target):
            target = f"{module}.{target.lstrip('.')}"  # a name of the docstring's own module
        return (f'<autoref identifier="{html.escape(target)}" optional>'
                f"<code>{html.escape(title)}</code></autoref>")

    return ROLE.sub(replace, text)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Each object's own docstring, once, as it is loaded."""
        if obj.docstring is not None and ":" in obj.docstring.value:
            obj.docstring.value = render_roles(obj.docstring.value, obj.module.path)
