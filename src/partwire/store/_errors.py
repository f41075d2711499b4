"""The store's errors, under :class:`StoreError` (itself a :class:`~partwire.errors.PartwireError`).

::

    StoreError
    ├── ConflictError            an event id already stored with other bytes; a fork target that exists
    ├── ExpectLastError          append(expect_last=...) found another last event (a concurrent writer)
    ├── SchemaVersionError       the database has a newer schema than this partwire knows
    ├── StoreUnavailableError    the database cannot be opened or reached
    └── NotFoundError            no such session, or no such event in it
"""

from __future__ import annotations

from partwire.errors import PartwireError

__all__ = [
    "ConflictError",
    "ExpectLastError",
    "NotFoundError",
    "SchemaVersionError",
    "StoreError",
    "StoreUnavailableError",
]


class StoreError(PartwireError):
    """Base class of every error the session store raises."""


class ConflictError(StoreError):
    """Writing would overwrite what is stored: the same event id with other bytes."""

    def __init__(self, session_id: str, event_id: str, message: str) -> None:
        self.session_id = session_id
        """The session written to."""
        self.event_id = event_id
        """The event id in conflict."""
        super().__init__(message)


class ExpectLastError(StoreError):
    """The session's last event is not the one the writer expected: someone else appended."""

    def __init__(self, session_id: str, expected: str | None, actual: str | None) -> None:
        self.session_id = session_id
        """The session appended to."""
        self.expected = expected
        """The last event id the writer expected (``None``: an empty session)."""
        self.actual = actual
        """The last event id actually stored (``None``: the session is empty)."""
        super().__init__(
            f"session {session_id!r}: expected last event {expected!r}, but the last stored event is {actual!r}"
        )


class SchemaVersionError(StoreError):
    """The database's schema is newer than this version of partwire understands."""

    def __init__(self, found: int, supported: int) -> None:
        self.found = found
        """The database's schema version."""
        self.supported = supported
        """The newest schema version this partwire knows."""
        super().__init__(
            f"the database has store schema version {found}, newer than {supported} (the newest this "
            "partwire knows); upgrade partwire to use it"
        )


class StoreUnavailableError(StoreError):
    """The database cannot be opened or the server cannot be reached."""


class NotFoundError(StoreError, LookupError):
    """No such session, or no such event in the session."""
