"""Rate counters in Redis (`VIDROUTER_REDIS_URL`): one key per counter and window, counted
with INCR and given an expiry in the same MULTI/EXEC pipeline: one round trip per request,
and the keys of past windows expire by themselves."""

from __future__ import annotations

from redis.asyncio import Redis
from redis.exceptions import RedisError

from vidrouter.store.counters import CountersUnavailable, Hit

_TIMEOUT_SECONDS = 1.0  # a slow Redis must not hold up every request


class RedisRateCounters:
    def __init__(self, client: Redis, *, prefix: str = "vidrouter:rate:") -> None:
        self._redis = client
        self._prefix = prefix

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "vidrouter:rate:") -> RedisRateCounters:
        client = Redis.from_url(
            url,
            socket_timeout=_TIMEOUT_SECONDS,
            socket_connect_timeout=_TIMEOUT_SECONDS,
        )
        return cls(client, prefix=prefix)

    async def hit(
        self, name: str, *, window_start: int, window_seconds: int, amount: int = 1
    ) -> Hit:
        key = f"{self._prefix}{name}:{window_start}"
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.incrby(key, amount)
                # Twice the window: a lagging clock elsewhere may still count into it.
                pipe.expire(key, window_seconds * 2)
                count, _ = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise CountersUnavailable(f"redis: {type(exc).__name__}: {exc}") from exc
        return Hit(count=int(count), window_start=window_start)

    async def ping(self) -> bool:
        try:
            return bool(await self._redis.ping())
        except (RedisError, OSError):
            return False

    async def aclose(self) -> None:
        await self._redis.aclose()
