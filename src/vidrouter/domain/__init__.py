"""The domain: generations, their states, the model catalog and the rules of a request.

Knows nothing but the standard library and pydantic. Its modules hold the rest: `catalog`
(models, routes), `controls` (optional controls and their prices), `create_fields` (the
create request's fields, declared once), `create_request` and `create_controls` (the rules
of a create), `create_schema` (its JSON Schema per model), `routing` (routing policies and
`route_candidates`), `representation` (the public JSON),
`errors`, `ids`, `media`, `addresses`, `text`, `clock`.
"""

from vidrouter.domain.catalog import Catalog, ModelSpec, Route, load_catalog
from vidrouter.domain.controls import Controls
from vidrouter.domain.create_fields import CreateBody, CreateControls
from vidrouter.domain.errors import (
    Conflict,
    InvalidRequest,
    NotFound,
    RequestError,
    Unavailable,
    VidrouterError,
)
from vidrouter.domain.generation import TERMINAL, Attempt, Generation, GenerationError, Status, Step
from vidrouter.domain.routing import RouteAsk, RoutingPolicy, route_candidates

__all__ = [
    "TERMINAL",
    "Attempt",
    "Catalog",
    "Conflict",
    "Controls",
    "CreateBody",
    "CreateControls",
    "Generation",
    "GenerationError",
    "InvalidRequest",
    "ModelSpec",
    "NotFound",
    "RequestError",
    "Route",
    "RouteAsk",
    "RoutingPolicy",
    "Status",
    "Step",
    "Unavailable",
    "VidrouterError",
    "load_catalog",
    "route_candidates",
]
