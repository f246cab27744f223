"""The one settings object, built once at start-up and passed down.

Every setting is an environment variable with the `VIDROUTER_` prefix; provider credentials
use each provider's own conventional variable name (no prefix).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

DEFAULT_RETRY_SCHEDULE = (5, 300, 1800, 7200, 18000, 36000, 36000)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="VIDROUTER_", extra="ignore")

    _environ: dict[str, str] = PrivateAttr(default_factory=dict)

    data_dir: Path = Path("./vidrouter-data")
    database_url: str | None = None
    public_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000

    allow_private_webhook_urls: bool = False
    webhook_retry_schedule: Annotated[tuple[float, ...], NoDecode] = DEFAULT_RETRY_SCHEDULE
    webhook_timeout_seconds: float = 15.0

    workers: int = Field(default=4, ge=0)
    render_processes: int = Field(default=2, ge=1)
    lease_seconds: float = Field(default=30.0, gt=0)
    idle_poll_seconds: float = Field(default=1.0, gt=0)
    # A claim also takes the work falling due this soon (each item still runs at its time),
    # so that polls spread over time are claimed in batches, not one transaction each.
    claim_ahead_seconds: float = Field(default=0.25, ge=0, le=1)
    # Scales every provider timing (first poll, poll interval, retry backoff, Retry-After,
    # longest wait). For tests and development against fakes; leave at 1 in production.
    provider_delay_scale: float = Field(default=1.0, gt=0)

    # Circuit breakers per route: open after this many retryable failures within the window,
    # probe again after the cooldown.
    circuit_failure_threshold: int = Field(default=5, ge=1)
    circuit_window_seconds: float = Field(default=60.0, gt=0)
    circuit_cooldown_seconds: float = Field(default=30.0, gt=0)
    # Route stats (docs/routing.md): the sliding window they cover, and when a job has run
    # too long on its route: this multiple of the route's observed p95 once it has this many
    # completed jobs in the window (never under the floor, which scales with
    # provider_delay_scale; never over the provider's documented longest run).
    route_stats_window_seconds: float = Field(default=3600.0, gt=0)
    route_hang_p95_multiple: float = Field(default=3.0, ge=1)
    route_hang_min_seconds: float = Field(default=120.0, gt=0)
    route_hang_min_samples: int = Field(default=5, ge=1)
    # The longest a generation may take from creation to a terminal state.
    generation_deadline_seconds: float = Field(default=3600.0, gt=0)

    # Providers that can call us back get a per-generation URL under VIDROUTER_PUBLIC_URL
    # (a hint to poll at once). "auto": on unless the public URL is a loopback address.
    provider_callbacks: Literal["auto", "on", "off"] = "auto"

    catalog: Path | None = None
    # Where finished videos go: file:///DIR (default: the data dir's blobs/) or
    # s3://BUCKET[/PREFIX] with the standard AWS_* variables (see docs/deployment.md).
    storage_url: str | None = None
    # How the content host serves them: stream from the store ("proxy", any replica serves
    # any video) or a 302 to a presigned URL of the store ("redirect", for CDN-fronted ones).
    content_delivery: Literal["proxy", "redirect"] = "proxy"
    # Small videos on local disk kept in memory by the content host, in bytes (0: none).
    content_cache_bytes: int = Field(default=64 * 1024 * 1024, ge=0)
    # What `vidrouter serve` runs: "api" (HTTP API + content host), "worker" (engine,
    # webhooks, local renderer, a health endpoint) or "all" (both, one process).
    role: Literal["all", "api", "worker"] = "all"
    signing_secret: str | None = None
    content_url_ttl_seconds: int = Field(default=7 * 24 * 3600, gt=0)

    # How long a key lookup is remembered: a key revoked by another process (e.g. the
    # `keys revoke` command) is refused within this many seconds.
    key_cache_seconds: float = Field(default=5.0, ge=0)

    # Limits per API key; a key's own (`vidrouter keys set-limits`) win over these.
    rate_limit_rpm: int = Field(default=600, ge=1)
    max_concurrent_generations: int = Field(default=50, ge=1)
    # Rate counters in Redis (e.g. redis://127.0.0.1:6379/0) instead of the database.
    redis_url: str | None = None
    # Rate counts are kept in memory and added to the shared counter this often: one
    # shared write per key per interval. 0: every request writes (exact across processes).
    rate_limit_sync_seconds: float = Field(default=0.25, ge=0)

    # How stale a GET of an unfinished generation may be when ANOTHER process changed it
    # (this process's own changes show at once): polls cost no database read meanwhile.
    poll_cache_seconds: float = Field(default=0.5, ge=0)

    # The cache of identical requests (docs/api.md): how long a completed generation answers
    # an identical create, and whether one account's may answer another's ("shared").
    cache_ttl_seconds: float = Field(default=7 * 24 * 3600.0, gt=0)
    cache_shared: bool = False
    # Batches: the most generations one batch has unfinished at once (within the key's
    # `max_concurrent`, of which a quarter stays free for interactive creates), the most
    # lines in one batch, and how often a running batch checks on its generations.
    batch_concurrency: int = Field(default=16, ge=1)
    batch_max_lines: int = Field(default=50_000, ge=1)
    batch_poll_seconds: float = Field(default=1.0, gt=0)

    max_prompt_chars: int = Field(default=4000, gt=0)
    max_body_bytes: int = Field(default=1_000_000, gt=0)
    # A video file uploaded to OpenAI's edits, extensions and characters (multipart): read
    # to disk as it arrives; each model's `max_source_mb` then applies.
    max_upload_bytes: int = Field(default=512 * 1024 * 1024, gt=0)
    # The HTTP server's own limits (server/limits.py): a request's line and headers must
    # arrive within the timeout and fit the size; connections over the cap are refused.
    header_timeout_seconds: float = Field(default=10.0, gt=0)
    max_header_bytes: int = Field(default=64 * 1024, ge=1024)
    max_connections: int = Field(default=1000, ge=1)
    keep_alive_seconds: float = Field(default=5.0, gt=0)
    # Browser origins allowed to call the API (CORS). Empty: no CORS headers at all.
    cors_origins: Annotated[tuple[str, ...], NoDecode] = ()
    log_level: str = "INFO"
    # "json": one JSON object per log line (docs/operations.md).
    log_format: Literal["text", "json"] = "text"
    # GET /metrics (Prometheus) on the API port, without a key; off: not served (404).
    metrics: bool = True

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, _MappingEnvSource(settings_cls))

    @field_validator("webhook_retry_schedule", mode="before")
    @classmethod
    def _parse_schedule(cls, value: object) -> object:
        if isinstance(value, str):
            parts = [p.strip() for p in value.split(",") if p.strip()]
            return tuple(float(p) for p in parts)
        return value

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _parse_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(o.strip() for o in value.split(",") if o.strip())
        return value

    @field_validator("webhook_retry_schedule")
    @classmethod
    def _check_schedule(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if any(v < 0 for v in value):
            raise ValueError("retry delays must be >= 0 seconds")
        return value

    @model_validator(mode="after")
    def _check_delivery(self) -> Settings:
        # Local disk has no presigned URLs: "redirect" there could only stream (a 200 where
        # docs/api.md promises a 302), so the contradiction is refused at start-up.
        if self.content_delivery == "redirect" and not (self.storage_url or "").startswith("s3://"):
            raise ValueError(
                "VIDROUTER_CONTENT_DELIVERY=redirect needs object storage with presigned URLs "
                "(VIDROUTER_STORAGE_URL=s3://BUCKET); local storage (file://, the default) "
                "has none, so its videos can only be streamed: use "
                "VIDROUTER_CONTENT_DELIVERY=proxy (the default)"
            )
        return self

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'vidrouter.sqlite3').resolve()}"

    @property
    def resolved_public_url(self) -> str:
        if self.public_url:
            return self.public_url.rstrip("/")
        return f"http://{self.host}:{self.port}"

    def env(self, name: str) -> str | None:
        """A variable of the environment the settings were built from (provider credentials
        use their own conventional names, e.g. `GEMINI_API_KEY`); empty counts as unset."""
        value = self._environ.get(name)
        return value or None

    def provider_base_url(self, provider: str, default: str) -> str:
        """`VIDROUTER_<PROVIDER>_BASE_URL` when set (proxies, test fakes), else the default."""
        override = self.env(f"VIDROUTER_{provider.upper()}_BASE_URL")
        return (override or default).rstrip("/")


def load_settings(environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Build the settings from an environment (the process's by default) plus overrides.

    An explicit `environ` is the whole environment: the process's is not consulted, so tests
    and embedders get exactly what they pass.
    """
    env = dict(os.environ if environ is None else environ)
    token = _ENVIRON.set(env)
    try:
        settings = Settings(**overrides)
    finally:
        _ENVIRON.reset(token)
    settings._environ = env
    return settings


_ENVIRON: ContextVar[Mapping[str, str] | None] = ContextVar("vidrouter_environ", default=None)


class _MappingEnvSource(EnvSettingsSource):
    def _load_env_vars(self) -> Mapping[str, str | None]:
        environ = _ENVIRON.get()
        if environ is None:
            return super()._load_env_vars()
        return {k.lower(): v for k, v in environ.items()}
