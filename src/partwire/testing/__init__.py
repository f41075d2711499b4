"""partwire's adapter laws for any adapter, yours included: a pytest plugin and plain functions.

Subclass :class:`AdapterLaws` as a ``Test...`` class, set ``adapter``, and pytest runs every law
on it (``docs/adapter-testing.md``)::

    from partwire.testing import AdapterLaws

    class TestMyAdapter(AdapterLaws):
        adapter = my_adapter
        validator = staticmethod(my_request_errors)

The ``check_*`` functions are the same laws on one input each, usable without pytest; each
raises :class:`LawViolation` naming the law, the adapter, the input, what was seen and what to
change. The plugin (``partwire.testing.plugin``, registered as a ``pytest11`` entry point) adds
``--partwire-examples``. Importing this package imports neither pytest nor hypothesis.
"""

from __future__ import annotations

from partwire.testing._checks import (
    BAD_BODIES,
    LawViolation,
    Validator,
    check_bad_input,
    check_echo,
    check_ids,
    check_losses,
    check_request_round_trip,
    check_request_valid,
    check_round_trip,
    check_stream,
    dumps,
    in_body,
    json_default,
    neutral_dump,
    part_marks,
    silent_drops,
    tools_called,
)
from partwire.testing._examples import example_histories
from partwire.testing._suite import AdapterLaws

__all__ = [
    "BAD_BODIES",
    "AdapterLaws",
    "LawViolation",
    "Validator",
    "check_bad_input",
    "check_echo",
    "check_ids",
    "check_losses",
    "check_request_round_trip",
    "check_request_valid",
    "check_round_trip",
    "check_stream",
    "dumps",
    "example_histories",
    "in_body",
    "json_default",
    "neutral_dump",
    "part_marks",
    "silent_drops",
    "tools_called",
]
