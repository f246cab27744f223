"""Fakes of the providers: real HTTP servers that speak each provider's wire format.

Each fake is a Starlette app (serve it with `tests.support.servers`), keeps its jobs in
memory, serves a real small MP4, and takes faults from a `FaultPlan` (see `base.py`).
"""
