"""``python -m tests.docs.check_site SITE``: fail when a built page still shows a Sphinx role.

``nox -s docs`` runs it on the site it built: a docstring role (``:class:`~partwire.Session```)
that reached a page as text means the reference renders wrongly (``docs/_ext/sphinx_roles.py``
turns them into links).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["RAW_ROLE", "raw_roles"]

RAW_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|exc|data|obj|const|type):(?:`|<code>)")
"""A role as it shows when nothing rendered it: the role name, then the backquote or the code
element Markdown made of it."""


def raw_roles(site: Path) -> list[str]:
    """``PAGE: text`` for each raw role on each HTML page under ``site``."""
    found = []
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        found += [f"{page.relative_to(site)}: {text[m.start():m.end() + 60]!r}" for m in RAW_ROLE.finditer(text)]
    return found


def main(argv: list[str]) -> int:
    site = Path(argv[0]) if argv else Path("site")
    pages = list(site.rglob("*.html"))
    if not pages:
        print(f"{site}: no built pages", file=sys.stderr)
        return 1
    found = raw_roles(site)
    for line in found:
        print(line, file=sys.stderr)
    print(f"{len(pages)} pages, {len(found)} raw Sphinx role(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
