"""The conformance cases of partwire's corpus, run on any adapter (the suite's last law)."""

from __future__ import annotations

from typing import Any

from partwire.conformance import API_NAMES, check_case, load_cases
from partwire.testing._checks import LawViolation

__all__ = ["check_conformance"]


def check_conformance(adapter: Any, api: str) -> int | None:
    """Run every conformance case of ``api`` on ``adapter``: the number of cases run, or ``None``
    when the corpus has none for that API. :class:`LawViolation` lists the cases it failed."""
    if api not in API_NAMES:
        return None
    cases = load_cases(api)
    if not cases:
        return None
    failed = [result for result in (check_case(case, adapter) for case in cases) if result.status == "failed"]
    if failed:
        shown = "\n".join(f"  - {r.case.id} ({r.case.operation}): " + r.diff[:600].replace("\n", "\n      ")
                           for r in failed[:3])
        more = f"\n  ... and {len(failed) - 3} more" if len(failed) > 3 else ""
        raise LawViolation("conformance", str(getattr(adapter, "NAME", api)),
                           f"{len(failed)} of the {len(cases)} {api} cases",
                           f"the answers differ from the corpus's:\n{shown}{more}",
                           "give the answer each case expects (`partwire conformance list` names the "
                           "cases; docs/contract.md describes them)")
    return len(cases)
