"""The engine: claims due generations under a lease and advances them, step by step.

`loop` (the claim/lease/heartbeat loop of any leased work), `transitions` (the state
decisions, pure), `advance` (one step of one generation), `router` (which route),
`circuits` (breakers), `results` (download, check, faststart), `worker`, `callbacks`.
"""

from vidrouter.engine.advance import Advancer
from vidrouter.engine.callbacks import CallbackTokens
from vidrouter.engine.circuits import BreakerPolicy, Circuits
from vidrouter.engine.loop import WorkLoop
from vidrouter.engine.results import ResultFetcher
from vidrouter.engine.router import HangPolicy, Router
from vidrouter.engine.worker import GenerationWorker

__all__ = [
    "Advancer",
    "BreakerPolicy",
    "CallbackTokens",
    "Circuits",
    "GenerationWorker",
    "HangPolicy",
    "ResultFetcher",
    "Router",
    "WorkLoop",
]
