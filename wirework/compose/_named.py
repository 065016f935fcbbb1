"""Parameters that are lists of ``(name, estimator)`` pairs, nested by name.

``get_params(deep=True)`` exposes each estimator as ``name`` and its own
parameters as ``name__param``; ``set_params(name=...)`` replaces one
estimator, ``set_params(name__param=...)`` reaches into it — the convention
of scikit-learn's ``Pipeline`` and ``StackingRegressor``. A stack's or an
average's estimator may be ``"drop"`` (``set_params(name="drop")``): the
pair is skipped, as scikit-learn's stacking and voting estimators skip it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from sklearn.utils import Bunch

try:
    from sklearn.utils._repr_html.estimator import _VisualBlock
except ImportError:  # scikit-learn < 1.7
    from sklearn.utils._estimator_html_repr import _VisualBlock

from wirework.errors import ArgumentError, GraphError
from wirework.graph.data import describe
from wirework.graph.inspect import view_names

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.machines import Machine
    from wirework.graph.nodes import Node

__all__ = ["NamedEstimators", "TrainedEstimators", "check_named", "dropped", "machine_keys", "unclaimed"]


def check_named(owner: str, attribute: str, pairs: Any, reserved: Iterable[str] = ()) -> list[tuple[str, Any]]:
    """Validate a list of ``(name, estimator)`` pairs; return it as a list.

    ``reserved``: the owner's parameter names, which no pair may take
    (``get_params`` and ``set_params`` would take one for the other).
    """
    if not isinstance(pairs, (list, tuple)) or not pairs:
        # an empty list is a ValueError, as scikit-learn's Pipeline and ensembles raise; another type a TypeError
        error = GraphError if isinstance(pairs, (list, tuple)) else ArgumentError
        raise error(
            f"{owner}: expected {attribute} to be a non-empty list of (name, estimator) pairs. "
            f"Received: {describe(pairs)}."
        )
    names = []
    for item in pairs:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            raise ArgumentError(
                f"{owner}: expected each item of {attribute} to be a (name, estimator) pair. Received: {describe(item)}."
            )
        name = item[0]
        if "__" in name or not name:
            raise GraphError(f"{owner}: the name {name!r} in {attribute} must be non-empty and contain no '__'.")
        names.append(name)
    if len(set(names)) < len(names):  # one pass, not one count per name: pipelines of thousands of steps
        seen: set[str] = set()
        duplicates = sorted({n for n in names if n in seen or seen.add(n)})
        raise GraphError(f"{owner}: names in {attribute} must be unique. Received duplicates: {duplicates}.")
    conflicts = sorted(set(names).intersection(reserved))
    if conflicts:
        raise GraphError(
            f"{owner}: estimator names conflict with constructor arguments: {conflicts}. Names in {attribute} must "
            f"differ from {owner}'s parameters ({', '.join(reserved)}), which get_params and set_params would take "
            "them for. Rename them."
        )
    return list(pairs)


class NamedEstimators:
    """Mixin for a composite whose ``_named`` attribute holds ``(name, estimator)`` pairs."""

    _named: str = "estimators"

    def _pairs(self) -> list[tuple[str, Any]]:
        return _well_formed(getattr(self, self._named))

    def _sk_visual_block_(self) -> _VisualBlock:
        """The estimators side by side, named, as scikit-learn draws its voting ensembles
        (``sklearn.utils.estimator_html_repr``, a notebook's display)."""
        names, estimators = zip(*self._pairs())
        return _VisualBlock("parallel", estimators, names=names)

    def _checked_pairs(self) -> list[tuple[str, Any]]:
        """The pairs, checked by :func:`check_named` (their names must differ from this class's parameters too)."""
        return check_named(type(self).__name__, self._named, getattr(self, self._named), self._get_param_names())

    def _live_pairs(self) -> list[tuple[str, Any]]:
        """The checked pairs without those dropped (``"drop"``), which scikit-learn's voting and stacking
        estimators skip; all of them dropped is a ``GraphError``, as scikit-learn refuses it."""
        live = [(name, estimator) for name, estimator in self._checked_pairs() if not dropped(estimator)]
        if not live:
            raise GraphError(
                f"{type(self).__name__}: all {self._named} are dropped ('drop'). At least one is required to be an "
                f"estimator: set one back with set_params(<name>=<estimator>)."
            )
        return live

    def _named_trained(self, suffixes: tuple[str, ...] = ("",)) -> Bunch:
        """scikit-learn's ``named_estimators_``: for each suffix in turn (a stack's levels), each pair's trained
        model (its machine is named by the pair's name and the suffix), in the order of the pairs, and
        ``"drop"`` for a pair dropped."""
        pairs = self._checked_pairs()
        names = {f"{name}{suffix}": dropped(estimator) for suffix in suffixes for name, estimator in pairs}
        trained = self._trained([name for name, gone in names.items() if not gone])
        return Bunch(**{name: "drop" if gone else trained[name] for name, gone in names.items()})

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params = super().get_params(deep=False)
        if not deep:
            return params
        deep_params = super().get_params(deep=True)
        for name, estimator in self._pairs():
            params[name] = estimator
            if hasattr(estimator, "get_params") and not isinstance(estimator, type):
                for key, value in estimator.get_params(deep=True).items():
                    params[f"{name}__{key}"] = value
        return {**deep_params, **params}

    # set_params (Composite's) asks these: pair names are settable, and win over a parameter of the same name.
    def _settable(self, top: dict[str, Any]) -> dict[str, Any]:
        reachable = super()._settable(top)
        for name, estimator in _well_formed(top.get(self._named, getattr(self, self._named))):
            reachable[name] = top.get(name, estimator)
        return reachable

    def _assign(self, top: dict[str, Any]) -> None:
        pairs = top.get(self._named, getattr(self, self._named))
        replaced = {name: top[name] for name, _ in _well_formed(pairs) if name in top}
        super()._assign({k: v for k, v in top.items() if k not in replaced})  # the list itself first
        if replaced:
            updated = [(item[0], replaced[item[0]]) if _is_pair(item) and item[0] in replaced else item for item in pairs]
            setattr(self, self._named, updated)


def dropped(estimator: Any) -> bool:
    """Whether an estimator of a pair is ``"drop"``: a pair the recipe skips (scikit-learn's voting and stacking)."""
    return isinstance(estimator, str) and estimator == "drop"


def unclaimed(name: str, claimed: Iterable[str]) -> str:
    """``name``, or when one of ``claimed`` has it, ``name`` followed by as many ``_`` as make it free.

    The name of a machine a recipe adds for itself (a stack's ``"final"``, a
    classifier's ``"labels"``, a learner's fold): ``claimed`` are the names
    its components' machines take, which are theirs (scikit-learn accepts any
    component name but its own parameters' and those with ``'__'``), so the
    recipe's own machine gives way: ``"final_"`` beside a learner ``"final"``.
    """
    taken = set(claimed)
    while name in taken:
        name += "_"
    return name


def machine_keys(machines: Sequence[Machine], roots: Sequence[Node] = ()) -> list[str]:
    """The key of each of ``machines`` (a network's, in training order) in a composite's ``report_()["machines"]``
    and ``fitted_params_()``: its name, or when unnamed the name the formulas and drawings of its network's outputs
    ``roots`` show (:func:`~wirework.graph.inspect.view_names`: ``m1, m2, …`` in reading order, skipping the names
    given).

    A name given to a machine is its key, so two machines given one name
    share it (the composite refuses them, as scikit-learn refuses two steps
    given one name); a number made up for an unnamed machine skips every
    name given, so it is never shared.
    """
    names = view_names(roots, more=machines)
    return [machine.name or names(machine) for machine in machines]


def _is_pair(item: Any) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)


def _well_formed(pairs: Any) -> list[tuple[str, Any]]:
    """The ``(name, estimator)`` pairs of ``pairs`` (nothing when it is not a list or tuple)."""
    return [item for item in pairs if _is_pair(item)] if isinstance(pairs, (list, tuple)) else []


class TrainedEstimators:
    """Mixin for a recipe with scikit-learn's ``named_estimators_``: its ``estimators_``, the same in order."""

    @property
    def estimators_(self) -> list[Any]:
        """The trained models of ``named_estimators_``, in its order (without the ``"drop"`` of a dropped pair, as
        scikit-learn's)."""
        return [estimator for estimator in self.named_estimators_.values() if not dropped(estimator)]
