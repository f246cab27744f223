"""The web console in a real browser (Debian's chromium driven by Playwright) against a real
`vidrouter serve`: a key, the models, a generation that plays, the history, the usage chart,
a bad key's message, and the page's Content-Security-Policy.

Screenshots go to $VIDROUTER_CONSOLE_SCREENSHOTS when set (that is how docs/console-*.png
are made), else to the test's temporary directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.support.catalogs import local_model
from tests.support.live_server import LiveServer, live_server
from tests.support.process import create_key
from tests.support.video import decode
from vidrouter.client import Client

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# A priced model beside the free one, so the usage chart has costs to draw.
CATALOG = local_model(
    "local-preview-priced",
    0.05,
    name="local preview (priced, for the console test)",
    description="The built-in renderer at a price.",
    provider="vidrouter",
    max_duration=8,
    default_duration=2,
    aspect_ratios=["16:9", "1:1"],
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs it")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    root = tmp_path_factory.mktemp("console")
    catalog = root / "catalog.toml"
    catalog.write_text(CATALOG)
    with live_server(root, VIDROUTER_CATALOG=str(catalog)) as live:
        yield live


@pytest.fixture
def page(server: LiveServer) -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        page = context.new_page()
        violations: list[str] = []
        page.on(
            "console",
            lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
        )
        yield page
        browser.close()
        assert not violations, violations  # nothing on the page breaks its own policy


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    target = os.environ.get("VIDROUTER_CONSOLE_SCREENSHOTS")
    return Path(target) if target else tmp_path


def use_key(page: Page, server: LiveServer, key: str) -> None:
    page.goto(server.base_url + "/console")
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Use key").click()


NEXT_COMPLETED = """(previous) => {
  const id = document.getElementById('current-id').textContent;
  const status = document.getElementById('current-status');
  return id && id !== previous && status.classList.contains('status-completed');
}"""
VIDEO_PLAYS = """(id) => {
  const v = document.getElementById(id);
  return v && v.readyState >= 2 && v.currentTime > 0.2;
}"""
# The first history row's poster has loaded (decoded by the browser) in the video's shape.
POSTER_SHOWN = """(ratio) => {
  const img = document.querySelector('#history tbody tr img.poster');
  return img && img.complete && img.naturalWidth > 0
    && Math.abs(img.naturalWidth / img.naturalHeight - ratio) < 0.02;
}"""


def test_generate_in_the_browser_and_watch_it_play(
    server: LiveServer, page: Page, shots: Path
) -> None:
    p = page
    use_key(p, server, server.key)
    models = p.locator("#models tbody tr")
    expect(models.filter(has_text="local-preview").first).to_contain_text("16:9")
    expect(models.filter(has_text="local-preview-priced")).to_contain_text("$0.05")

    # One priced generation first, so the history and the chart have a cost to show.
    p.get_by_label("Prompt").fill("a lighthouse at dusk")
    p.get_by_label("Model").select_option("local-preview-priced")
    p.get_by_role("button", name="Generate").click()
    p.wait_for_function(VIDEO_PLAYS, arg="current-video", timeout=120_000)
    expect(p.locator("#current-cost")).to_contain_text("$0.1000")

    p.get_by_label("Prompt").fill("a red fox running through snow")
    p.get_by_label("Model").select_option("local-preview")
    p.get_by_label("Duration (s)").select_option("3")
    p.get_by_label("Aspect ratio").select_option("16:9")
    first_id = p.locator("#current-id").text_content()
    p.get_by_role("button", name="Generate").click()
    p.wait_for_function(NEXT_COMPLETED, arg=first_id, timeout=120_000)
    p.wait_for_function(VIDEO_PLAYS, arg="current-video", timeout=60_000)
    played = p.evaluate("() => document.getElementById('current-video').currentTime")
    p.wait_for_function(
        "(t) => document.getElementById('current-video').currentTime !== t", arg=played
    )
    p.locator("#generate-section").screenshot(path=str(shots / "console-generate.png"))

    history = p.locator("#history tbody tr")
    expect(history).to_have_count(2)
    expect(history.first).to_contain_text("a red fox running through snow")
    expect(history.nth(1)).to_contain_text("$0.1000")
    p.wait_for_function(POSTER_SHOWN, arg=16 / 9, timeout=30_000)  # the fox's, from its row
    history.nth(1).get_by_role("button", name="Play").click()
    p.wait_for_function(VIDEO_PLAYS, arg="history-video", timeout=60_000)

    expect(p.locator("#usage-total")).to_contain_text("2 generations")
    bars = p.locator("#usage-chart rect.bar")
    expect(bars).to_have_count(30)
    heights = [float(bars.nth(i).get_attribute("height") or 0) for i in range(30)]
    assert heights[-1] > 0 and sum(1 for h in heights if h > 0) == 1  # today, and only today
    p.screenshot(path=str(shots / "console-overview.png"), full_page=True)

    # The key lives in this tab's session storage, and nowhere that outlives it.
    stored = p.evaluate("() => [sessionStorage.getItem('vidrouter.apiKey'), localStorage.length]")
    assert stored == [server.key, 0]


def test_a_bad_key_shows_a_clear_message(server: LiveServer, page: Page, shots: Path) -> None:
    p = page
    use_key(p, server, "vr_" + "0" * 40)
    message = p.locator("#key-message")
    expect(message).to_be_visible()
    expect(message).to_contain_text("API key refused")
    expect(message).to_contain_text("invalid_api_key")
    expect(p.locator("#app")).to_be_hidden()
    assert p.evaluate("() => sessionStorage.getItem('vidrouter.apiKey')") is None
    p.locator("header").screenshot(path=str(shots / "console-bad-key.png"))


def test_the_page_sets_a_strict_content_security_policy(server: LiveServer) -> None:
    page = httpx.get(server.base_url + "/console")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    assert f"media-src 'self' {server.base_url}" in policy  # the content host's origin
    assert f"img-src 'self' data: {server.base_url}" in policy  # and the posters' too
    assert "<script>" not in page.text and "style=" not in page.text
    for name in ("console.js", "console.css"):
        asset = httpx.get(f"{server.base_url}/console/static/{name}")
        assert asset.status_code == 200 and asset.headers["content-security-policy"] == policy
    missing = httpx.get(server.base_url + "/console/static/..%2Fapi.md")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "route_not_found"


def test_batches_show_their_progress_results_and_cancel(
    server: LiveServer, page: Page, shots: Path
) -> None:
    line = {"model": "local-preview", "prompt": "p", "duration": 0.5, "resolution": "480p"}
    with Client(server.key, base_url=server.base_url) as api:
        finished = api.create_batch([{**line, "custom_id": "first"}])
        api.wait_batch(finished.id, timeout=120, poll_interval=0.2)
        # Long renders: this one is still running when the console cancels it.
        running = api.create_batch(
            [{**line, "duration": 20, "custom_id": f"long-{i}"} for i in range(20)]
        )
    use_key(page, server, server.key)
    done_row = page.locator(f'#batches tr[data-batch="{finished.id}"]')
    expect(done_row).to_contain_text("completed")
    expect(done_row).to_contain_text("1 / 1")
    with page.expect_download() as download:
        done_row.get_by_role("button", name="Results").click()
    results = Path(download.value.path()).read_text()
    assert '"custom_id":"first"' in results and '"status":"completed"' in results

    running_row = page.locator(f'#batches tr[data-batch="{running.id}"]')
    expect(running_row).to_contain_text("/ 20")
    running_row.get_by_role("button", name="Cancel").click()
    expect(running_row).to_contain_text("cancel")
    page.locator("#batches-section").screenshot(path=str(shots / "console-batches.png"))
    with Client(server.key, base_url=server.base_url) as api:
        ended = api.wait_batch(running.id, timeout=60, poll_interval=0.2)
    assert ended.status == "canceled" and ended.counts["canceled"] == 20


def test_reference_image_and_extend_from_the_console(
    server: LiveServer, page: Page, shots: Path, tmp_path: Path
) -> None:
    """The form offers the model's types: reference images and a first frame uploaded from
    files, and an extension of a video picked from the history, each made on
    local-preview."""
    from PIL import Image

    key = create_key(server.env, "inputs")["key"]  # an account of its own: its own history
    ball, first = tmp_path / "ball.png", tmp_path / "first.png"
    Image.new("RGB", (64, 64), (230, 20, 20)).save(ball)
    Image.new("RGB", (64, 36), (20, 40, 230)).save(first)
    p = page
    use_key(p, server, key)
    p.get_by_label("Model").select_option("local-preview")
    kinds = p.locator("#type option")
    expect(kinds).to_have_count(5)  # local-preview makes every type

    p.get_by_label("Prompt").fill("a red ball")
    p.get_by_label("Duration (s)").select_option("1")
    p.get_by_label("Type", exact=True).select_option("reference-to-video")
    expect(p.locator("#references-limit")).to_have_text("up to 3")
    p.get_by_label("Reference images").set_input_files([ball, ball])
    p.get_by_role("button", name="Generate").click()
    p.wait_for_function(NEXT_COMPLETED, arg="", timeout=120_000)
    p.wait_for_function(VIDEO_PLAYS, arg="current-video", timeout=60_000)
    made = p.locator("#current-id").text_content() or ""

    p.get_by_label("Type", exact=True).select_option("image-to-video")
    p.get_by_label("First frame").set_input_files(first)
    p.get_by_role("button", name="Generate").click()
    p.wait_for_function(NEXT_COMPLETED, arg=made, timeout=120_000)
    from_image = p.locator("#current-id").text_content() or ""

    # Extend the reference-to-video, picked from its history row.
    row = p.locator("#history tbody tr").nth(1)
    expect(row).to_contain_text("reference-to-video")
    row.get_by_role("button", name="Extend").click()
    expect(p.get_by_label("Type", exact=True)).to_have_value("video-extend")
    expect(p.get_by_label("Source video")).to_have_value(made)
    p.get_by_label("Seconds added").select_option("1")
    p.get_by_label("Prompt").fill("it rolls away")
    p.get_by_role("button", name="Generate").click()
    p.wait_for_function(NEXT_COMPLETED, arg=from_image, timeout=120_000)
    p.wait_for_function(VIDEO_PLAYS, arg="current-video", timeout=60_000)
    extended = p.locator("#current-id").text_content() or ""
    p.locator("#generate-section").screenshot(path=str(shots / "console-extend.png"))

    with Client(key, base_url=server.base_url) as api:
        ref, image, more = (api.get(i) for i in (made, from_image, extended))
        api.download(extended, tmp_path / "whole.mp4")
    assert ref.type == "reference-to-video" and len(ref.references) == 2
    assert image.type == "image-to-video" and image.image_url
    assert more.type == "video-extend" and more.video == {"generation_id": made}
    whole = decode((tmp_path / "whole.mp4").read_bytes(), tmp_path)
    assert whole.frames == 48  # the source's second, then the second added
