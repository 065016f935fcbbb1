"""One training pass over the machines a network needs.

The pass visits each machine once, in dependency order (a topological order
of the completed graph), and lets the machine decide by its retraining rules
whether to train, update or leave itself alone (see
:class:`wirework.graph.machines.Machine`). Node values on the training data
are memoised for the length of the pass, so no transform is computed twice.

This is the sequential loop; the execution layer will hand independent
machines to executors with the same per-machine steps (decide, evaluate the
training arguments, fit).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from wirework.graph.topology import training_order

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.machines import Machine
    from wirework.graph.nodes import Node

__all__ = ["fit_pass"]


def fit_pass(
    roots: Iterable[Node | Machine],
    *,
    force: bool = False,
    forced: Sequence[Machine] = (),
) -> list[Machine]:
    """Train every machine the ``roots`` need; return the machines visited.

    Parameters
    ----------
    roots : iterable of Node or Machine
        What must be ready to compute after the pass.
    force : bool, default=False
        Train every visited machine from scratch (condition 2).
    forced : sequence of Machine, default=()
        Machines to train from scratch even when ``force`` is false.
    """
    machines = training_order(roots)
    forced_ids = {id(machine) for machine in forced}
    memo: dict[Node, object] = {}
    for machine in machines:
        machine._visit(memo, force=force or id(machine) in forced_ids)
    return machines
