"""Signatures: the named output nodes of a network, its interface."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from typing import Any

from wirework.errors import ArgumentError, GraphError
from wirework.graph.data import describe
from wirework.graph.machines import OPERATIONS, Machine
from wirework.graph.nodes import Node

__all__ = ["Signature"]


class Signature(Mapping):
    """The operations a network offers, each an output node; plus report nodes.

    A read-only mapping from operation name (``"predict"``, ``"transform"``…)
    to node. ``fit_predict`` names a node whose value on the training data is
    what the composite's ``fit_predict`` returns, for a network that labels
    only its training data (``mach.fit_predict(X)`` of a ``DBSCAN``, say);
    ``fit_transform`` likewise what the composite's ``fit_transform``
    returns, for a network that transforms only its training data
    (``mach.fit_transform(X)`` of a ``TSNE``).
    ``report`` names extra nodes whose training-data values a composite
    keeps after ``fit`` (see ``Composite.report_()``): any name but
    ``"machines"``, the key of the machines' reports there.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> X, y = ww.source(name="X"), ww.source(name="y")
    >>> mach = ww.machine(Ridge(), X, y)
    >>> sig = ww.Signature(predict=mach.predict(X))
    >>> list(sig)
    ['predict']
    """

    def __init__(
        self,
        *,
        predict: Node | None = None,
        predict_proba: Node | None = None,
        predict_log_proba: Node | None = None,
        decision_function: Node | None = None,
        score_samples: Node | None = None,
        score: Node | None = None,
        transform: Node | None = None,
        inverse_transform: Node | None = None,
        fit_predict: Node | None = None,
        fit_transform: Node | None = None,
        report: Mapping[str, Node] | None = None,
        **others: Any,
    ) -> None:
        if others:
            raise ArgumentError(_unknown(others))
        given = {
            "predict": predict,
            "predict_proba": predict_proba,
            "predict_log_proba": predict_log_proba,
            "decision_function": decision_function,
            "score_samples": score_samples,
            "score": score,
            "transform": transform,
            "inverse_transform": inverse_transform,
            "fit_predict": fit_predict,
            "fit_transform": fit_transform,
        }
        self._operations: dict[str, Node] = {}
        for name in OPERATIONS:
            value = given[name]
            if value is None:
                continue
            if not isinstance(value, Node):
                hint = f" Give one of its nodes, mach.{name}(X)." if isinstance(value, Machine) else ""
                raise ArgumentError(f"Expected a node for {name}= in ww.Signature. Received: {describe(value)}.{hint}")
            self._operations[name] = value
        if not self._operations:
            raise GraphError(
                "A signature needs at least one operation node (predict=, transform=, …). Received none."
            )
        if report is not None and not isinstance(report, Mapping):
            raise ArgumentError(
                f"Expected report= to be a dict mapping names (str) to nodes. Received: {describe(report)}. "
                "Write report={'name': node}."
            )
        report = dict(report or {})
        for key, value in report.items():
            if not isinstance(key, str) or not isinstance(value, Node):
                raise ArgumentError(
                    f"Expected report= to map names (str) to nodes. Received {describe(key)} -> {describe(value)}."
                )
        if "machines" in report:  # a name given by you: refused rather than changed (see Composite.report_)
            raise GraphError(
                "report= names a node 'machines', but a composite's report_() keeps its machines' reports under "
                "that key, which the node's value would replace. Give the node another name."
            )
        self.report = report

    def __getitem__(self, operation: str) -> Node:
        return self._operations[operation]

    def __iter__(self) -> Iterator[str]:
        return iter(self._operations)

    def __len__(self) -> int:
        return len(self._operations)

    def nodes(self) -> list[Node]:
        """Every output node: operations first, then report nodes."""
        return [*self._operations.values(), *self.report.values()]

    def __repr__(self) -> str:
        from wirework.graph.inspect import formula, view_names

        # named once across the outputs, report nodes included: m1 is one machine in every one of them, and the
        # machine a composite's report_() keys m1
        names = view_names(self.nodes())
        shown = [formula(node, names) for node in self._operations.values()]
        parts = [f"{name}={text}" for name, text in zip(self._operations, shown)]
        if self.report:
            parts.append(f"report={sorted(self.report)}")
        return f"Signature({', '.join(parts)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self._operations, self.report))


def _unknown(others: dict[str, Any]) -> str:
    """The message for keywords ``others`` that name no output of a signature (``predicts=``, say)."""
    names = sorted(others)
    close = {name: difflib.get_close_matches(name, [*OPERATIONS, "report"], n=1) for name in names}
    hints = [f"{name}= (did you mean {match[0]}=?)" if match else f"{name}=" for name, match in close.items()]
    return (
        f"ww.Signature got {', '.join(hints)}, which names no output of a network. Its outputs: "
        f"{', '.join(f'{op}=' for op in OPERATIONS)}, and report={{...}} for nodes of any other name."
    )


def _rebuild(operations: dict[str, Node], report: dict[str, Node]) -> Signature:
    return Signature(**operations, report=report)
