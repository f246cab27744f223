"""The web console at /console: static HTML/JS that uses the public API with the user's key."""

from vidrouter.console.route import console_router

__all__ = ["console_router"]
