"""What the commands that talk to a running server share: where it is, the key, the client,
and how an error is shown."""

from __future__ import annotations

import json
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from vidrouter.client import DEFAULT_BASE_URL, APIError, Client, ClientError

BaseUrl = Annotated[
    str,
    typer.Option(
        "--base-url",
        envvar="VIDROUTER_BASE_URL",
        help="The server's address.",
        show_default=True,
    ),
]
ApiKey = Annotated[
    str | None,
    typer.Option(
        "--api-key", envvar="VIDROUTER_API_KEY", help="The API key (vr_...).", show_default=False
    ),
]
Json = Annotated[
    bool, typer.Option("--json", help="Print JSON on stdout (messages stay on stderr).")
]

DEFAULT = DEFAULT_BASE_URL
err = Console(stderr=True)
out = Console()


def client(api_key: str | None, base_url: str, *, poll_interval: float = 1.0) -> Client:
    if not api_key:
        err.print(
            "[red]No API key[/]: pass --api-key or set VIDROUTER_API_KEY "
            "(make one with `vidrouter keys create --name NAME`)."
        )
        raise typer.Exit(2)
    return Client(api_key, base_url=base_url, poll_interval=poll_interval)


def fail(exc: ClientError, *, as_json: bool = False) -> NoReturn:
    """Show the error (the API's code and message when it has them) and exit 1."""
    if isinstance(exc, APIError):
        err.print(
            f"[red]Error {exc.status_code} {exc.code}[/]: {exc.message}",
            highlight=False,
            soft_wrap=True,
        )
        if as_json:
            typer.echo(json.dumps({"error": exc.error.model_dump()}))
    else:
        err.print(f"[red]Error[/]: {exc}", highlight=False, soft_wrap=True)
        if as_json:
            typer.echo(json.dumps({"error": {"code": "client_error", "message": str(exc)}}))
    raise typer.Exit(1)


def money(amount: float, currency: str = "USD") -> str:
    return f"{amount:.4f} {currency}".replace(".0000 ", ".00 ")
