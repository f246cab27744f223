"""The OpenAPI document, made true: FastAPI's 422 shape never leaves this service, and
every route declares the error statuses it can really answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from vidrouter.api import openapi_requests as requests
from vidrouter.domain.catalog import ListedModel

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


def install(
    app: FastAPI, *, models: Callable[[], list[ListedModel]], max_prompt_chars: int
) -> None:
    """`models`: those listed on this server (the create bodies are described per model)."""

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
        _describe_requests(doc, models(), max_prompt_chars)
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]


def _describe_requests(doc: dict[str, Any], models: list[ListedModel], max_chars: int) -> None:
    """The request shapes this server really accepts (see `openapi_requests`)."""
    paths = doc["paths"]
    if models:
        body = paths["/v1/generations"]["post"]["requestBody"]["content"]["application/json"]
        body["schema"] = requests.generation_create(models, max_chars)
    videos = requests.video_create(models, max_chars)
    if videos is not None:
        content = paths["/v1/videos"]["post"]["requestBody"]["content"]
        content["application/json"]["schema"], content["multipart/form-data"]["schema"] = videos
    for parameter in paths["/v1/videos/{video_id}/content"]["get"]["parameters"]:
        if parameter["name"] == "variant":
            # thumbnail and spritesheet are OpenAI's; here they are 400 variant_unsupported.
            parameter["schema"] = {"type": "string", "enum": ["video"], "default": "video"}
    for operations in paths.values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    _no_nul(parameter["schema"])
    for parameter in paths["/v1/usage"]["get"]["parameters"]:
        if parameter["name"] in ("from", "to"):
            parameter["schema"] = {**requests.USAGE_BOUND, "description": parameter["description"]}


def _no_nul(schema: dict[str, Any]) -> None:
    """A free string query parameter cannot hold NUL (refused before any route: the
    databases refuse it)."""
    for branch in schema.get("anyOf", [schema]):
        if branch.get("type") == "string" and not {"enum", "const", "pattern", "format"} & set(
            branch
        ):
            branch["pattern"] = requests.NO_NUL


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
