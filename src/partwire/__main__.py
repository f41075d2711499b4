"""``python -m partwire``: the ``partwire`` command."""

from partwire.cli import main

raise SystemExit(main())
