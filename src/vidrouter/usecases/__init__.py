"""The application layer: what clients do (create, get, list, cancel, delete a generation;
list models; stay within their limits), shared by every API and free of HTTP."""

from vidrouter.usecases.budgets import BudgetExceeded, Budgets
from vidrouter.usecases.callbacks import ProviderCallbacks
from vidrouter.usecases.generations import CreatePolicy, Generations
from vidrouter.usecases.models import ModelCatalog
from vidrouter.usecases.rate_limits import Limiter, LimitPolicy, TooManyRequests
from vidrouter.usecases.readiness import ReadinessCheck

__all__ = [
    "BudgetExceeded",
    "Budgets",
    "CreatePolicy",
    "Generations",
    "LimitPolicy",
    "Limiter",
    "ModelCatalog",
    "ProviderCallbacks",
    "ReadinessCheck",
    "TooManyRequests",
]
