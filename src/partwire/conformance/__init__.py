"""The conformance corpus and runner: partwire as the reference other implementations check against.

The corpus ships in the wheel (``cases/*.json``, regenerated from partwire's own adapters by
``nox -s conformance``). Each :class:`Case` is one check: a history to a request body for one
API (``to_wire``), a recorded response or stream to a canonical message (``from_wire``), a
request body to a canonical history (``read_request``), or a history file read tolerantly with
the problem kind of every bad line (``validate``).

- :func:`load_cases` lists the cases, all or one API's;
- :func:`check_case` runs one on an adapter object in this process (what ``partwire.testing``
  does for a third-party adapter);
- :func:`run` starts any implementation as a subprocess and judges it over the JSON-lines
  protocol of ``docs/contract.md`` (``partwire conformance run --cmd CMD``);
- :func:`serve` is partwire's own implementation of that protocol (``partwire conformance serve``).
"""

from partwire.conformance._cases import API_NAMES, OPERATIONS, Case, Operation, load_cases
from partwire.conformance._compare import CaseResult, Status, normalise
from partwire.conformance._operations import ERROR_KINDS, check_case, error_kind, perform
from partwire.conformance._runner import Report, run, serve

__all__ = [
    "API_NAMES",
    "ERROR_KINDS",
    "OPERATIONS",
    "Case",
    "CaseResult",
    "Operation",
    "Report",
    "Status",
    "check_case",
    "error_kind",
    "load_cases",
    "normalise",
    "perform",
    "run",
    "serve",
]
