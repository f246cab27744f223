"""What `Client` and `AsyncClient` share around the plans: the constructor and the table of
operations. Each operation is a plan of `Core`; a client's method runs it with that client's
driver (`_run`), so `Client.get` returns a Generation and `AsyncClient.get` a coroutine of one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

import httpx

from vidrouter.client import _batches, _video_ops
from vidrouter.client._core import Core
from vidrouter.client._plan import Plan, T
from vidrouter.client.retry import RetryPolicy

if TYPE_CHECKING:
    from vidrouter.client._async import AsyncClient
    from vidrouter.client._sync import Client

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
H = TypeVar("H", httpx.Client, httpx.AsyncClient)
P = ParamSpec("P")


class operation(Generic[P, T]):
    """A client method that runs the `Core` plan it is made from (lower case, like `property`)."""

    def __init__(self, plan: Callable[Concatenate[Core, P], Plan[T]]) -> None:
        self._plan = plan

    @overload
    def __get__(self, client: None, owner: type) -> operation[P, T]: ...
    @overload
    def __get__(self, client: Client, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, client: AsyncClient, owner: type) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, client: Shell[Any] | None, owner: type) -> Any:
        if client is None:
            return self
        plan = self._plan

        @functools.wraps(plan)
        def method(*args: P.args, **kwargs: P.kwargs) -> Any:
            return client._run(plan(client._core, *args, **kwargs))

        return method


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
        download_timeout: float = 600.0,
    ) -> None:
        """`timeout`: seconds one request may take whole (connecting, sending, the answer and
        all of its body), not per read; `download_timeout` the same for a video download."""
        for name, value in (("timeout", timeout), ("download_timeout", download_timeout)):
            if not 0 < value < float("inf"):
                raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")
        self._core = Core(
            base_url=base_url,
            api_key=api_key,
            retry=RetryPolicy(max_retries=max_retries),
            poll_interval=poll_interval,
            timeout=timeout,
            download_timeout=download_timeout,
        )
        self._http: H = http_client or self._open(timeout)

    models = operation(Core.models)
    model = operation(Core.model)
    create = operation(Core.create)
    generate = operation(Core.generate)
    wait = operation(Core.wait)
    get = operation(Core.get)
    cancel = operation(Core.cancel)
    page = operation(Core.page)
    usage = operation(Core.usage)
    download = operation(Core.download)
    create_batch = operation(_batches.create_batch)
    create_batch_file = operation(_batches.create_batch_file)
    batch = operation(_batches.batch)
    batches = operation(_batches.batches)
    batch_results = operation(_batches.batch_results)
    cancel_batch = operation(_batches.cancel_batch)
    wait_batch = operation(_batches.wait_batch)
    remix = operation(_video_ops.remix)
    edit = operation(_video_ops.edit)
    extend = operation(_video_ops.extend)
    create_character = operation(_video_ops.create_character)
    character = operation(_video_ops.character)
    delete_character = operation(_video_ops.delete_character)

    def _open(self, timeout: float) -> H:
        """The HTTP client to use when the caller gave none."""
        raise NotImplementedError

    def _run(self, plan: Plan[T]) -> Any:
        """The plan performed: its result (`Client`), or a coroutine of it (`AsyncClient`)."""
        raise NotImplementedError
