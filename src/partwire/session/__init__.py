"""The agent session: a history plus a target and a sink, and the request for the next call.

``Session`` keeps the bookkeeping of an agent loop (append, project, stream, cache, switch,
compact, resume); the HTTP calls and the tools stay the caller's. See ``docs/session.md``.
"""

from partwire.session._session import DERIVED_KEY, CacheMode, Session, Target

__all__ = ["DERIVED_KEY", "CacheMode", "Session", "Target"]
