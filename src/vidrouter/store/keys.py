"""API keys and the accounts they belong to. Only a SHA-256 hash of a key is stored."""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Row, func, insert, select, update

from vidrouter.domain import ids
from vidrouter.domain.clock import Clock, utcnow
from vidrouter.store.database import Database
from vidrouter.store.tables import accounts, api_keys

KEY_PREFIX = "vr_"
_CACHE_ENTRIES = 10_000
_KEY_CHARS = 40


@dataclass(frozen=True)
class ApiKey:
    id: str
    account_id: str
    name: str
    prefix: str  # the first characters of the key, to tell keys apart in listings
    webhook_secret: str
    created_at: datetime
    revoked_at: datetime | None = None


@dataclass(frozen=True)
class NewKey:
    key: ApiKey
    plaintext: str  # shown once, never stored


def hash_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def new_webhook_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode("ascii")


def _new_plaintext() -> str:
    return KEY_PREFIX + ids.new_id("", _KEY_CHARS)


class KeyStore:
    def __init__(self, db: Database, clock: Clock = utcnow, *, cache_seconds: float = 0.0) -> None:
        self._db = db
        self._clock = clock
        # hash -> (looked up at, key or None): a revocation made by another process takes
        # effect within `cache_seconds`; one made through this store, at once.
        self._cache: OrderedDict[str, tuple[float, ApiKey | None]] = OrderedDict()
        self._cache_seconds = cache_seconds

    async def create(
        self, name: str, *, account_id: str | None = None, account_name: str | None = None
    ) -> NewKey:
        """A new key in `account_id`, or in a new account when none is named."""
        now = self._clock()
        plaintext = _new_plaintext()
        async with self._db.write() as conn:
            if account_id is None:
                account_id = ids.account_id()
                await conn.execute(
                    insert(accounts).values(
                        id=account_id, name=account_name or name, created_at=now
                    )
                )
            else:
                exists = await conn.scalar(select(accounts.c.id).where(accounts.c.id == account_id))
                if exists is None:
                    await conn.execute(
                        insert(accounts).values(
                            id=account_id, name=account_name or account_id, created_at=now
                        )
                    )
            key = ApiKey(
                id=ids.key_id(),
                account_id=account_id,
                name=name,
                prefix=plaintext[:8],
                webhook_secret=new_webhook_secret(),
                created_at=now,
            )
            await conn.execute(
                insert(api_keys).values(
                    id=key.id,
                    account_id=key.account_id,
                    name=key.name,
                    key_hash=hash_key(plaintext),
                    key_prefix=key.prefix,
                    webhook_secret=key.webhook_secret,
                    created_at=now,
                )
            )
        return NewKey(key, plaintext)

    async def authenticate(self, plaintext: str) -> ApiKey | None:
        """The active key with this plaintext. The lookup is by hash, so the comparison never
        touches the plaintext and takes the same time whatever the key's prefix."""
        digest = hash_key(plaintext)
        if self._cache_seconds > 0:
            hit = self._cache.get(digest)
            if hit is not None and time.monotonic() - hit[0] < self._cache_seconds:
                return hit[1]
        async with self._db.read() as conn:
            row = (
                await conn.execute(
                    select(api_keys).where(
                        api_keys.c.key_hash == digest, api_keys.c.revoked_at.is_(None)
                    )
                )
            ).first()
        key = _key(row) if row is not None else None
        if self._cache_seconds > 0:
            self._cache[digest] = (time.monotonic(), key)
            if len(self._cache) > _CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return key

    async def get(self, key_id: str) -> ApiKey | None:
        async with self._db.read() as conn:
            row = (await conn.execute(select(api_keys).where(api_keys.c.id == key_id))).first()
        return _key(row) if row is not None else None

    async def list(self) -> list[ApiKey]:
        async with self._db.read() as conn:
            rows = await conn.execute(select(api_keys).order_by(api_keys.c.created_at))
            return [_key(r) for r in rows]

    async def count_active(self) -> int:
        async with self._db.read() as conn:
            count = await conn.scalar(
                select(func.count()).select_from(api_keys).where(api_keys.c.revoked_at.is_(None))
            )
        return int(count or 0)

    async def revoke(self, key_id: str) -> bool:
        async with self._db.write() as conn:
            result = await conn.execute(
                update(api_keys)
                .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=self._clock())
            )
        self._cache.clear()
        return result.rowcount > 0


def _key(row: Row[tuple[object, ...]]) -> ApiKey:
    m = row._mapping
    return ApiKey(
        id=m["id"],
        account_id=m["account_id"],
        name=m["name"],
        prefix=m["key_prefix"],
        webhook_secret=m["webhook_secret"],
        created_at=m["created_at"],
        revoked_at=m["revoked_at"],
    )
