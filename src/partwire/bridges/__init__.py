"""Bridges from the libraries users already keep their conversations in: both directions.

Each bridge module has the same surface (see ``docs/migrate/``):

- ``from_messages(messages) -> list[HistoryEvent]``: the peer's own message objects, imported.
  Nothing is dropped: what the canonical form has no field for rides along as the peer's
  ``provider_data`` (issuer ``pydantic-ai`` / ``langchain``), and what it does not understand
  becomes an ``unknown`` part or event.
- ``to_messages(history, *, strict=False) -> Export``: the history as the peer's objects, with a
  :class:`~partwire.projection.Loss` for everything the peer cannot hold.
- ``read_dump(data) -> list[HistoryEvent]``: the peer's own JSON dump of a message list.

:mod:`partwire.bridges.mcp` is a bridge to a protocol rather than a library: MCP tool results
(``CallToolResult``) and sampling messages, each way, read from the ``mcp`` package's types or
their JSON (``docs/migrate/mcp.md``).

Importing :mod:`partwire.bridges` imports no peer; each bridge module imports its peer (an
optional extra: ``partwire[pydantic-ai]``, ``partwire[langchain]``, ``partwire[mcp]``) when called.
"""

from partwire.bridges._common import Export

__all__ = ["Export"]
