"""The provider contract: each shared behaviour, once per provider, through our HTTP API.

Every test takes a `case` (tests/support/contract/cases.py): the provider's fake served on a real port,
the settings that point the adapter at it, a model it serves, and the answers the provider
really gives. What a provider does differently is tested in its own tests/test_provider_*.py.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from standardwebhooks.webhooks import Webhook

from tests.fakes.openai_videos import SIZES, FakeOpenAIVideos
from tests.support.contract.cases import BY_NAME, CASES, KEY, ProviderCase
from tests.support.contract.run import NO_BREAKER, started
from tests.support.harness import assert_failed
from tests.support.images import data_uri
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from tests.support.video import decode
from vidrouter.engine.advance import MAX_TRIES
from vidrouter.providers import http as provider_http


@pytest.fixture(params=CASES, ids=str)
def case(request: pytest.FixtureRequest) -> ProviderCase:
    param: ProviderCase = request.param
    return param


# --- the shared behaviours --------------------------------------------------------------------


async def test_models_are_listed_only_with_credentials(case: ProviderCase, tmp_path: Path) -> None:
    async with started(case, tmp_path / "with") as run:
        assert case.listed <= set(await run.models())
    async with started(case, tmp_path / "without", credentials=False) as run:
        assert not case.listed & set(await run.models())
        assert run.fake.plan.requests == []  # nothing was asked of a provider we cannot use


async def test_completes_with_video_and_signed_webhook(case: ProviderCase, tmp_path: Path) -> None:
    receiver = WebhookReceiver()
    async with serve_app(receiver) as hook_url, started(case, tmp_path) as run:
        done = await run.generate(prompt="a red fox in the snow", webhook_url=hook_url)
        assert (done["status"], done["route"]) == ("completed", case.name), done
        assert done["cost"]["amount"] > 0 and done["error"] is None
        video = await run.app.client.get(done["video_url"])
        assert video.status_code == 200
        assert decode(video.content, tmp_path).codec == "h264"
        [hook] = await receiver.wait_for(1)
    payload = Webhook(run.webhook_secret).verify(hook.body, hook.headers)
    assert (payload["id"], payload["status"]) == (done["id"], "completed")
    assert run.submits == 1 and case.jobs(run.fake) == 1


async def test_retry_after_is_honoured(case: ProviderCase, tmp_path: Path) -> None:
    async with started(case, tmp_path, scale=0.01) as run:
        status, body = case.throttled
        run.fake.plan.add(status=status, body=body, retry_after=60, path=case.submit, method="POST")
        done = await run.generate()
    assert done["status"] == "completed", done
    first, second = run.fake.plan.times("POST", case.submit)
    # 60 s scaled by 0.01; our own backoff after a first failure is about 0.01 s.
    assert second - first >= 0.6


async def test_transient_faults_are_retried_until_completed(
    case: ProviderCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One answer comes after our (shortened) timeout; the rest of the machine may be slow too,
    # so the timeout is not shorter than it needs to be.
    monkeypatch.setattr(provider_http, "DEFAULT_TIMEOUT", httpx.Timeout(1.0))
    async with started(case, tmp_path, timeout=1.0, **NO_BREAKER) as run:
        run.inject(case.server_error, case.submit, "POST", times=2)
        run.fake.plan.add(kind="drop", path=case.submit, method="POST")
        run.fake.plan.add(kind="malformed", path=case.submit, method="POST")
        run.inject(case.server_error, case.poll, "GET", times=1)
        run.fake.plan.add(kind="drop", path=case.poll, method="GET")
        run.fake.plan.add(kind="malformed", path=case.poll, method="GET")
        run.fake.plan.add(kind="slow", delay=2.5, path=case.poll, method="GET")
        run.fake.plan.add(status=429, body=case.throttled[1], path=case.poll, method="GET")
        done = await run.generate()
    assert done["status"] == "completed", done
    assert run.fake.plan.faults == []  # every fault was met
    assert case.jobs(run.fake) == 1  # and none made a second paid job


async def test_persistent_5xx_fails_after_max_tries(case: ProviderCase, tmp_path: Path) -> None:
    async with started(case, tmp_path, scale=0.004, **NO_BREAKER) as run:
        run.inject(case.server_error, case.submit, "POST", times=-1)
        done = await run.generate()
    assert_failed(done, "provider_unavailable")
    assert run.submits == MAX_TRIES


async def test_rejected_credentials_fail_as_provider_unavailable(
    case: ProviderCase, tmp_path: Path
) -> None:
    async with started(case, tmp_path) as run:
        setattr(run.fake, case.key_attr, "the-real-key")  # ours is no longer it
        done = await run.generate()
    assert_failed(done, "provider_unavailable")
    assert run.submits == 1  # not retried: it would not get better
    assert case.jobs(run.fake) == 0


MODERATIONS = [
    pytest.param(case, name, id=f"{case}-{name}") for case in CASES for name in case.moderations
]


@pytest.mark.parametrize(("case", "moderation"), MODERATIONS)
async def test_moderated_prompt_fails_with_content_policy(
    case: ProviderCase, moderation: str, tmp_path: Path
) -> None:
    async with started(case, tmp_path) as run:
        case.moderations[moderation](run.fake)
        done = await run.generate(prompt="something forbidden")
    assert_failed(done, "content_policy")
    assert run.submits == 1  # the user's error: never retried


async def test_an_input_that_is_no_image_never_reaches_the_provider(
    case: ProviderCase, tmp_path: Path
) -> None:
    not_an_image = data_uri(b"this is plain text, whatever the data URI says")
    async with started(case, tmp_path) as run:
        key = await run.app.new_key()
        body = {"model": case.model, "prompt": "p", "image_url": not_an_image}
        created = await run.app.create(key, **body)
        if created.status_code == 202:  # checked when the engine fetches inputs
            done = await run.app.wait_for(key, created.json()["id"])
            assert_failed(done, "invalid_input")
        else:  # or checked at once
            assert created.status_code == 400, created.text
            assert created.json()["error"]["param"] == "image_url", created.text
    assert run.fake.plan.requests == []


@pytest.mark.parametrize("case", [c for c in CASES if c.cancel_remotely], ids=str)
async def test_a_job_cancelled_at_the_provider_fails_the_generation(
    case: ProviderCase, tmp_path: Path
) -> None:
    async with started(case, tmp_path) as run:
        run.fake.never_finish = True
        key = await run.app.new_key()
        created = await run.app.create(key, model=case.model, prompt="p")
        generation_id = created.json()["id"]
        await run.app.wait_for(key, generation_id, statuses=["in_progress"], timeout=10)
        assert case.cancel_remotely is not None
        case.cancel_remotely(run.fake)
        done = await run.app.wait_for(key, generation_id, timeout=20)
    assert_failed(done, "provider_error")


async def test_never_finishing_job_times_out_and_is_cancelled(
    case: ProviderCase, tmp_path: Path
) -> None:
    async with started(case, tmp_path, scale=0.0005) as run:
        run.fake.never_finish = True  # our longest wait (30-65 min) is 1-2 s at this scale
        done = await run.generate()
    assert_failed(done, "timeout")
    assert run.submits == 1 and case.jobs(run.fake) == 1
    assert run.fake.plan.count("GET", case.poll) >= 2
    if case.cancel is not None:
        assert run.fake.plan.count(*case.cancel) == 1
    else:  # nothing to cancel with: only creates and polls reached the provider
        assert {method for method, _ in run.fake.plan.requests} == {"POST", "GET"}


# --- issue 17: account-level refusals, whatever the status they come with ---------------------


REFUSALS = [
    pytest.param(case, name, id=f"{case}-{name}") for case in CASES for name in case.refusals
]
RATE_LIMITS = [
    pytest.param(case, name, id=f"{case}-{name}") for case in CASES for name in case.rate_limits
]


@pytest.mark.parametrize(("case", "refusal"), REFUSALS)
async def test_account_refusal_fails_at_once_without_another_route(
    case: ProviderCase, refusal: str, tmp_path: Path
) -> None:
    async with started(case, tmp_path) as run:
        run.inject(case.refusals[refusal], case.submit, "POST", times=-1)
        done = await run.generate()
    assert_failed(done, "provider_unavailable")
    assert run.submits == 1  # at most one submit to the refusing route


async def test_account_refusal_moves_to_the_next_route(case: ProviderCase, tmp_path: Path) -> None:
    # A gateway that makes whatever the model asks: every second up to 20, and a size for
    # every resolution (the adapter sizes 768p as 1366x768, MiniMax's default).
    gateway = FakeOpenAIVideos(
        seconds=tuple(str(s) for s in range(1, 21)), sizes=(*SIZES, "1366x768", "768x1366")
    )
    async with (
        serve_app(gateway.app()) as gateway_url,
        started(case, tmp_path, next_route=gateway_url) as run,
    ):
        run.inject(next(iter(case.refusals.values())), case.submit, "POST", times=-1)
        done = await run.generate()
    assert (done["status"], done["route"]) == ("completed", "openai_videos"), done
    assert run.submits == 1 and len(gateway.created) == 1


@pytest.mark.parametrize(("case", "limit"), RATE_LIMITS)
async def test_a_real_rate_limit_is_retried_on_the_same_route(
    case: ProviderCase, limit: str, tmp_path: Path
) -> None:
    async with started(case, tmp_path) as run:
        run.inject(case.rate_limits[limit], case.submit, "POST", times=2)
        done = await run.generate()
    assert (done["status"], done["route"]) == ("completed", case.name), done
    assert run.submits == 3 and case.jobs(run.fake) == 1


async def test_kling_out_of_units_moves_to_fal(tmp_path: Path) -> None:
    """A model with two real routes: Kling's own API first (same price, listed first), then
    fal. Kling's 1102 comes with a 429; the generation goes to fal at once."""
    kling, fal = BY_NAME["kling"], BY_NAME["fal"]
    fal_fake = fal.make()
    async with (
        serve_app(fal.serve(fal_fake)) as fal_url,
        started(kling, tmp_path, environ=fal.environ(fal_url, KEY)) as run,
    ):
        run.inject(kling.refusals["1102"], kling.submit, "POST", times=-1)
        done = await run.generate()
    assert (done["status"], done["route"]) == ("completed", "fal"), done
    assert run.submits == 1 and fal_fake.plan.count("POST", fal.submit) == 1
