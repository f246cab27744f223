"""The schema. Alembic migrations in `migrations/versions/` create exactly this."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    text,
)

from vidrouter.store.types import JSONText, UTCDateTime

metadata = MetaData()

# Rows of leased work (store/leases.py) still waiting: terminal rows have no next_attempt_at.
_WAITING = text("next_attempt_at IS NOT NULL")


def _lease_columns() -> tuple[Column[Any], ...]:
    """When a row of leased work is due next, and which process holds it until when."""
    return (
        Column("next_attempt_at", UTCDateTime(), nullable=True),
        Column("lease_owner", String(64), nullable=True),
        Column("lease_until", UTCDateTime(), nullable=True),
    )


def _due_index(table: str) -> Index:
    """Work is found through this partial index only."""
    return Index(
        f"ix_{table}_due", "next_attempt_at", sqlite_where=_WAITING, postgresql_where=_WAITING
    )


accounts = Table(
    "accounts",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    # The account's spend limit (migration 0007); NULL: none. Period: day | month | total.
    Column("budget_usd", Float, nullable=True),
    Column("budget_period", String(8), nullable=True),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("account_id", String(64), ForeignKey("accounts.id"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("key_prefix", String(16), nullable=False),
    Column("webhook_secret", String(200), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("revoked_at", UTCDateTime(), nullable=True),
    # Set when the key is rotated: it keeps working until then (the grace period).
    Column("expires_at", UTCDateTime(), nullable=True),
    # Set when the webhook secret is rotated: deliveries are signed with both until then.
    Column("previous_webhook_secret", String(200), nullable=True),
    Column("previous_secret_expires_at", UTCDateTime(), nullable=True),
    # The key's own limits; NULL: the service's defaults.
    Column("requests_per_minute", Integer, nullable=True),
    Column("max_concurrent", Integer, nullable=True),
    # The key's own spend limit (migration 0007); NULL: none.
    Column("budget_usd", Float, nullable=True),
    Column("budget_period", String(8), nullable=True),
    # Every create of the key asks for the cache unless it says `"cache": false` (0010).
    Column("cache", Boolean, nullable=True),
)

generations = Table(
    "generations",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("account_id", String(64), ForeignKey("accounts.id"), nullable=False),
    Column("api_key_id", String(64), nullable=True),
    Column("model", String(200), nullable=False),
    Column("prompt", Text, nullable=False),
    Column("duration", Float, nullable=False),
    Column("aspect_ratio", String(16), nullable=False),
    Column("image_url", Text, nullable=True),
    Column("webhook_url", Text, nullable=True),
    Column("metadata", JSONText, nullable=False),
    Column("status", String(16), nullable=False),
    Column("step", String(16), nullable=False),
    Column("progress", Integer, nullable=True),
    Column("route", String(300), nullable=True),
    Column("provider_job_id", String(300), nullable=True),
    Column("provider_job_data", JSONText, nullable=False),
    Column("video_key", String(300), nullable=True),
    Column("video_duration", Float, nullable=True),
    Column("video_width", Integer, nullable=True),
    Column("video_height", Integer, nullable=True),
    Column("error_code", String(64), nullable=True),
    Column("error_message", Text, nullable=True),
    Column("provider_error_code", String(200), nullable=True),
    Column("provider_request_id", String(200), nullable=True),
    Column("billed_seconds", Float, nullable=True),
    Column("cost_amount", Float, nullable=True),
    Column("cost_currency", String(8), nullable=True),
    Column("tries", Integer, nullable=False, server_default=text("0")),
    Column("attempts", JSONText, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Column("started_at", UTCDateTime(), nullable=True),
    Column("completed_at", UTCDateTime(), nullable=True),
    Column("next_attempt_at", UTCDateTime(), nullable=True),
    Column("deadline_at", UTCDateTime(), nullable=True),
    Column("lease_owner", String(64), nullable=True),
    Column("lease_until", UTCDateTime(), nullable=True),
    # Requested seconds x the price of the route it would be billed at, set at creation:
    # what an unfinished generation counts against a budget (migration 0007).
    Column("estimated_cost", Float, nullable=True),
    # A deleted generation keeps its row (the record of its spend) with this set; it is
    # never shown again (migration 0007).
    Column("deleted_at", UTCDateTime(), nullable=True),
    # The request's routing policy (domain/routing.py); NULL: the default policy.
    Column("routing", JSONText, nullable=True),
    # What it asked beyond the seed's fields, its model's defaults filled in
    # (domain/controls.py); NULL on generations made before migration 0008 added it.
    Column("controls", JSONText, nullable=True),
    # controls.resolution again, for grouping usage by it (migration 0008).
    Column("resolution", String(16), nullable=True),
    # The batch that made it (migration 0010); NULL: an interactive create.
    Column("batch_id", String(64), nullable=True),
    # What makes two requests the same (usecases/cache.py); NULL when its inputs could not
    # be hashed at accept. A cache hit's `cached_from` names the generation whose video it
    # shares (migration 0010).
    Column("cache_key", String(64), nullable=True),
    Column("cached_from", String(64), nullable=True),
    _due_index("generations"),
    Index("ix_generations_account_created", "account_id", "created_at", "id"),
    Index("ix_generations_batch", "batch_id"),
    Index("ix_generations_cache_key", "cache_key", "completed_at"),
    Index("ix_generations_video_key", "video_key"),  # who else shares a video
    # A provider's account-wide webhook names its job id, not ours (migration 0009): found
    # among the rows still waiting, which alone have a next_attempt_at.
    Index(
        "ix_generations_provider_job",
        "provider_job_id",
        sqlite_where=_WAITING,
        postgresql_where=_WAITING,
    ),
)

webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("id", String(64), primary_key=True),  # the `webhook-id`, stable across retries
    # A batch's delivery has a batch_id instead (migration 0010).
    Column("generation_id", String(64), ForeignKey("generations.id"), nullable=True),
    Column("batch_id", String(64), nullable=True),
    Column("account_id", String(64), nullable=False),
    Column("api_key_id", String(64), nullable=True),
    Column("url", Text, nullable=False),
    Column("event_type", String(64), nullable=False),
    Column("payload", Text, nullable=False),  # the exact bytes signed, fixed at the event
    Column("status", String(16), nullable=False),  # pending | delivered | failed
    Column("tries", Integer, nullable=False, server_default=text("0")),
    Column("last_status_code", Integer, nullable=True),
    Column("last_error", Text, nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("delivered_at", UTCDateTime(), nullable=True),
    *_lease_columns(),
    _due_index("webhook_deliveries"),
    Index("ix_webhook_deliveries_generation", "generation_id"),
)

service_values = Table(
    "service_values",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

route_health = Table(
    "route_health",
    metadata,
    Column("route", String(300), primary_key=True),  # "<provider>:<provider model>"
    Column("state", String(16), nullable=False),  # closed | open
    Column("failures", Integer, nullable=False, server_default=text("0")),
    # Jobs the route accepted and then lost (failed at the provider, or hung): reset only by
    # a completed job, where `failures` (refused calls) is reset by any accepted call too.
    Column("job_failures", Integer, nullable=False, server_default=text("0")),
    Column("window_started_at", UTCDateTime(), nullable=True),
    Column("opened_at", UTCDateTime(), nullable=True),
    Column("probe_until", UTCDateTime(), nullable=True),  # a half-open probe is in flight
    Column("updated_at", UTCDateTime(), nullable=False),
)

idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("account_id", String(64), primary_key=True),
    Column("key", String(255), primary_key=True),
    Column("request_hash", String(64), nullable=False),
    Column("generation_id", String(64), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
)

# Unfinished generations of a key, counted on every create (the concurrency limit).
Index(
    "ix_generations_account_status",
    generations.c.account_id,
    generations.c.status,
    generations.c.api_key_id,
)

# Fixed-window request counters shared by every process: one row per counter (e.g. a key's
# requests per minute), reset in place when a new window starts. UNLOGGED on PostgreSQL
# (migration 0004): cheap to write, and nothing is lost that matters after a crash.
rate_counters = Table(
    "rate_counters",
    metadata,
    Column("name", String(100), primary_key=True),
    Column("window_start", BigInteger, nullable=False),  # unix seconds
    Column("hits", Integer, nullable=False),
)

# A submit reserved on a route with a `max_concurrent` cap, from the choice of the route
# until the step's outcome is saved (migration 0005; store/route_slots.py). Expires with
# the lease of a process that died meanwhile.
route_slots = Table(
    "route_slots",
    metadata,
    Column("generation_id", String(64), primary_key=True),
    Column("route", String(300), nullable=False),
    Column("owner", String(64), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Index("ix_route_slots_route", "route"),
)

# One row per job a route finished (completed, or failed for the provider's reasons): the
# live route stats (store/route_stats.py) are read from a sliding window of these.
route_outcomes = Table(
    "route_outcomes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("route", String(300), nullable=False),
    Column("outcome", String(16), nullable=False),  # completed | failed | timed_out
    Column("seconds", Float, nullable=True),  # submit to completion (or to giving up)
    Column("finished_at", UTCDateTime(), nullable=False),
    Index("ix_route_outcomes_route_finished", "route", "finished_at"),
)

# A batch of creates (migration 0010; store/batches.py): leased work like generations. A
# batch is due while it has lines to start or generations to wait for.
batches = Table(
    "batches",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("account_id", String(64), ForeignKey("accounts.id"), nullable=False),
    Column("api_key_id", String(64), nullable=False),
    Column("status", String(16), nullable=False),  # queued | in_progress | completed | ...
    Column("total", Integer, nullable=False),
    Column("estimated_total", Float, nullable=False),
    Column("webhook_url", Text, nullable=True),
    Column("metadata", JSONText, nullable=False),
    Column("error_code", String(64), nullable=True),
    Column("error_message", Text, nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Column("completed_at", UTCDateTime(), nullable=True),
    *_lease_columns(),
    _due_index("batches"),
    Index("ix_batches_account_created", "account_id", "created_at", "id"),
)

# One create body of a batch. `generation_id` is set in the transaction that inserts the
# generation: a line is started exactly once.
batch_lines = Table(
    "batch_lines",
    metadata,
    Column("batch_id", String(64), ForeignKey("batches.id"), primary_key=True),
    Column("line", Integer, primary_key=True),  # its line number in the file, from 1
    Column("custom_id", String(200), nullable=False),
    Column("body", JSONText, nullable=False),
    Column("generation_id", String(64), nullable=True),
    # Why it never made a generation (e.g. the budget ran out, the batch was canceled).
    Column("error_code", String(64), nullable=True),
    Column("error_message", Text, nullable=True),
)

# A character (migration 0011; store/characters.py): a clip an account uploaded once and
# names in creates as a reference. Its media are blobs: the video and a frame of it.
characters = Table(
    "characters",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("account_id", String(64), ForeignKey("accounts.id"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("video_key", String(200), nullable=False),
    Column("image_key", String(200), nullable=False),
    Column("seconds", Float, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Index("ix_characters_account", "account_id", "created_at"),
)
