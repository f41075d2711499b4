"""Chat UIs: a partwire history as the messages and streams that web front ends read.

Each format is a module with the verbs of an adapter: ``to_wire`` / ``from_wire`` for messages,
``to_stream`` / ``from_stream`` for live events, each returning its value beside a tuple of
:class:`~partwire.projection.Loss`, each reader raising :class:`~partwire.errors.WireFormatError`
that names the place of what it refuses.

- :mod:`partwire.ui.ai_sdk` — the Vercel AI SDK's ``UIMessage`` (format ``ai-sdk-ui``);
- :mod:`partwire.ui.ai_sdk_model` — its ``ModelMessage`` (format ``ai-sdk-model``);
- :mod:`partwire.ui.ai_sdk_stream` — its UI message stream, with SSE framing;
- :mod:`partwire.ui.ag_ui` — AG-UI events and messages.

Importing this package imports none of them, and none imports an SDK: they write and read JSON.
See ``docs/chat-ui.md``.
"""

from partwire.ui._common import Converted

__all__ = ["Converted"]
