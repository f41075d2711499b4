"""The LangChain bridge's trial encodings read the ids seen so far and never change them."""

from __future__ import annotations

from partwire.bridges.langchain import _Context


def test_a_trial_context_reads_through_and_writes_only_itself() -> None:
    """Ids learnt in a trial are visible to the trial alone; the ids it reads are the real ones."""
    ctx = _Context()
    ctx.lc_ids["tu_1"] = "call_1"
    ctx.canonical["call_1"] = "tu_1"
    trial = ctx.trial()
    assert trial.call_id("call_1") == "tu_1"
    trial.lc_ids["tu_2"] = "call_2"
    trial.canonical["call_2"] = "tu_2"
    assert trial.call_id("call_2") == "tu_2"
    assert dict(ctx.lc_ids) == {"tu_1": "call_1"}
    assert dict(ctx.canonical) == {"call_1": "tu_1"}
    assert ctx.call_id("call_2") != "tu_2"
