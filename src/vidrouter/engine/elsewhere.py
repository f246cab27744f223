"""The engine of this process when it runs on a thread and an event loop of its own, beside
the API's (`vidrouter serve --role all`, cli/engine_thread.py): what the API's side may ask
of it. Each call is safe from any thread."""

from __future__ import annotations

from typing import Protocol


class EngineElsewhere(Protocol):
    @property
    def running(self) -> bool:
        """Its work loops run (for /readyz)."""
        ...

    def wake(self) -> None:
        """New generations or batches were written."""

    def wake_deliveries(self) -> None:
        """New webhook deliveries were written."""
