"""The store's fixtures, for the store's share of hostile input (``test_store.py``): each of those
tests runs on SQLite and on PostgreSQL, as every store test does."""

from tests.store.conftest import pg_server, store, store_url

__all__ = ["pg_server", "store", "store_url"]
