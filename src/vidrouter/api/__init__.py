"""The HTTP API: routes, authentication, errors. No provider wire formats live here.

`app.create_app(settings, parts)` builds the FastAPI app over `deps.ApiParts`, what the
routes may use (the composition root fills it in).
"""

from vidrouter.api.app import create_app
from vidrouter.api.deps import ApiParts

__all__ = ["ApiParts", "create_app"]
