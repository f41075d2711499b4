"""partwire._memo: emptying every memo of values met changes no result."""

from __future__ import annotations

from partwire import ToolDefinition, UserMessage
from partwire._memo import forget
from partwire.adapters import get_adapter


def test_forget_empties_what_a_round_trip_remembered() -> None:
    """A Gemini and a Responses round trip fill memos (tools, settings, call ids); after forget()
    the same round trips give the same bodies."""
    tool = ToolDefinition(name="read", description="Read a file.",
                          input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
                          side_effects="read")
    bodies = []
    for _ in range(2):
        for name in ("google", "openai_responses"):
            adapter = get_adapter(name)
            body = adapter.to_wire([UserMessage("hi")], model="m", tools=[tool],
                                   settings={"temperature": 0.5}).request
            imported = adapter.from_wire_request(body)
            bodies.append(adapter.to_wire(imported.history, **imported.to_wire_kwargs()).request)
        forget()
    assert bodies[:2] == bodies[2:]
