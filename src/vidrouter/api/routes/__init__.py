"""One module per resource, each with its `router`."""

from vidrouter.api.routes import callbacks, content, generations, health, models, usage, videos

__all__ = ["callbacks", "content", "generations", "health", "models", "usage", "videos"]
