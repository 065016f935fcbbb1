"""The execution layer: one scheduler loop and the executors fits run on.

Imports only the graph layer. Importing it registers :func:`schedule` as
the loop every ``fit`` runs.
"""

from wirework.execution.executors import (
    DaskExecutor,
    Executor,
    ProcessExecutor,
    SequentialExecutor,
    ThreadExecutor,
    resolve_executor,
)
from wirework.execution.scheduler import schedule

__all__ = [
    "schedule",
    "Executor",
    "SequentialExecutor",
    "ThreadExecutor",
    "ProcessExecutor",
    "DaskExecutor",
    "resolve_executor",
]
