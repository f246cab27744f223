"""Persistence: tables, repositories and migrations, for SQLite and PostgreSQL alike.

Dialect quirks live in `dialect.py`; everything else is written once for both.
"""

from vidrouter.store.database import Database, StoreError
from vidrouter.store.deliveries import Delivery, DeliveryStore
from vidrouter.store.generations import GenerationStore, ListPage
from vidrouter.store.keys import ApiKey, KeyStore, NewKey

__all__ = [
    "ApiKey",
    "Database",
    "Delivery",
    "DeliveryStore",
    "GenerationStore",
    "KeyStore",
    "ListPage",
    "NewKey",
    "StoreError",
]
