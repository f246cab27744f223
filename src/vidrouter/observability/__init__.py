"""Metrics (Prometheus) and machine-readable logs. The rest of the code reports what happens
through one `Observer` per process; nothing here changes what the service does."""

from vidrouter.observability.observer import Observer

__all__ = ["Observer"]
