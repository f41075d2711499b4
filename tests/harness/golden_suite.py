"""The golden tests every adapter's ``test_<api>_golden.py`` runs the same way, written once.

A module puts them in its namespace, where pytest collects them under their usual names::

    globals().update(golden_tests(KIT, EXPECTED_LOSSES))

and keeps beside them only what is its adapter's own (how its answers read, its variants).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from tests.harness.compare import stored_form
from tests.harness.golden import Golden
from tests.harness.kit import ProviderKit
from tests.scenarios import Scenario


def golden_tests(kit: ProviderKit,
                 expected_losses: Mapping[str, Sequence[tuple[str, str, str]]]) -> dict[str, Callable[..., None]]:
    """The five shared golden tests over ``kit``'s scenarios, by name; ``expected_losses`` holds
    each scenario's (action, part type, path) losses, in order."""
    scenarios = kit.scenarios()
    answered = [s for s in scenarios if s.reply is not None]
    api = kit.name

    def test_expectations_cover_every_scenario() -> None:
        """Every scenario has an expected-loss entry, so a new scenario cannot go unchecked."""
        assert sorted(expected_losses) == sorted(s.name for s in scenarios)

    @pytest.mark.parametrize("scenario", scenarios, ids=lambda s: s.name)
    def test_request_equals_golden(scenario: Scenario, golden: Golden) -> None:
        """to_wire of the scenario gives exactly the golden request body."""
        golden.check_json(kit.golden_path(scenario, "request"), kit.request(scenario))

    @pytest.mark.parametrize("scenario", scenarios, ids=lambda s: s.name)
    def test_cassette_is_built_from_the_golden_request(scenario: Scenario, golden: Golden) -> None:
        """The committed cassette is the one made from to_wire's request and the hand-written responses."""
        request = kit.request(scenario)
        golden.check_text(kit.cassette_path(scenario), kit.cassette_text(scenario, request))

    @pytest.mark.parametrize("scenario", scenarios, ids=lambda s: s.name)
    def test_losses_are_the_expected_ones(scenario: Scenario) -> None:
        """The projection reports exactly the losses expected for the scenario, and no other."""
        losses = kit.project(scenario).losses
        assert [(loss.action, loss.part_type, loss.path) for loss in losses] == list(
            expected_losses[scenario.name])
        for loss in losses:
            assert loss.adapter == api
            assert loss.reason

    @pytest.mark.parametrize("scenario", answered, ids=lambda s: s.name)
    def test_decoded_response_equals_golden(scenario: Scenario, golden: Golden) -> None:
        """from_wire of the hand-written response body gives exactly the golden message."""
        message = kit.decode(kit.response_json(scenario))
        golden.check_json(kit.golden_path(scenario, "message"), stored_form(message))

    tests: dict[str, Any] = {f.__name__: f for f in (
        test_expectations_cover_every_scenario, test_request_equals_golden,
        test_cassette_is_built_from_the_golden_request, test_losses_are_the_expected_ones,
        test_decoded_response_equals_golden)}
    return tests
