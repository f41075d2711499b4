"""The heavy engines' tests (Ray Data, Hugging Face ``datasets``) run in their own session,
``nox -s distributed`` (which installs the ``distributed`` extra and sets
``PARTWIRE_DISTRIBUTED=1``); the default run leaves this folder out."""

from __future__ import annotations

import os

collect_ignore_glob = [] if os.environ.get("PARTWIRE_DISTRIBUTED") else ["test_*.py"]
