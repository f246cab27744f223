"""The ASGI application factory."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.types import Receive, Scope, Send

from vidrouter import __version__
from vidrouter.api import budget_header, errors, limits, openapi
from vidrouter.api.content_fastpath import ContentFastPath
from vidrouter.api.deps import ApiParts
from vidrouter.api.fastpath import GenerationReadFastPath
from vidrouter.api.middleware import BodyLimitMiddleware, RequestIdMiddleware, request_id
from vidrouter.api.query_guard import QueryGuardMiddleware
from vidrouter.api.routes import (
    batches,
    callbacks,
    characters,
    content,
    generations,
    health,
    models,
    usage,
    video_ops,
    videos,
)
from vidrouter.api.uploads import UPLOAD_PATHS
from vidrouter.observability.endpoint import metrics_router
from vidrouter.observability.http import HttpMetrics, mark_route
from vidrouter.settings import Settings
from vidrouter.usecases.rate_limits import TooManyRequests

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


class VidrouterApp(FastAPI):
    """The FastAPI app, with the poll fast path tried before anything else (inside the
    HTTP metrics, which count both)."""

    fast_path: GenerationReadFastPath | None = None
    content_fast_path: ContentFastPath | None = None
    http_metrics: HttpMetrics | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.http_metrics is not None:
            await self.http_metrics(scope, receive, send, self._serve)
        else:
            await self._serve(scope, receive, send)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = await self.fast_path.serve(scope, send) if self.fast_path is not None else None
        if route is None and self.content_fast_path is not None:
            route = await self.content_fast_path.serve(scope, send)
        if route is not None:
            mark_route(scope, route)
            return
        await super().__call__(scope, receive, send)


def create_app(settings: Settings, parts: ApiParts, *, lifespan: Lifespan | None = None) -> FastAPI:
    """The app over parts built by the composition root (`vidrouter.composition`), which
    also owns the process's start and stop (`lifespan`)."""
    app = VidrouterApp(
        title="vidrouter",
        version=__version__,
        description="One HTTP API in front of many AI video generation models.",
        lifespan=lifespan,
    )
    app.state.parts = parts
    app.fast_path = GenerationReadFastPath(
        parts.keys, parts.limiter, parts.generations, parts.presenter
    )
    app.content_fast_path = ContentFastPath(parts.content)
    app.http_metrics = parts.observer.http(request_id)
    errors.install(app)
    app.add_exception_handler(TooManyRequests, limits.too_many_requests_handler)
    openapi.install(
        app,
        models=parts.catalog.listed,
        max_prompt_chars=settings.max_prompt_chars,
        max_batch_lines=settings.batch_max_lines,
    )
    app.include_router(models.router)
    app.include_router(generations.router)
    app.include_router(batches.router)
    # Before /v1/videos/{video_id}: `characters` and `edits` are not video ids.
    app.include_router(characters.router)
    app.include_router(video_ops.router)
    app.include_router(videos.router)
    app.include_router(usage.router)
    app.include_router(content.router)
    app.include_router(callbacks.router)
    app.include_router(health.router)
    if settings.metrics:
        app.include_router(metrics_router(parts.observer))
    app.add_middleware(limits.RateLimitHeaders)
    if parts.budgets is not None:
        app.add_middleware(budget_header.BudgetHeader, budgets=parts.budgets)
    app.add_middleware(
        BodyLimitMiddleware,
        max_bytes=settings.max_body_bytes,
        max_upload_bytes=settings.max_upload_bytes,
        upload_paths=UPLOAD_PATHS,
    )
    app.add_middleware(QueryGuardMiddleware)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "DELETE", "HEAD", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id"],
            expose_headers=[
                "X-Request-Id",
                "Location",
                "Retry-After",
                *limits.HEADER_NAMES,
                budget_header.HEADER,
            ],
        )
    app.add_middleware(RequestIdMiddleware)
    return app
