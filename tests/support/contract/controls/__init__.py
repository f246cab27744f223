"""The controls each provider honours (issue 13), one module per provider: `<provider>.py`
exporting `CASES: list[ControlsCase]`. `tests/contract/test_controls.py` finds every module
here by itself; adding a provider's controls is adding its file.

For each case the harness starts our service with that provider's fake (its `ProviderCase`
in tests/support/contract/cases.py, by name), first POSTs each control in `unsupported` set to a
value that is valid elsewhere and wants a 400 naming it as `param` with no request reaching
the fake, then POSTs `/v1/generations` {model, prompt, duration?, **body}, waits until the
fake accepted the job and calls `expect` with the JSON body of that submit (the fake keeps
each in its `submitted` list).

`test_the_cases_cover_every_control_of_the_provider` counts the cases against the catalog:
every control a model of the provider honours must be asked for (away from its default) and
every control it cannot honour refused, model by model for a maker's own API and over the
host for fal, Replicate and OpenRouter (whose every route is driven by
tests/test_controls_{fal,replicate,openrouter}.py). A new model or control without a case
fails there.

A provider without a fake (`local`: no `ProviderCase`) is run on the default settings; its
`expect` gets the finished generation object (`GET /v1/generations/{id}`) with the stored
video's `video_width`, `video_height` and `video_duration` added.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ControlsCase:
    provider: str  # the ProviderCase name in tests/support/contract/cases.py
    model: str  # public model id
    body: Mapping[str, Any]  # extra create fields: the controls (+ image_url if needed)
    expect: Callable[[Mapping[str, Any]], None]  # asserts on the submit body the fake got
    unsupported: tuple[str, ...] = ()  # controls this model refuses: each must 400 naming param
    duration: float | None = None
