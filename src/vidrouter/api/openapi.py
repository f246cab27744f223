"""The OpenAPI document, made true: FastAPI's 422 shape never leaves this service, and
every route declares the error statuses it can really answer."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

_ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}
_ERROR_SCHEMA = {
    "title": "ErrorOut",
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "code", "message", "param"],
            "properties": {
                "type": {"type": "string"},
                "code": {"type": "string"},
                "message": {"type": "string"},
                "param": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
        }
    },
}
_DESCRIPTIONS = {
    "400": "Invalid request",
    "401": "Missing or invalid API key",
    "403": "Invalid or expired signature",
    "404": "Not found",
    "405": "Method not allowed",
    "409": "Conflict",
    "413": "Body too large",
    "429": "Rate or concurrency limit",
    "500": "Internal error (a bug)",
    "503": "No healthy provider for the model",
}


def _error(status: str) -> dict[str, Any]:
    return {
        "description": _DESCRIPTIONS.get(status, "Error"),
        "content": {"application/json": {"schema": _ERROR_REF}},
    }


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        doc = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        components = doc.setdefault("components", {})
        schemas = components.setdefault("schemas", {})
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        schemas["ErrorOut"] = _ERROR_SCHEMA
        components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        for path, operations in doc.get("paths", {}).items():
            for method, operation in operations.items():
                _complete(path, method, operation)
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]


def _complete(path: str, method: str, operation: dict[str, Any]) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    responses.pop("422", None)
    statuses = {"400", "413", "500"}
    if path.startswith("/v1/") and not path.startswith("/v1/provider-callbacks"):
        operation["security"] = [{"bearer": []}]
        statuses |= {"401", "429"}
    if "{" in path:
        statuses.add("404")
    if path.startswith("/v1/provider-callbacks"):
        statuses.add("404")
    for status in statuses:
        existing = responses.get(status)
        if existing is None or "content" not in existing:
            responses[status] = _error(status)
        else:
            existing["content"] = {"application/json": {"schema": _ERROR_REF}}
