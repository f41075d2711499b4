"""Write each scenario's golden request and cassette from ``to_wire`` and the hand-written responses.

Usage, from the repository root::

    .venv/bin/python -m tests.harness.make_cassettes            # every provider with a kit
    .venv/bin/python -m tests.harness.make_cassettes anthropic  # one provider

The request body comes from the adapter's ``to_wire``; the responses are never generated, they
are the files under ``tests/harness/responses/<provider>/``, written by hand from the wire
reference. Running the golden tests with ``--update-golden`` writes the same files (and the golden
messages too). Review the diff before committing: a changed request body is a changed wire format.
"""

from __future__ import annotations

import sys

from tests.harness.golden import Golden
from tests.harness.providers import KIT_NAMES, get_kit

__all__ = ["main"]


def main(argv: list[str]) -> int:
    """Write golden requests and cassettes for the providers named in ``argv`` (default: all)."""
    writer = Golden(update=True)
    for name in argv or KIT_NAMES:
        kit = get_kit(name)
        for scenario in kit.scenarios():
            request = kit.request(scenario)
            writer.check_json(kit.golden_path(scenario, "request"), request)
            writer.check_text(kit.cassette_path(scenario), kit.cassette_text(scenario, request))
            print(f"{name}/{scenario.name}: {kit.cassette_path(scenario)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
