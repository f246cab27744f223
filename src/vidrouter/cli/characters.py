"""`vidrouter characters create NAME CLIP.mp4`, `characters get ID`, `characters delete ID`:
the account's characters on a running server, each then named in a create as
`--reference character=ID`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from vidrouter.cli.remote import Server, out, shown, with_server
from vidrouter.client import Character

app = typer.Typer(help="Keep, read and delete the account's characters.", no_args_is_help=True)

CharacterId = Annotated[str, typer.Argument(help="The character's id (char_...).")]


@app.command("create")
@with_server
def create(
    name: Annotated[str, typer.Argument(help="Its name.")],
    clip: Annotated[
        Path, typer.Argument(help="Its clip: a local MP4.", exists=True, dir_okay=False)
    ],
    server: Server,
) -> None:
    """Keep a character: a name and a short clip of it."""
    made = server.ask(lambda api: api.create_character(name, clip))
    _show(made, server.as_json)


@app.command("get")
@with_server
def get(character_id: CharacterId, server: Server) -> None:
    """A character of the account."""
    _show(server.ask(lambda api: api.character(character_id)), server.as_json)


@app.command("delete")
@with_server
def delete(character_id: CharacterId, server: Server) -> None:
    """Delete a character; generations that named it keep their copy."""
    server.ask(lambda api: api.delete_character(character_id))
    if server.as_json:
        typer.echo(json.dumps({"id": character_id, "deleted": True}))
    else:
        out.print(f"deleted {shown(character_id, 80)}", highlight=False)


def _show(character: Character, as_json: bool) -> None:
    if as_json:
        typer.echo(character.model_dump_json())
    else:
        out.print(f"{shown(character.id, 80)}  {shown(character.name, 120)}", highlight=False)
