"""The ASGI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from vidrouter import __version__
from vidrouter.api import errors, limits, openapi
from vidrouter.api.fastpath import GenerationReadFastPath
from vidrouter.api.middleware import BodyLimitMiddleware, RequestIdMiddleware
from vidrouter.api.routes import callbacks, content, generations, health, models, usage, videos
from vidrouter.service import Service
from vidrouter.settings import Settings


def create_app(
    settings: Settings, *, service: Service | None = None, run_workers: bool = True
) -> FastAPI:
    """The app. It opens a `Service` (database, migrations, workers) when it starts, unless
    one is handed in already open."""
    own = service is None
    svc = service if service is not None else Service(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if own:
            await svc.open()
            if run_workers:
                svc.start_workers()
        app.state.service = svc
        try:
            yield
        finally:
            if own:
                await svc.close()

    app = FastAPI(
        title="vidrouter",
        version=__version__,
        description="One HTTP API in front of many AI video generation models.",
        lifespan=lifespan,
    )
    app.state.service = svc
    errors.install(app)
    app.add_exception_handler(limits.RateLimited, limits.rate_limited_handler)
    openapi.install(app)
    app.include_router(models.router)
    app.include_router(generations.router)
    app.include_router(videos.router)
    app.include_router(usage.router)
    app.include_router(content.router)
    app.include_router(callbacks.router)
    app.include_router(health.router)
    app.add_middleware(GenerationReadFastPath, service=svc)
    app.add_middleware(limits.RateLimitHeaders)  # outside the fast path: it gets them too
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "DELETE", "HEAD", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id"],
            expose_headers=["X-Request-Id", "Location", "Retry-After", *limits.HEADER_NAMES],
        )
    app.add_middleware(RequestIdMiddleware)
    return app
