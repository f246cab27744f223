"""`vidrouter.client`'s remix, edit and extend, and the account's characters, against a real
`vidrouter serve`, with the blocking and the async client and the `characters` command: each operation's generation
completes on `local-preview` (an extension the whole video), a character is kept, used as a
reference, read and deleted, and a lost answer is retried into one generation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke_cli
from tests.support.clips import solid_mp4
from tests.support.live_server import LiveServer, module_server
from tests.support.lossy_proxy import LossyProxy, lossy_proxy
from tests.support.video import decode
from vidrouter.client import AsyncClient, Client, ClientError, NotFoundError

server = module_server("client-ops")


def test_remix_edit_and_extend(server: LiveServer, tmp_path: Path) -> None:
    key = server.fresh_key("client-ops")
    with Client(key, base_url=server.base_url, poll_interval=0.1) as client:
        source = client.generate("local-preview", "a fox", duration=0.5)
        remixed = client.remix(source.id, "at night")
        edited = client.edit(source.id, "in snow", model="local-preview")
        extended = client.extend(source.id, "it runs on", 0.5)
        assert remixed.type == edited.type == "video-to-video"
        assert extended.type == "video-extend" and extended.video == {"generation_id": source.id}
        done = [client.wait(g.id) for g in (remixed, edited, extended)]
        assert [g.status for g in done] == ["completed"] * 3
        path = client.download(extended.id, tmp_path / "whole.mp4")
        assert len(list(client.list())) == 4
    assert decode(path.read_bytes(), tmp_path).frames == 24  # the source, then 0.5 s more


def test_an_extension_whose_answer_is_lost_is_made_once(server: LiveServer) -> None:
    key = server.fresh_key("client-ops")
    with Client(key, base_url=server.base_url, poll_interval=0.1) as direct:
        source = direct.generate("local-preview", "a fox", duration=0.5)
    proxy = LossyProxy(
        server.base_url,
        faults=["drop"],
        matches=lambda method, path: method == "POST" and path == "/v1/videos/extensions",
    )
    with lossy_proxy(proxy) as url, Client(key, base_url=url) as client:
        made = client.extend(source.id, "on", 0.5)
    sent = [s for s in proxy.seen if s.method == "POST"]
    assert [s.fault for s in sent] == ["drop", None] and sent[0].status == 200
    assert len({s.idempotency_key for s in sent}) == 1
    with Client(key, base_url=server.base_url) as direct:
        assert [g.id for g in direct.list()] == [made.id, source.id]


def test_characters(server: LiveServer, tmp_path: Path) -> None:
    key = server.fresh_key("client-ops")
    clip = tmp_path / "mia.mp4"
    clip.write_bytes(solid_mp4(seconds=0.5))
    with Client(key, base_url=server.base_url, poll_interval=0.1) as client:
        mia = client.create_character("Mia", clip)
        assert mia.name == "Mia" and mia.id.startswith("char_")
        assert client.character(mia.id) == mia
        made = client.generate(
            "local-preview",
            "Mia waves",
            duration=0.5,
            references=[{"type": "character", "id": mia.id}],
        )
        assert made.status == "completed" and made.type == "reference-to-video"
        client.delete_character(mia.id)
        with pytest.raises(NotFoundError):
            client.character(mia.id)
        with pytest.raises(ClientError, match="cannot read"):
            client.create_character("Nobody", tmp_path / "missing.mp4")


async def test_the_async_client_does_the_same(server: LiveServer, tmp_path: Path) -> None:
    key = server.fresh_key("client-ops")
    clip = tmp_path / "leo.mp4"
    clip.write_bytes(solid_mp4(seconds=0.5))
    async with AsyncClient(key, base_url=server.base_url, poll_interval=0.1) as client:
        source = await client.generate("local-preview", "an owl", duration=0.5)
        extended = await client.wait((await client.extend(source.id, "on", 0.5)).id)
        assert extended.status == "completed" and extended.duration == 0.5
        remixed = await client.wait((await client.remix(source.id, "at dawn")).id)
        assert remixed.status == "completed"
        leo = await client.create_character("Leo", clip)
        assert (await client.character(leo.id)).name == "Leo"
        await client.delete_character(leo.id)
        with pytest.raises(NotFoundError):
            await client.character(leo.id)


def test_the_characters_command(server: LiveServer, tmp_path: Path) -> None:
    """`vidrouter characters create|get|delete`, and `generate --reference character=ID`."""
    (tmp_path / "ada.mp4").write_bytes(solid_mp4(seconds=0.5))
    env = {
        "VIDROUTER_BASE_URL": server.base_url,
        "VIDROUTER_API_KEY": server.fresh_key("client-ops"),
    }
    made = invoke_cli(env, "characters", "create", "Ada", "ada.mp4", "--json", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    ada = json.loads(made.stdout)
    assert ada["name"] == "Ada" and ada["id"].startswith("char_")
    got = invoke_cli(env, "characters", "get", ada["id"])
    assert got.returncode == 0 and ada["id"] in got.stdout and "Ada" in got.stdout
    used = invoke_cli(env, "generate", "Ada waves", "-m", "local-preview", "--duration", "0.5",
                      "--reference", f"character={ada['id']}", "-o", "ada-out.mp4", "--json",
                      cwd=tmp_path)  # fmt: skip
    assert used.returncode == 0, used.stderr
    assert json.loads(used.stdout)["references"][0]["type"] == "character"
    assert invoke_cli(env, "characters", "delete", ada["id"]).returncode == 0
    gone = invoke_cli(env, "characters", "get", ada["id"], "--json")
    assert gone.returncode == 1 and json.loads(gone.stdout)["error"]["code"]
