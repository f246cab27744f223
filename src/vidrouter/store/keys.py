"""API keys and the accounts they belong to. Only a SHA-256 hash of a key is stored.

A key can be rotated: a new key is made in the same account and the old one keeps working
until its `expires_at` (the grace period). Its webhook secret can be rotated the same way:
until `previous_secret_expires_at`, deliveries are signed with the new and the previous
secret (see `ApiKey.webhook_secrets`). A key may carry its own limits; NULL means the
service's defaults.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import Row, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.domain import ids
from vidrouter.domain.clock import Clock, utcnow
from vidrouter.store.budgets import Budget, budget_of
from vidrouter.store.database import Database
from vidrouter.store.records import from_row
from vidrouter.store.tables import accounts, api_keys

KEY_PREFIX = "vr_"
_CACHE_ENTRIES = 10_000
_KEY_CHARS = 40
ROTATED_SUFFIX = " (rotated)"
_NAME_CHARS = 200


@dataclass(frozen=True)
class ApiKey:
    id: str
    account_id: str
    name: str
    prefix: str  # the first characters of the key, to tell keys apart in listings
    webhook_secret: str
    created_at: datetime
    revoked_at: datetime | None = None
    expires_at: datetime | None = None  # set by a rotation: usable until then
    previous_webhook_secret: str | None = None
    previous_secret_expires_at: datetime | None = None
    requests_per_minute: int | None = None  # None: the service's default
    max_concurrent: int | None = None  # None: the service's default
    # Spend limits: the key's own and its account's, as of the lookup (the
    # create checks them afresh); None: no limit.
    budget: Budget | None = None
    account_budget: Budget | None = None
    # Every create of the key asks for the cache unless it says `"cache": false`.
    cache: bool | None = None

    @property
    def budgeted(self) -> bool:
        return self.budget is not None or self.account_budget is not None

    def usable(self, now: datetime) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)

    def webhook_secrets(self, now: datetime) -> tuple[str, ...]:
        """The secrets to sign a delivery with now: the current one, and the previous one
        while its grace period lasts (a receiver holding either verifies)."""
        previous = self.previous_webhook_secret
        until = self.previous_secret_expires_at
        if previous is not None and until is not None and now < until:
            return (self.webhook_secret, previous)
        return (self.webhook_secret,)


@dataclass(frozen=True)
class NewKey:
    key: ApiKey
    plaintext: str  # shown once, never stored


@dataclass(frozen=True)
class Rotation:
    new: NewKey
    old: ApiKey  # as it is now: `expires_at` says when it stops working


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
        self,
        name: str,
        *,
        account_id: str | None = None,
        account_name: str | None = None,
        requests_per_minute: int | None = None,
        max_concurrent: int | None = None,
    ) -> NewKey:
        """A new key in `account_id`, or in a new account when none is named."""
        _check_limits(requests_per_minute, max_concurrent)
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
                requests_per_minute=requests_per_minute,
                max_concurrent=max_concurrent,
            )
            await _insert(conn, key, plaintext)
        return NewKey(key, plaintext)

    async def authenticate(self, plaintext: str) -> ApiKey | None:
        """The active key with this plaintext (not revoked, not past its `expires_at`). The
        lookup is by hash, so the comparison never touches the plaintext and takes the same
        time whatever the key's prefix."""
        key = await self._lookup(hash_key(plaintext))
        return key if key is not None and key.usable(self._clock()) else None

    async def _lookup(self, digest: str) -> ApiKey | None:
        """The unrevoked key with this hash, through the cache; expiry is checked by the
        caller on every use, so a cached key stops working the moment it expires."""
        if self._cache_seconds > 0:
            hit = self._cache.get(digest)
            if hit is not None and time.monotonic() - hit[0] < self._cache_seconds:
                return hit[1]
        async with self._db.read() as conn:
            row = (
                await conn.execute(
                    select(
                        api_keys,
                        accounts.c.budget_usd.label("account_budget_usd"),
                        accounts.c.budget_period.label("account_budget_period"),
                    )
                    .join(accounts, accounts.c.id == api_keys.c.account_id)
                    .where(api_keys.c.key_hash == digest, api_keys.c.revoked_at.is_(None))
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
        """Keys that work now: neither revoked nor expired."""
        async with self._db.read() as conn:
            count = await conn.scalar(
                select(func.count())
                .select_from(api_keys)
                .where(
                    api_keys.c.revoked_at.is_(None),
                    or_(api_keys.c.expires_at.is_(None), api_keys.c.expires_at > self._clock()),
                )
            )
        return int(count or 0)

    async def revoke(self, key_id: str) -> bool:
        changed = await self._db.changed(
            update(api_keys)
            .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
            .values(revoked_at=self._clock())
        )
        self._cache.clear()
        return changed > 0

    async def rotate(self, key_id: str, *, grace: timedelta) -> Rotation | None:
        """A new key in the same account, with the same name (plus " (rotated)"), webhook
        secrets and limits; the old key keeps working for `grace` (never longer than it
        would have anyway). None when `key_id` is not a usable key."""
        if grace < timedelta(0):
            raise ValueError("grace must not be negative")
        now = self._clock()
        plaintext = _new_plaintext()
        async with self._db.write() as conn:
            old = await _usable(conn, key_id, now)
            if old is None:
                return None
            until = now + grace
            if old.expires_at is not None:
                until = min(until, old.expires_at)
            name = old.name if old.name.endswith(ROTATED_SUFFIX) else old.name + ROTATED_SUFFIX
            new = replace(
                old,
                id=ids.key_id(),
                name=name[:_NAME_CHARS],
                prefix=plaintext[:8],
                created_at=now,
                revoked_at=None,
                expires_at=None,
            )
            await _insert(conn, new, plaintext)
            await conn.execute(
                update(api_keys).where(api_keys.c.id == old.id).values(expires_at=until)
            )
        self._cache.clear()
        return Rotation(NewKey(new, plaintext), replace(old, expires_at=until))

    async def rotate_webhook_secret(self, key_id: str, *, grace: timedelta) -> ApiKey | None:
        """A new webhook secret; the current one stays valid for `grace` (deliveries are
        signed with both until then). Only one previous secret is kept: rotating again
        within the grace period drops the oldest. None when `key_id` is not a usable key."""
        if grace < timedelta(0):
            raise ValueError("grace must not be negative")
        now = self._clock()
        async with self._db.write() as conn:
            key = await _usable(conn, key_id, now)
            if key is None:
                return None
            keep = grace > timedelta(0)
            rotated = replace(
                key,
                webhook_secret=new_webhook_secret(),
                previous_webhook_secret=key.webhook_secret if keep else None,
                previous_secret_expires_at=now + grace if keep else None,
            )
            await conn.execute(
                update(api_keys)
                .where(api_keys.c.id == key.id)
                .values(
                    webhook_secret=rotated.webhook_secret,
                    previous_webhook_secret=rotated.previous_webhook_secret,
                    previous_secret_expires_at=rotated.previous_secret_expires_at,
                )
            )
        self._cache.clear()
        return rotated

    async def set_limits(
        self, key_id: str, *, requests_per_minute: int | None, max_concurrent: int | None
    ) -> ApiKey | None:
        """Set both limits of a key (None: the service's default). Other processes see the
        change within their key cache time. None when there is no unrevoked key `key_id`."""
        _check_limits(requests_per_minute, max_concurrent)
        changed = await self._db.changed(
            update(api_keys)
            .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
            .values(requests_per_minute=requests_per_minute, max_concurrent=max_concurrent)
        )
        self._cache.clear()
        return await self.get(key_id) if changed > 0 else None

    async def set_cache(self, key_id: str, cache: bool | None) -> ApiKey | None:
        """Turn the cache on (or off, or back to the default) for every create of a key
        that does not say. None when there is no unrevoked key `key_id`."""
        changed = await self._db.changed(
            update(api_keys)
            .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
            .values(cache=cache)
        )
        self._cache.clear()
        return await self.get(key_id) if changed > 0 else None


def _check_limits(*values: int | None) -> None:
    if any(v is not None and v < 1 for v in values):
        raise ValueError("limits must be at least 1")


async def _usable(conn: AsyncConnection, key_id: str, now: datetime) -> ApiKey | None:
    row = (await conn.execute(select(api_keys).where(api_keys.c.id == key_id))).first()
    key = _key(row) if row is not None else None
    return key if key is not None and key.usable(now) else None


async def _insert(conn: AsyncConnection, key: ApiKey, plaintext: str) -> None:
    await conn.execute(
        insert(api_keys).values(
            id=key.id,
            account_id=key.account_id,
            name=key.name,
            key_hash=hash_key(plaintext),
            key_prefix=key.prefix,
            webhook_secret=key.webhook_secret,
            created_at=key.created_at,
            previous_webhook_secret=key.previous_webhook_secret,
            previous_secret_expires_at=key.previous_secret_expires_at,
            requests_per_minute=key.requests_per_minute,
            max_concurrent=key.max_concurrent,
            budget_usd=key.budget.limit_usd if key.budget else None,
            budget_period=key.budget.period if key.budget else None,
        )
    )


def _key(row: Row[tuple[object, ...]]) -> ApiKey:
    m = row._mapping
    return from_row(
        ApiKey,
        m,
        prefix=m["key_prefix"],
        budget=budget_of(m["budget_usd"], m["budget_period"]),
        account_budget=budget_of(m.get("account_budget_usd"), m.get("account_budget_period")),
    )
