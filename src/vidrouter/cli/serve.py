"""`vidrouter serve`: API, workers and content host in one process, on the embedded default
(the workers on a thread and loop of their own, cli/engine_thread.py); or one role of a
multi-machine deployment (`--role api|worker`, see docs/deployment.md)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from collections.abc import Callable, Iterator
from typing import Annotated, Literal

import typer
import uvicorn
from rich.console import Console
from uvicorn.config import LOGGING_CONFIG

from vidrouter.api.worker_health import worker_health_app
from vidrouter.cli.common import configure_logging, settings_from
from vidrouter.cli.engine_thread import EngineThread
from vidrouter.composition import Composition, create_app
from vidrouter.observability.loop_lag import watch_loop_lag
from vidrouter.server.limits import server_options
from vidrouter.settings import Settings

log = logging.getLogger(__name__)
console = Console(stderr=False)

SHUTDOWN_GRACE_SECONDS = 10.0
Role = Literal["all", "api", "worker"]
ROLES: tuple[Role, ...] = ("all", "api", "worker")
# Young-generation collections every 10,000 net allocations instead of 700: fewer objects
# that live for one request or one engine step are promoted to the old generations, which
# only a full (slow) collection walks.
GC_THRESHOLDS = (10_000, 10, 10)


def serve(
    ctx: typer.Context,
    host: Annotated[str | None, typer.Option(help="Address to listen on (VIDROUTER_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (VIDROUTER_PORT, default 8000).")] = None,
    role: Annotated[
        str | None,
        typer.Option(
            help="all (default): everything in one process; api: the HTTP API and content "
            "host, no engine; worker: the engine, webhooks and local renderer, with only "
            "/healthz and /readyz on the port (VIDROUTER_ROLE)."
        ),
    ] = None,
) -> None:
    """Run the service: the API, the workers and the content host (or one role of them)."""
    if role is not None and role not in ROLES:
        raise typer.BadParameter(f"--role must be one of {', '.join(ROLES)}", param_hint="--role")
    settings = settings_from(ctx, host=host, port=port, role=role)
    configure_logging(settings.log_level, settings.log_format)
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        runner.run(_serve(settings))


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when it is installed (it comes with uvicorn[standard]): about twice the
    requests per second of the default loop for the same work."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def _serve(settings: Settings) -> None:
    service = Composition(settings)
    await service.open()
    if settings.role != "worker":
        await _welcome(service)
    engine = None
    if settings.role == "worker":
        service.start_workers()
    elif settings.role == "all":
        # Creates and polls never wait behind the engine's work (cli/engine_thread.py).
        engine = EngineThread(settings, service.observer, _loop_factory())
        await engine.start()
        service.engine = engine
    app = (
        worker_health_app(service.readiness)
        if settings.role == "worker"
        else create_app(settings, composition=service)
    )
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        # JSON logs: uvicorn's own loggers go through our handler instead of uvicorn's.
        log_config=None if settings.log_format == "json" else LOGGING_CONFIG,
        **server_options(settings),
    )
    server = _Server(config)
    settle_heap()
    lag = asyncio.create_task(watch_loop_lag(service.observer), name="loop-lag")
    try:
        await server.serve()
    finally:
        lag.cancel()
        # SIGTERM / Ctrl-C: the server has stopped taking requests; the workers now finish
        # or hand back what they hold, so another process can go on with it at once.
        if engine is not None:
            await engine.stop(SHUTDOWN_GRACE_SECONDS)
        await service.close(grace=SHUTDOWN_GRACE_SECONDS)


def settle_heap() -> None:
    """Take what start-up built (modules, the catalog, the app's routes and schemas: most of
    the heap, all of it living as long as the process) out of the collector's sight, and
    collect the young generation less often. A full collection walked all of it, and it
    stops the event loop: under the lifecycle benchmark they took up to 300 ms each, every
    few seconds, straight into the creates' p99 (docs/performance.md). Reference counting
    still frees everything acyclic at once; cycles are still collected, later."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class _Server(uvicorn.Server):
    """uvicorn re-raises SIGTERM/SIGINT once it has stopped, which would kill the process
    before the workers hand back their work; we take the signals ourselves instead."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.handle_exit, sig, None)
        try:
            yield
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)


async def _welcome(service: Composition) -> None:
    settings = service.settings
    base = settings.resolved_public_url
    console.print(f"[bold]vidrouter[/bold] on {base}  (data: {service.data_dir})")
    if await service.keys.count_active() == 0:
        new = await service.keys.create("default")
        key = new.plaintext
        console.print(
            "Created a first API key (shown only now; `vidrouter keys create` makes more):"
        )
        console.print(f"  API key:        [green]{key}[/green]")
        console.print(f"  webhook secret: [green]{new.key.webhook_secret}[/green]")
    else:
        key = "$VIDROUTER_API_KEY"
        console.print("API keys exist already; `vidrouter keys create --name me` makes another.")
    console.print("\nTry it:")
    console.print(f"  curl -s {base}/v1/models -H 'Authorization: Bearer {key}'", soft_wrap=True)
    console.print(
        f"  curl -s {base}/v1/generations -H 'Authorization: Bearer {key}' "
        "-H 'Content-Type: application/json' "
        '-d \'{"model": "local-preview", "prompt": "a red fox in the snow"}\'',
        soft_wrap=True,
    )
    console.print(
        f"  curl -s {base}/v1/generations/<id> -H 'Authorization: Bearer {key}'\n", soft_wrap=True
    )
    if not settings.allow_private_webhook_urls:
        console.print(
            "Webhooks go to public addresses only; for a receiver on this machine, start with "
            "VIDROUTER_ALLOW_PRIVATE_WEBHOOK_URLS=true.\n"
        )
