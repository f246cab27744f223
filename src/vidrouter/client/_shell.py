"""What `Client` and `AsyncClient` share around the plans: the constructor."""

from __future__ import annotations

from typing import Generic, TypeVar

import httpx

from vidrouter.client._core import Core
from vidrouter.client.retry import RetryPolicy

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
H = TypeVar("H", httpx.Client, httpx.AsyncClient)


class Shell(Generic[H]):
    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 30.0,
        max_retries: int = 3,
        poll_interval: float = 1.0,
        http_client: H | None = None,
    ) -> None:
        self._core = Core(
            base_url=base_url,
            api_key=api_key,
            retry=RetryPolicy(max_retries=max_retries),
            poll_interval=poll_interval,
        )
        self._http: H = http_client or self._open(timeout)

    def _open(self, timeout: float) -> H:
        """The HTTP client to use when the caller gave none."""
        raise NotImplementedError
