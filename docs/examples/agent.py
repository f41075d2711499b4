"""A coding agent on ``partwire.Session``: the loop's bookkeeping is partwire's, the HTTP calls
and the tools are this file's.

What it does, in order:

1. Anthropic, streamed, with thinking: the model reads two files at once (parallel tool calls);
   one read fails (a tool error).
2. Anthropic is overloaded: the session switches to OpenAI (Chat Completions); the Anthropic-signed
   reasoning cannot go there and is reported once as a loss.
3. OpenAI asks to write the fix, and the process dies before the tool returns (a simulated crash).
4. A new process resumes from the JSONL file: the call left without a result is answered by a
   derived ``aborted`` result, the early turns are compacted into a summary, and OpenAI
   (streamed) writes the fix again.
5. The session moves to OpenAI's Responses API, which reads the file back to check it, and then
   to Gemini, which reports.

Run it for real with ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY`` and ``GEMINI_API_KEY`` set::

    python docs/examples/agent.py /tmp/agent-work

The tests run it against hand-written cassettes through the official SDK clients
(``tests/session/test_agent_example.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from partwire import (
    AssistantMessage,
    Session,
    SystemMessage,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UserMessage,
)
from partwire.streaming import TextDeltaEvent

TOOLS = (
    ToolDefinition(name="read_file", description="Read a file of the project.", side_effects="read",
                   input_schema={"type": "object", "properties": {"path": {"type": "string"}},
                                 "required": ["path"]}),
    ToolDefinition(name="write_file", description="Replace a file of the project.",
                   side_effects="write",
                   input_schema={"type": "object",
                                 "properties": {"path": {"type": "string"},
                                                "content": {"type": "string"}},
                                 "required": ["path", "content"]}),
)
SYSTEM = "You are a coding agent. Read before you write; keep fixes minimal."
TASK = "tests/test_calc.py fails: add(2, 2) returns 0. Fix calc.py."
CACHE_KEY = "agent-example"  # the OpenAI prompt_cache_key: fixed, so the cassettes match
MAX_TOKENS = 2048


class Crash(Exception):
    """The process dies (simulated)."""


def run_tools(session: Session, workdir: Path) -> None:
    """Run every tool call of the last assistant message, appending one result each."""
    message = session.history[-1]
    assert isinstance(message, AssistantMessage)
    for call in message.parts:
        if isinstance(call, ToolCallPart):
            session.append(run_tool(workdir, call))


def run_tool(workdir: Path, call: ToolCallPart) -> ToolMessage:
    """Run one tool call: the caller's code, not partwire's."""
    args = json.loads(call.arguments_json)
    path = workdir / args["path"]
    if call.name == "read_file":
        if not path.is_file():
            return ToolMessage(call_id=call.id, tool_name=call.name, status="error",
                               output_text=f"no such file: {args['path']}")
        return ToolMessage(call_id=call.id, tool_name=call.name, output_text=path.read_text())
    path.write_text(args["content"])
    return ToolMessage(call_id=call.id, tool_name=call.name,
                       output_text=f"wrote {len(args['content'])} characters to {args['path']}")


def show(session: Session, events: Any) -> None:
    """Fold a stream into the session while printing its text (what a UI would render)."""
    for event in session.stream(events):
        if isinstance(event, TextDeltaEvent):
            print(event.text, end="", flush=True)
    print()


def start(log: Path, workdir: Path, anthropic_client: Any, openai_client: Any) -> None:
    """The first process: Anthropic, a switch to OpenAI, then a crash while a tool runs."""
    session = Session("anthropic:claude-sonnet-4-6", tools=TOOLS, max_tokens=MAX_TOKENS,
                      params={"thinking": {"type": "enabled", "budget_tokens": 1024}},
                      sink=log, cache_key=CACHE_KEY)
    session.append(SystemMessage(SYSTEM), UserMessage(TASK))

    body = session.request().request
    show(session, anthropic_client.messages.create(**body, stream=True))
    run_tools(session, workdir)

    losses = session.switch("openai_chat:gpt-4.1", reason="anthropic: overloaded_error",
                            params=None)
    print("switching to OpenAI loses:", *losses, sep="\n  ")

    body = session.request().request
    session.receive(openai_client.chat.completions.create(**body))
    session.close()  # the tool call is on disk; its result never will be
    raise Crash


def gemini_args(body: dict[str, Any]) -> dict[str, Any]:
    """The ``generate_content`` arguments that send a Gemini REST body through the google-genai
    SDK (its config is one flat object: top-level fields and ``generationConfig`` together)."""
    top = {"systemInstruction": "system_instruction", "tools": "tools",
           "toolConfig": "tool_config", "safetySettings": "safety_settings"}
    config: dict[str, Any] = {}
    for key, value in body.items():
        if key == "generationConfig":
            config.update(value)
        elif key != "contents":
            config[top[key]] = value
    return {"contents": body["contents"], "config": config}


def resume(log: Path, workdir: Path, openai_client: Any, gemini_client: Any) -> Session:
    """The second process: resume, compact, finish the task, check it on two more providers."""
    session = Session.open(log, tools=TOOLS, max_tokens=MAX_TOKENS, cache_key=CACHE_KEY)
    interrupted = session.history[-1]
    assert isinstance(interrupted, ToolMessage)
    assert interrupted.status == "aborted"

    # The first turn (the task, both reads and their results) becomes a summary.
    first_results = [e for e in session.history if isinstance(e, ToolMessage)][:2]
    session.compact("Task: make add(2, 2) return 4. calc.py reads `return a - b`; the test "
                    "file is tests/test_calc.py (test_calc.py at the root does not exist).",
                    upto=first_results[-1].id)

    body = session.request().request
    show(session, openai_client.chat.completions.create(**body, stream=True))
    run_tools(session, workdir)

    session.switch("openai_responses:gpt-5", reason="check the fix with a reasoning model")
    body = session.request().request
    session.receive(openai_client.responses.create(**body))
    run_tools(session, workdir)

    session.switch("google:gemini-2.5-flash", reason="report with a cheaper model")
    body = session.request().request
    final = session.receive(gemini_client.models.generate_content(
        model=session.target.model, **gemini_args(body)))
    print(final.text)
    session.close()
    return session


def main(argv: list[str]) -> int:
    """Run the agent against the live APIs, in a scratch project at ``argv[0]``."""
    import anthropic
    import openai
    from google import genai

    workdir = Path(argv[0] if argv else "agent-work")
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    log = workdir / "session.jsonl"
    try:
        start(log, workdir, anthropic.Anthropic(), openai.OpenAI())
    except Crash:
        print("-- crashed; resuming --")
    resume(log, workdir, openai.OpenAI(), genai.Client())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
