"""Bridges from the libraries users already keep their conversations in: both directions.

Each bridge module has the same surface (see ``docs/migrate/``):

- ``from_messages(messages) -> list[HistoryEvent]``: the peer's own message objects, imported.
  Nothing is dropped: what the canonical form has no field for rides along as the peer's
  ``provider_data`` (issuer ``pydantic-ai`` / ``langchain``), and what it does not understand
  becomes an ``unknown`` part or event.
- ``to_messages(history, *, strict=False) -> Export``: the history as the peer's objects, with a
  :class:`~partwire.projection.Loss` for everything the peer cannot hold.
- ``read_dump(data) -> list[HistoryEvent]``: the peer's own JSON dump of a message list.

Importing :mod:`partwire.bridges` imports no peer; each bridge module imports its peer (an
optional extra: ``partwire[pydantic-ai]``, ``partwire[langchain]``) when called.
"""

from partwire.bridges._common import Export

__all__ = ["Export"]
