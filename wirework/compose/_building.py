"""Building a composite's network, and keeping it while its structure holds.

:class:`_ComposedNetwork` is the part of
:class:`~wirework.compose.composite.Composite` that calls ``network(X, y)``,
checks what it returns, and decides on each ``fit`` whether the network
built before still holds (the same parameters, components by identity: no
hashing), can be re-pointed at replaced components, or must be built again
on the same sources, carrying over the training of the machines that are
the same. :class:`_Built` is such a network with what it was built from.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from wirework.errors import ArgumentError, GraphError, WireworkError
from wirework.graph._params import attributes_getter
from wirework.graph.cache import FitCache
from wirework.graph.carry import carry_over, constant_tokens
from wirework.graph.data import describe
from wirework.graph.fingerprint import tokenize
from wirework.graph.machines import Machine
from wirework.graph.nodes import Source, source
from wirework.graph.topology import ancestry, reading_outside, training_order, upstream_sources
from wirework.graph.training import TrainingValues
from wirework.compose._hyperparams import is_estimator
from wirework.compose.signature import Signature

__all__: list[str] = []


def _skeleton(value: Any, objects: list[Any]) -> Any:
    """``value`` with each estimator replaced by a placeholder (collected in ``objects``)."""
    if is_estimator(value):
        objects.append(value)
        return ("<estimator>", type(value).__module__, type(value).__qualname__)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_skeleton(v, objects) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _skeleton(v, objects)) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))))
    return value


#: The operations a component may offer or not depending on its hyperparameters (an ``SGDClassifier``'s
#: ``predict_proba`` with ``loss="log_loss"``, a ``Pipeline``'s whatever its last step offers), which decide a
#: network's shape: the outputs a pipeline has, what a stack's learners give its final estimator.
_OPERATIONS = (
    "predict", "predict_proba", "predict_log_proba", "decision_function", "score_samples", "transform",
    "inverse_transform", "fit_predict", "fit_transform", "score",
)


def offers(component: Any) -> tuple[str, ...]:
    """The operations of :data:`_OPERATIONS` that ``component`` has now (a failing check counts as absent)."""
    found = []
    for operation in _OPERATIONS:
        try:
            if hasattr(component, operation):
                found.append(operation)
        except Exception:  # an availability check that fails: not offered
            pass
    return tuple(found)


#: Parameters that say where and how a network trains, not what it is.
_EXECUTION_PARAMS = frozenset({"cache", "executor", "n_jobs", "verbose"})


class _Layout(NamedTuple):
    """How a composite class's parameters divide (worked out once per class)."""

    shape: tuple[str, ...]  # the names of the parameters that shape the network
    shape_values: Callable[[Any], tuple]  # their values, in that order
    execution: tuple[str, ...]  # the names of its parameters that say where and how it trains
    execution_values: Callable[[Any], tuple]  # their values, in that order


_LAYOUTS: dict[type, _Layout] = {}


def _layout(kind: type) -> _Layout:
    layout = _LAYOUTS.get(kind)
    if layout is None:
        names = kind._get_param_names()
        shape = tuple(name for name in names if name not in _EXECUTION_PARAMS)
        execution = tuple(name for name in names if name in _EXECUTION_PARAMS)
        layout = _LAYOUTS[kind] = _Layout(shape, attributes_getter(shape), execution, attributes_getter(execution))
    return layout


_PLAIN = frozenset({type(None), bool, int, float, str})


def _quick_key(value: Any) -> tuple | None:
    """A cheap stand-in for the skeleton's token, or ``None`` when only hashing can tell.

    A flat tuple: plain values by type and value, containers by type and
    length, estimators by identity (dict keys count as values).
    """
    out: list[Any] = []
    stack = [value]
    pop, push, add = stack.pop, stack.append, out.append
    while stack:
        item = pop()
        kind = type(item)
        if kind in _PLAIN:
            add(kind)
            add(item)
        elif kind is list or kind is tuple:
            add(kind)
            add(len(item))
            stack.extend(item)
        elif kind is dict:
            add(kind)
            add(len(item))
            for key, entry in item.items():
                push(entry)
                push(key)
        else:
            known = _ESTIMATOR_CLASSES.get(kind)
            if known is None:
                known = _ESTIMATOR_CLASSES[kind] = _plain_estimator_class(kind)
            if not (known or is_estimator(item)):
                return None
            add("estimator")
            add(id(item))
    return tuple(out)


#: Per class: whether every instance is a model without asking the instance (see below).
_ESTIMATOR_CLASSES: dict[type, bool] = {}


def _plain_estimator_class(kind: type) -> bool:
    """Whether ``fit`` and ``get_params`` are plain functions of ``kind`` and no attribute hook can hide them:
    then :func:`is_estimator` holds for every instance."""
    return (
        not issubclass(kind, type)
        and kind.__getattribute__ is object.__getattribute__
        and not hasattr(kind, "__getattr__")
        and isinstance(getattr(kind, "fit", None), types.FunctionType)
        and isinstance(getattr(kind, "get_params", None), types.FunctionType)
    )


@dataclass
class _Built:
    """A network built for this composite, with what it was built from."""

    signature: Signature
    X: Source
    y: Source | None
    structure: str
    objects: list[Any]
    machines: list[Machine]
    w: Source | None = None  # the sample_weight source, when the network was built for weights
    store: TrainingValues = field(default_factory=TrainingValues)
    data: tuple[str | None, ...] = (None, None, None)  # tokens of X, y and sample_weight
    seen: tuple[Any, Any] = (None, None)  # weak references to the X and y given to the last fit
    quick: tuple | None = None  # Composite._quick() of the parameters it was last found to hold for
    kind: str | None = None  # the composite's _kind() for those parameters
    weighted: bool | tuple[str, ...] = False  # what it was built for: weights, routed to these names or not
    frame: bool = False  # whether its last successful fit gave X as a DataFrame (column names strings or not)
    raw: bool = False  # whether its last checked fit handed X on unchecked (Composite._raw_input)
    aliases: dict[str, Any] = field(default_factory=dict)  # Composite._aliases() of its machines (carry_over)
    tokens: dict[Any, str | None] = field(default_factory=dict)  # its static nodes' constants as built (carry_over)
    offers: list[tuple[str, ...]] | None = None  # offers() of each of objects when built (None: pickled before)
    roots: list[Any] = field(init=False)  # the signature's nodes: what a fit pass trains for

    def __post_init__(self) -> None:
        self.roots = self.signature.nodes()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("aliases", {})  # pickles made before aliases were kept: none
        self.__dict__.setdefault("tokens", {})  # pickles made before tokens were kept: read when built again
        self.__dict__.setdefault("offers", None)  # pickles made before offers were kept: not compared
        self.roots = self.signature.nodes()  # derived: also for pickles made before it was kept

    def machines_read_X(self, operation: str) -> bool:
        """Whether every node that takes ``X`` on the way to ``operation``'s output is a machine's operation (no
        static node reads its columns). Worked out once per operation."""
        known = self.__dict__.setdefault("_machines_read_X", {})
        if operation not in known:
            known[operation] = all(
                n.kind == "dynamic" for n in ancestry([self.signature[operation]]) if any(p is self.X for p in n.parents)
            )
        return known[operation]

    def holds(self, quick: tuple | None, kind: str | None) -> _Built:
        """Record that this network holds for parameters of quick key ``quick``, the composite being a ``kind``."""
        self.quick, self.kind = quick, kind
        return self


#: The outputs whose value is on the training data only (a composite's fit_predict, fit_transform): they may read y.
_TRAINING_ONLY = frozenset({"fit_predict", "fit_transform"})


def _not_from_X(owner: str, name: str, others: list[str | None], reads_X: bool) -> str:
    """The message for an output ``name`` of ``owner.network()`` that reads the sources named ``others`` (``y``,
    ``sample_weight``; ``reads_X``: X too) or none at all: the composite computes it from the ``X`` its caller
    gives, alone."""
    if not others:
        what = f"reads no source, but {owner}.{name}(X) computes it from the X it is given"
    else:
        taken = "" if reads_X else f" (it would take X for {others[0]})"
        what = f"reads {' and '.join(map(str, others))}, but {owner}.{name}(X) is given X alone{taken}"
    return (
        f"The {name} node of {owner}.network() {what}. Compute it from X: what a model learned from y reaches it "
        "through that model's machine (class labels: ww.machine(LabelEncoder(), y) and its inverse_transform), and "
        "a value of the training data alone can be a report node (report={...})."
    )


def _source_shown(source: Source, allowed: set[Source]) -> str:
    """``source``'s name in an error about sources outside ``allowed``, saying when one outside has the name of
    one inside (the X of another composite's network, say)."""
    if source in allowed or source.name not in {s.name for s in allowed}:
        held = "" if source in allowed or source.data is None else f" holding {describe(source.data)}"
        return (source.name or "<unnamed source>") + held
    return f"{source.name} (another source of that name: not the one given to network(), perhaps one of another network)"


class _ComposedNetwork:
    """The network of a :class:`~wirework.compose.composite.Composite` (a base of it, and of nothing else)."""

    def _cache(self, execution: dict[str, Any]) -> FitCache | None:
        """The ``cache`` parameter (in the execution parameters), checked; ``None``: the global setting's."""
        cache = execution.get("cache")
        if cache is not None and not isinstance(cache, FitCache):
            raise ArgumentError(f"Expected cache to be a ww.FitCache or None. Received: {describe(cache)}.")
        return cache

    def _structure(
        self,
        objects: list[Any],
        supervised: bool,
        quick: tuple | None = None,
        weighted: bool | tuple[str, ...] = False,
    ) -> str:
        """Token of the parameters that shape the network (not where or how it trains).

        When every parameter is a plain value, an estimator, or a list or
        tuple of those, and all are as at the last call (estimators by
        identity), the last token is reused without hashing. ``quick``:
        :meth:`_quick` when the caller has it.
        """
        if quick is None:
            quick = self._quick(supervised, weighted)
        last = self.__dict__.get("_last_structure")
        if quick is not None and last is not None and last[0] == quick:
            objects.extend(last[2])  # the same objects, in the same places
            return last[1]
        layout = _layout(type(self))
        params = dict(zip(layout.shape, layout.shape_values(self)))
        skeleton = _skeleton(params, objects)  # the components' operations too: their hyperparameters may change them
        token = tokenize(skeleton, [offers(component) for component in objects], supervised, weighted)
        self._last_structure = (quick, token, list(objects))
        return token

    def _build(self, supervised: bool, weighted: bool | tuple[str, ...] = False, last: _Built | None = None) -> _Built:
        """Build the network; ``weighted``: with a sample_weight source, or the names of the components the weights
        are routed to (a tuple: scikit-learn's metadata routing decided).

        ``last``: the network built before, whose parameters no longer hold.
        The new one is built on its sources, and each of its machines that is
        one of the old ones again takes that machine's training
        (:func:`~wirework.graph.carry.carry_over`): only what the change
        touches retrains.
        """
        objects: list[Any] = []
        structure = self._structure(objects, supervised, weighted=weighted)
        X = last.X if last is not None else source(name="X")
        y = (last.y if last is not None and last.y is not None else source(name="y")) if supervised else None
        w = (last.w if last is not None and last.w is not None else source(name="sample_weight")) if weighted else None
        if isinstance(weighted, tuple):  # routed by scikit-learn's metadata routing: see _routed_weights
            self._routed = weighted
        try:
            signature = self.network(X, y, sample_weight=w) if weighted else self.network(X, y)
        finally:
            self.__dict__.pop("_routed", None)
        if not isinstance(signature, Signature):
            raise GraphError(
                f"{type(self).__name__}.network() must return a ww.Signature. Received: {describe(signature)}. "
                "End it with: return ww.Signature(predict=...)."
            )
        allowed = {X, *([] if y is None else [y]), *([] if w is None else [w])}
        machines = training_order(signature.nodes())
        self._refuse_shared_names(machines)
        outputs = [(name, node, True) for name, node in signature.items()]
        for name, node, operation in [*outputs, *((name, node, False) for name, node in signature.report.items())]:
            reached = upstream_sources([node])
            foreign = [s for s in reached if s not in allowed]
            if foreign:
                reachable = ", ".join(_source_shown(s, allowed) for s in reached)
                raise GraphError(
                    f"The {name} node of {type(self).__name__}.network() depends on sources that are not the X, y or "
                    f"sample_weight given to network(). Sources it reaches: {reachable}. Build every node from them."
                )
            if operation and name not in _TRAINING_ONLY and reached != (X,):
                others = [s.name for s in reached if s is not X]
                raise GraphError(_not_from_X(type(self).__name__, name, others, X in reached))
        mach = reading_outside(machines, allowed)  # one walk: a walk per machine was quadratic in the depth
        if mach is not None:
            outside = ", ".join(_source_shown(s, allowed) for s in upstream_sources(mach.args) if s not in allowed)
            raise GraphError(
                f"{mach._title()} in {type(self).__name__}.network() trains on data that does not come from "
                f"the X, y or sample_weight given to network(): it reaches {outside}. Build every training argument "
                "from them (data given to ww.machine() itself becomes a source of its own)."
            )
        aliases = self._aliases([m.name for m in machines])
        # The constants as built: one changed in place later (a cv splitter's n_splits) is then a change.
        tokens = constant_tokens(machines)
        if last is not None:
            roles = {source: source.name for source in (X, y, w) if source is not None}
            carried = {**last.tokens, **tokens}
            carry_over(last.machines, machines, roles, aliases=(last.aliases, aliases), tokens=carried)
        return _Built(
            signature, X, y, structure, objects, machines, w, weighted=weighted, aliases=aliases, tokens=tokens,
            offers=[offers(component) for component in objects],
        )

    #: The parameters that only static nodes of the network's outputs read: not any machine's model, nor what a
    #: machine trains on, nor a report node (``ww.Average``'s ``weights``, ``voting``, ``flatten_transform``).
    #: Changed by ``set_params`` on a fitted composite, they take effect at once (see :meth:`_rewire`).
    _output_params: frozenset[str] = frozenset()

    def _rewire(self, names: Any) -> None:
        """After ``set_params`` set the parameters ``names`` of a fitted composite: when one of them is in
        :attr:`_output_params`, build the network again on its sources now, carrying the training of its
        machines over (:func:`~wirework.graph.carry.carry_over`), and predict with it, as scikit-learn's voting
        estimators read such parameters at each ``predict``. Nothing trains; the next ``fit`` on the same data
        finds the network built (and trains nothing either).

        Only when every parameter of ``names`` is one of these or says where the network trains (``n_jobs``,
        ``cache``...): with another (a new list of estimators) the network of the last ``fit`` stays until the
        next ``fit``, as for any change of structure. A network that cannot be built from the new parameters
        (``voting="soft"`` over a model without ``predict_proba``) is not used: its operations raise a
        ``NotTrainedError`` naming the cause until ``set_params`` gives parameters it can be built from, or
        ``fit`` runs.
        """
        built = self.__dict__.get("_built")
        if built is None or not self._output_params.intersection(names):
            return
        if any(name not in self._output_params and name not in _EXECUTION_PARAMS for name in names):
            return
        if "network_" not in self.__dict__ and "_unwired" not in self.__dict__:  # not fitted, or a failed fit
            return
        try:
            rebuilt = self._build(built.y is not None, built.weighted, built)
        except WireworkError as error:
            self.__dict__.pop("network_", None)
            self._unwired = error
            built.quick = None  # the next fit compares the parameters, and builds again
            return
        if any(m._fitted is None for m in rebuilt.machines):  # output parameters that reach a machine after all
            return
        for name in ("data", "seen", "frame", "raw"):  # the data it was trained on, as checked then
            setattr(rebuilt, name, getattr(built, name))
        self._built = rebuilt.holds(self._quick(built.y is not None, built.weighted), self._kind())
        self.network_ = rebuilt.signature
        self.machines_ = rebuilt.machines
        self.__dict__.pop("_unwired", None)

    def _reached_into(self, components: list[Any]) -> None:
        """After ``set_params`` set parameters inside ``components``: when one of them, a component of the network
        built, now offers other operations than it did then (``sgd__loss="log_loss"`` gives an ``SGDClassifier`` a
        ``predict_proba``), the next ``fit`` builds the network again, as it does when the structure changes."""
        built = self.__dict__.get("_built")
        if built is None or built.offers is None:
            return
        for component in components:
            for k, held in enumerate(built.objects):
                if held is component and built.offers[k] != offers(component):
                    built.quick = None  # the parameters no longer hold it as they are: the next fit compares
                    self.__dict__.pop("_last_structure", None)  # the structure's token, with what each offers now
                    return

    def _aliases(self, names: list[str | None]) -> dict[str, Any]:
        """What the machines named ``names`` of the network just built from the current parameters are matched
        by, instead of their names, when the network is built again (see
        :func:`~wirework.graph.carry.carry_over`): for a recipe that names a machine after a parameter that does
        not change what it computes (a stack's level-1 learners). None here."""
        return {}

    def _refuse_shared_names(self, machines: list[Machine]) -> None:
        """Raise unless each machine has a key of its own in :meth:`report_` and :meth:`fitted_params_` (see
        :func:`~wirework.compose._named.machine_keys`: only names given to two machines are shared): a key shared
        would hide a machine, and a recipe's fitted attributes, which look machines up by name, could give
        another's model."""
        given = [m.name for m in machines if m.name]
        if len(set(given)) == len(given):
            return
        key = next(name for name in given if given.count(name) > 1)
        shown = [m._title() for m in machines if m.name == key]
        raise GraphError(
            f"{type(self).__name__}.network() has {len(shown)} machines named {key!r}: {', '.join(shown)}. "
            "report_() and fitted_params_() name each machine, so names must differ. Give each its own name "
            "(ww.machine(..., name=...)); in a recipe, rename the component whose name it takes."
        )

    def _routed_weights(self) -> frozenset[str] | None:
        """While :meth:`network` is built for weights under scikit-learn's metadata routing: the names of the
        components that requested them (the others train unweighted). ``None`` otherwise: the recipe decides."""
        routed = self.__dict__.get("_routed")
        return None if routed is None else frozenset(routed)

    def _quick(self, supervised: bool, weighted: bool | tuple[str, ...] = False) -> tuple | None:
        """:func:`_quick_key` of the parameters that shape the network, or ``None`` when only hashing can tell."""
        return _quick_key((_layout(type(self)).shape_values(self), supervised, weighted))

    def _network_for(self, supervised: bool, weighted: bool | tuple[str, ...] = False) -> _Built:
        """The network built earlier when its structure still holds, else a new one."""
        built = self.__dict__.get("_built")
        quick = self._quick(supervised, weighted)
        if built is not None and quick is not None and quick == built.quick:
            return built  # the same parameters, components by identity, as when it was last used
        found = self._network_held(supervised, weighted, quick, built)
        self.__dict__.pop("_unwired", None)  # parameters set after fit and refused (see _rewire): built now
        return found

    def _network_held(
        self, supervised: bool, weighted: bool | tuple[str, ...], quick: tuple | None, built: _Built | None
    ) -> _Built:
        """:meth:`_network_for` when the parameters are not those ``built`` was last found to hold for."""
        objects: list[Any] = []
        structure = self._structure(objects, supervised, quick=quick, weighted=weighted)
        if built is not None and built.structure == structure:
            replaced = [(old, new) for old, new in zip(built.objects, objects) if old is not new]
            if not replaced:
                return built.holds(quick, self._kind())
            models = {id(m.model) for m in built.machines}
            # An object shared by several parameters may be re-pointed only if all of them now hold one new object.
            consistent = all(
                new is objects[k] for old, new in replaced for k, was in enumerate(built.objects) if was is old
            )
            if consistent and all(id(old) in models for old, _ in replaced):
                for old, new in replaced:  # a component was replaced: point its machines at the new one
                    for mach in built.machines:
                        if mach.model is old:
                            mach.model = new
                built.objects = objects
                return built.holds(quick, self._kind())
        self._built = self._build(supervised, weighted, built)
        return self._built.holds(quick, self._kind())

    def _reshaped(self) -> bool:
        """Whether the parameters that shape the network (another list of estimators, say) changed since the
        network was built or last found to hold: its trained models are then not the parameters' ones."""
        built = self.__dict__.get("_built")
        if built is None:
            return False
        supervised = built.y is not None
        try:
            quick = self._quick(supervised, built.weighted)
            if quick is not None and quick == built.quick:
                return False
            return self._structure([], supervised, quick=quick, weighted=built.weighted) != built.structure
        except WireworkError:  # parameters no network can be built from
            return True

    def _provides(self, operation: str) -> bool:
        built = self.__dict__.get("_built")
        if built is not None and ("network_" in self.__dict__ or "_unwired" in self.__dict__):
            return operation in built.signature  # unwired: those of the last fit, which raise saying why
        try:
            trial = self.network(source(name="X"), source(name="y"))
        except Exception:
            return False
        return isinstance(trial, Signature) and operation in trial

