"""Composites: a learning network exported as a scikit-learn estimator.

A subclass declares its component models and options as ``__init__``
parameters (stored verbatim) and implements ``network(X, y=None)``, which
builds the network from two source nodes and returns a
:class:`~wirework.compose.signature.Signature`. ``fit`` builds the network
once and trains it; later fits on the same data retrain only the machines a
change touches, by the retraining rules of the core.
"""

from __future__ import annotations

import inspect
import types
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    BiclusterMixin,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    DensityMixin,
    MetaEstimatorMixin,
    MultiOutputMixin,
    OneToOneFeatureMixin,
    OutlierMixin,
    RegressorMixin,
    TransformerMixin,
)
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import get_tags
from sklearn.utils._set_output import _SetOutputMixin, _wrap_data_with_container
from sklearn.utils._tags import ClassifierTags, RegressorTags, TransformerTags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    _check_y,
    _get_feature_names,
    _num_samples,
    check_array,
    check_consistent_length,
    has_fit_parameter,
    validate_data,
)

from wirework.errors import (
    ArgumentError,
    DataError,
    GraphError,
    NotTrainedError,
    ParameterError,
    UnavailableError,
    WireworkError,
    brief,
    kind_name,
)
from wirework.graph.cache import FitCache
from wirework.graph.carry import carry_over
from wirework.graph.data import describe
from wirework.graph.fingerprint import attributes_getter, param_names, tokenize
from wirework.graph.machines import Machine
from wirework.graph.nodes import Node, Source, source
from wirework.graph.topology import ancestry, training_order, upstream_sources
from wirework.graph.training import FitPass, TrainingValues, fit_pass
from wirework.compose import _params
from wirework.compose.signature import Signature

__all__ = ["Composite", "WeightedFit", "check_weighted", "is_estimator", "learns_several_targets", "takes_weights"]


def is_estimator(value: Any) -> bool:
    """Whether ``value`` is a model (has ``fit`` and ``get_params``), not a class."""
    return not isinstance(value, type) and hasattr(value, "fit") and hasattr(value, "get_params")


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


#: scikit-learn's mixins that say what an estimator is, with the kind (``estimator_type``) each gives.
_KIND_MIXINS = ((ClassifierMixin, "classifier"), (RegressorMixin, "regressor"), (ClusterMixin, "clusterer"))

_PARAM_NAMES: dict[type, tuple[str, ...]] = {}
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
#: What scikit-learn's check of the training data sets on the estimator (and a refused fit puts back).
_INPUT_ATTRIBUTES = ("n_features_in_", "feature_names_in_")


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
    roots: list[Any] = field(init=False)  # the signature's nodes: what a fit pass trains for

    def __post_init__(self) -> None:
        self.roots = self.signature.nodes()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("aliases", {})  # pickles made before aliases were kept: none
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


def _offers(operation: str):
    return lambda self: self._provides(operation)


class Composite(_SetOutputMixin, BaseEstimator, auto_wrap_output_keys=None):
    """Base class of networks exported as scikit-learn estimators.

    Subclasses implement :meth:`network`; their ``__init__`` stores each
    argument unchanged (scikit-learn's rule). Mix in ``RegressorMixin``,
    ``ClassifierMixin``, ``TransformerMixin``, ``ClusterMixin``,
    ``OutlierMixin`` or ``DensityMixin`` before ``Composite`` (scikit-learn's
    rule: written after it, a mixin's tags would be lost, so such a class is
    refused when it is created, an ``ArgumentError``) to declare what the
    composite is, or override :meth:`_kind`. The methods those mixins define
    and a composite defines too (``score``, ``fit_transform``,
    ``fit_predict``, ``set_output``) are the composite's all the same: its
    subclasses are given them back when they are created.

    Operations (``predict``, ``predict_proba``, ``predict_log_proba``,
    ``decision_function``, ``score_samples``, ``transform``,
    ``inverse_transform``) exist
    exactly when the signature returned by :meth:`network` provides them.
    A composite that transforms also has ``get_feature_names_out`` and
    ``set_output``, as scikit-learn's transformers.

    Attributes
    ----------
    network_ : Signature
        The trained network's output nodes.
    machines_ : list of Machine
        Its machines, in training order.
    n_features_in_, feature_names_in_ : int, ndarray
        As in scikit-learn.
    classes_ : ndarray or list of ndarray
        For classifiers: the class labels seen in ``fit`` (one array per
        target when ``y`` has several columns).
    labels_ : ndarray
        For clusterers (``ClusterMixin``, or a pipeline ending in a
        clusterer) that predict: the ``predict`` output's value on the
        training data, as scikit-learn's clusterers set it at ``fit``
        (what :meth:`fit_predict` returns).

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.base import RegressorMixin
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.preprocessing import StandardScaler
    >>> class ScaledRidge(RegressorMixin, ww.Composite):
    ...     def __init__(self, alpha=1.0):
    ...         self.alpha = alpha
    ...     def network(self, X, y=None):
    ...         Z = ww.machine(StandardScaler(), X).transform(X)
    ...         return ww.Signature(predict=ww.machine(Ridge(alpha=self.alpha), Z, y).predict(Z))
    >>> X, y = np.arange(8.0).reshape(4, 2), np.arange(4.0)
    >>> ScaledRidge(alpha=0.1).fit(X, y).predict(X[:2]).round(2)
    array([0.02, 1.01])
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a scikit-learn mixin written after the composite; give ``cls`` the composite's own methods,
        which the mixins written first would hide.

        A mixin after ``Composite`` (``class C(ww.Composite, OutlierMixin)``)
        comes after ``BaseEstimator`` in the MRO, whose tags start afresh, so
        what the mixin declares (an outlier detector, say) would be lost:
        that is an ``ArgumentError`` (a ``TypeError``) saying to put it
        first, scikit-learn's rule (its ``check_mixin_order``).

        ``class Enc(TransformerMixin, ww.Composite)`` would otherwise find
        ``TransformerMixin.fit_transform`` (fit, then transform: not the
        training output) and ``set_output`` (no check of the value) before
        ``Composite``'s; ``ClusterMixin.fit_predict`` returns ``labels_``,
        which only a clusterer whose network predicts sets (the composite's
        ``fit_predict`` exists exactly then). Each such method is set on ``cls``
        to the one the nearest composite class in its MRO defines. Class
        creation only: nothing is added to ``fit`` or ``predict``.

        Composite derives from scikit-learn's ``_SetOutputMixin`` so that it
        precedes it in every subclass's MRO: this runs after that mixin's own
        ``__init_subclass__`` (which wraps a ``transform`` or
        ``fit_transform`` the subclass defines, as in scikit-learn's
        transformers), so the method set here stays unwrapped.
        """
        super().__init_subclass__(**kwargs)  # scikit-learn's: set_output wrapping, metadata requests
        _check_mixin_order(cls)
        for name in _SHADOWED:
            owner = next(k for k in cls.__mro__ if name in k.__dict__)
            if owner in _KIND_MIXIN_CLASSES:
                ours = next(k for k in cls.__mro__ if name in k.__dict__ and issubclass(k, Composite))
                setattr(cls, name, ours.__dict__[name])

    @classmethod
    def _get_param_names(cls) -> list[str]:
        names = _PARAM_NAMES.get(cls)
        if names is None:  # scikit-learn reads the signature on every get_params(): once per class here
            names = _PARAM_NAMES[cls] = tuple(super()._get_param_names())
        return list(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters by name, as scikit-learn's; ``deep=False`` without re-reading the signature."""
        if deep:
            return super().get_params(deep=True)
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params: Any) -> Composite:
        """Set parameters as scikit-learn does, checking every name before changing anything.

        ``name=value`` sets a parameter; ``name__key=value`` is passed to the
        component ``name`` (the new one when the same call replaces it).
        Unlike ``BaseEstimator.set_params``, this does not read every
        component's parameters (scikit-learn inspects each class's signature
        for that), so tuning loops stay cheap.

        Raises
        ------
        ParameterError
            A name that is not a parameter or component of this composite,
            ``name__key`` where ``name`` holds something without
            ``set_params`` or whose parameters do not include ``key``, or
            a value the component's own ``set_params`` refuses. Nothing is
            changed, except, in the last case, what that component changed.
        """
        if not params:
            return self
        top: dict[str, Any] = {}
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            head, deeper, rest = key.partition("__")
            if deeper:
                nested.setdefault(head, {})[rest] = value
            else:
                top[key] = value
        reachable = self._settable(top)
        unknown = [key for key in params if key.partition("__")[0] not in reachable]
        if unknown:
            raise ParameterError(
                f"Invalid parameter {unknown[0]!r} for {type(self).__name__}. Valid parameters are: "
                f"{sorted(reachable)}; reach into a component with <component>__<parameter>."
            )
        for head in nested:
            if not is_estimator(reachable[head]):
                raise ParameterError(
                    f"Cannot set {sorted(nested[head])[0]!r} on {head!r} of {type(self).__name__}: "
                    f"it holds {describe(reachable[head])}, which has no set_params. Set {head} itself instead."
                )
        for head, sub in nested.items():  # a component's own names, checked before anything changes
            unknown, valid = _unknown_names(reachable[head], sub, alone=len(nested) == 1)
            if unknown:
                raise ParameterError(
                    f"Invalid parameter {head}__{unknown[0]} for {type(self).__name__}: {head!r} holds "
                    f"{describe(reachable[head])}, whose parameters are {valid}."
                )
        for head, sub in nested.items():
            try:
                _set_component(reachable[head], sub)
            except (ValueError, TypeError) as error:
                if isinstance(error, WireworkError):
                    raise
                names = sorted(f"{head}__{key}" for key in sub)
                raise ParameterError(f"Cannot set {names} on {head!r} of {type(self).__name__}: {error}") from error
        self._assign(top)
        return self

    def _settable(self, top: dict[str, Any]) -> dict[str, Any]:
        """What each settable name holds once the plain assignments ``top`` are made."""
        return {name: top[name] if name in top else getattr(self, name) for name in self._get_param_names()}

    def _assign(self, top: dict[str, Any]) -> None:
        """Make the plain assignments of ``set_params`` (names already checked)."""
        for name, value in top.items():
            setattr(self, name, value)

    def network(self, X: Source, y: Source | None = None) -> Signature:
        """Build the network from source nodes ``X`` and ``y`` (``None`` when fit without ``y``)."""
        raise NotImplementedError(f"{type(self).__name__} must implement network(self, X, y=None) -> ww.Signature.")

    # -- what kind of estimator -------------------------------------------

    def _kind(self) -> str | None:
        """``"classifier"``, ``"regressor"``, ``"clusterer"`` or ``None``, from the mixins by default."""
        for mixin, kind in _KIND_MIXINS:
            if isinstance(self, mixin):
                return kind
        return None

    def _multi_output(self) -> bool:
        """Whether ``fit`` takes a 2-D ``y`` (several targets) as it is: ``False`` here.

        The ``multi_output`` target tag. A recipe says ``True`` when the model
        that learns the target does (as scikit-learn's meta-estimators say);
        a user-defined composite whose network learns several targets sets
        the tag in its own ``__sklearn_tags__``, and ``fit`` follows the tag.
        """
        return False

    def _components(self) -> list[Any]:
        """The models that see the input ``X`` (their tags decide sparse / NaN support)."""
        objects: list[Any] = []
        _skeleton(list(self.get_params(deep=False).values()), objects)
        return objects

    def _raw_input(self) -> bool:
        """Whether ``X`` goes to the network as it was given, not checked as an array of columns: ``False`` here.

        A recipe says ``True`` when the model that first sees ``X`` takes no
        2-D array (its input tags: text for a ``TfidfVectorizer``, dicts for a
        ``DictVectorizer``, one column as a vector for an
        ``IsotonicRegression``), as scikit-learn's ``Pipeline`` hands such
        input to its first step. Asked only when the data is checked.
        """
        return False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        kind = self._kind()
        tags.estimator_type = kind
        tags.target_tags.multi_output = self._multi_output()
        tags.target_tags.single_output = True
        if kind == "classifier":
            tags.classifier_tags = tags.classifier_tags or ClassifierTags()
            tags.target_tags.required = True
        elif kind == "regressor":
            tags.regressor_tags = tags.regressor_tags or RegressorTags()
            tags.target_tags.required = True
        if self._provides("transform"):
            tags.transformer_tags = tags.transformer_tags or TransformerTags()
        self._component_tags(tags)
        return tags

    def _component_tags(self, tags: Any) -> None:
        """Set in ``tags`` what the components decide: sparse and NaN input (all of :meth:`_components` take
        it), and randomness (any of them)."""
        inner = [get_tags(c) for c in self._components() if hasattr(c, "__sklearn_tags__")]  # fit says what else is wrong
        if inner:
            tags.input_tags.sparse = all(t.input_tags.sparse for t in inner)
            tags.input_tags.allow_nan = all(t.input_tags.allow_nan for t in inner)
            tags.non_deterministic = any(t.non_deterministic for t in inner)

    # -- building ------------------------------------------------------------

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
        token = tokenize(_skeleton(params, objects), supervised, weighted)
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
        for name, node in [*signature.items(), *signature.report.items()]:
            foreign = [s for s in upstream_sources([node]) if s not in allowed]
            if foreign:
                reachable = ", ".join(s.name or "<unnamed source>" for s in node.sources()) or "none"
                raise GraphError(
                    f"The {name} node of {type(self).__name__}.network() depends on sources that are not the X, y or "
                    f"sample_weight given to network(). Sources it reaches: {reachable}. Build every node from them."
                )
        for mach in machines:
            foreign = [s for s in upstream_sources(mach.args) if s not in allowed]
            if foreign:
                raise GraphError(
                    f"{mach._title()} in {type(self).__name__}.network() trains on data that does not come from "
                    "the X, y or sample_weight given to network(). Build every training argument from them."
                )
        aliases = self._aliases([m.name for m in machines])
        if last is not None:
            roles = {source: source.name for source in (X, y, w) if source is not None}
            carry_over(last.machines, machines, roles, aliases=(last.aliases, aliases))
        return _Built(signature, X, y, structure, objects, machines, w, weighted=weighted, aliases=aliases)

    def _aliases(self, names: list[str | None]) -> dict[str, Any]:
        """What the machines named ``names`` of the network just built from the current parameters are matched
        by, instead of their names, when the network is built again (see
        :func:`~wirework.graph.carry.carry_over`): for a recipe that names a machine after a parameter that does
        not change what it computes (a stack's level-1 learners). None here."""
        return {}

    def _refuse_shared_names(self, machines: list[Machine]) -> None:
        """Raise unless each machine has a key of its own in :meth:`report_` and :meth:`fitted_params_` (its
        name, or ``m<k>`` for the ``k``-th in training order when unnamed): a key shared would hide a machine,
        and a recipe's fitted attributes, which look machines up by name, could give another's model."""
        keys = [_name(m, k) for k, m in enumerate(machines, start=1)]
        if len(set(keys)) == len(keys):
            return
        key = next(key for key in keys if keys.count(key) > 1)
        shown = [m._title() + ("" if m.name else f" (unnamed: {key})") for m, k in zip(machines, keys) if k == key]
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
        if built is not None and "network_" in self.__dict__:
            return operation in built.signature
        try:
            trial = self.network(source(name="X"), source(name="y"))
        except Exception:
            return False
        return isinstance(trial, Signature) and operation in trial

    # -- fitting ---------------------------------------------------------------

    def _check_fit_data(self, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, Any, Any]:
        """``X``, ``y`` and ``sample_weight`` checked as scikit-learn checks them (an ``X`` that
        :meth:`_raw_input` hands on unchecked: its number of rows only, and no ``n_features_in_``)."""
        kind = self._kind()
        if y is None and kind in ("classifier", "regressor"):
            raise DataError(
                f"{type(self).__name__} requires y to be passed, but the target y is None. Call fit(X, y)."
            )
        common = {
            "reset": True, "accept_sparse": ("csr", "csc"), "dtype": None, "ensure_all_finite": False,
            "raw": self._raw_input(),
        }
        kept = self._input_attributes()
        try:
            if y is None:
                checked_X, checked_y = _validate(self, X, **common), None
            else:
                multi = learns_several_targets(self)
                if multi and sp.issparse(y):  # scikit-learn's check would take it as several targets
                    raise TypeError(
                        "Sparse data was passed for y, but dense data is required. Use '.toarray()' to convert to "
                        "a dense numpy array."
                    )
                checked_X, checked_y = _validate(self, X, y, multi_output=multi, **common)
                if kind == "classifier":
                    check_classification_targets(checked_y)
            if sample_weight is not None:
                sample_weight = _check_sample_weight(sample_weight, checked_X)
        except (ValueError, TypeError) as error:
            self._restore_input(kept)  # as the last fit left them (the check resets them)
            raise _unusable(self, "fit", error) from error
        if isinstance(y, (pd.Series, pd.DataFrame)) and checked_y.shape == y.shape:
            checked_y = y  # as scikit-learn's Pipeline hands it on: several targets keep their column names
        return (X if isinstance(X, pd.DataFrame) else checked_X), checked_y, sample_weight

    def _input_attributes(self) -> dict[str, Any]:
        """``n_features_in_`` and ``feature_names_in_`` as they are (those set), which the check of the data resets."""
        return {name: self.__dict__[name] for name in _INPUT_ATTRIBUTES if name in self.__dict__}

    def _restore_input(self, kept: dict[str, Any]) -> None:
        """Put back the attributes :meth:`_input_attributes` gave (a refused fit changes nothing)."""
        for name in _INPUT_ATTRIBUTES:
            self.__dict__.pop(name, None)
        self.__dict__.update(kept)

    def fit(self, X: Any, y: Any = None, **fit_params: Any) -> Composite:
        """Build the network (once) and train it on ``X`` and ``y``.

        A later ``fit`` on equal data (compared by content token) retrains
        only the machines whose hyperparameters, components or upstream
        machines changed.

        ``sample_weight=`` is taken when :meth:`network` has a
        ``sample_weight`` parameter (it then gets a third source node);
        no other fit parameter is.
        """
        if not fit_params:
            return self._fit(X, y, None)
        return self._fit_with(X, y, fit_params)

    def _fit_with(
        self, X: Any, y: Any, fit_params: dict[str, Any], values: dict[str, Any] | None = None, caller: str = "fit"
    ) -> Composite:
        """:meth:`_fit` given the keyword parameters of ``caller`` (``fit``, ``fit_transform`` or ``fit_predict``):
        the weights among them, and where they go."""
        weights, routes = self._fit_weights(fit_params.pop("sample_weight", None), fit_params, caller)
        return self._fit(X, y, weights, routes, values)

    def _fit_weights(
        self, sample_weight: Any, fit_params: dict[str, Any], caller: str = "fit"
    ) -> tuple[Any, tuple[str, ...] | None]:
        """The weights to train with, and the names of the components they go to (``None``: as :meth:`network`
        decides). Any fit parameter other than ``sample_weight`` is refused; a recipe that routes the weights by
        scikit-learn's metadata routing overrides this (``caller``: the method that fits, for the routing)."""
        if fit_params:
            self._weights(fit_params)
        return sample_weight, None

    def _weights(self, fit_params: dict[str, Any]) -> Any:
        """The ``sample_weight`` among ``fit_params`` (``None``: unweighted); any other parameter is refused."""
        sample_weight = fit_params.pop("sample_weight", None)
        if fit_params:
            routed = any(key.endswith("__sample_weight") for key in fit_params)
            raise ArgumentError(
                f"{type(self).__name__}.fit takes X, y and sample_weight. Received also: {sorted(fit_params)}. "
                + (
                    "Give the weights as sample_weight=: they reach every component that trains on them. "
                    if routed
                    else ""
                )
                + "Set a component's options with set_params, or give its training data a node in network()."
            )
        return sample_weight

    def _fit(
        self,
        X: Any,
        y: Any,
        sample_weight: Any,
        routes: tuple[str, ...] | None = None,
        values: dict[str, Any] | None = None,
    ) -> Composite:
        """``fit``, with the weights given (``None``: unweighted).

        ``routes``: the names of the components the weights go to, when
        scikit-learn's metadata routing decided (``None``: the network does).
        ``values``: operations, each mapped to its value on the training data
        once the fit succeeded (for :meth:`fit_transform`); those the
        signature lacks are removed.
        """
        incoming = (X, y)
        built = last = self.__dict__.get("_built")
        weighted = sample_weight is not None
        if weighted and not _takes_weights(type(self)):
            raise ArgumentError(
                f"{type(self).__name__}.fit got sample_weight, but its network() has no sample_weight parameter "
                "to receive them as a source. Add one (network(self, X, y=None, sample_weight=None)) and train "
                "the machines that should see the weights on it, or fit without sample_weight."
            )
        # The very arrays of the last successful fit still holding the same content (their tokens, needed below
        # anyway, say so) were checked then, so the check is skipped; anything else is checked, an array edited
        # in place included.
        tokens = (
            (tokenize(X), None if y is None else tokenize(y), None)
            if not weighted
            and built is not None
            and type(X) is np.ndarray
            and X.ndim == 2
            and (y is None or (type(y) is np.ndarray and y.ndim == 1))
            and _are_seen(built.seen, X, y)
            else None
        )
        kept = None
        if tokens is None or tokens != built.data:
            if built is not None:  # the check resets n_features_in_...: until a fit succeeds, every fit checks
                built.seen = (None, None)
            kept = self._input_attributes()
            X, y, sample_weight = self._check_fit_data(X, y, sample_weight)
        try:
            built = self._network_for(y is not None, routes if weighted and routes is not None else weighted)
        except BaseException:
            if kept is not None:  # a network that cannot be built trains nothing: the data's attributes go too
                self._restore_input(kept)
            raise
        layout = _layout(type(self))
        execution = dict(zip(layout.execution, layout.execution_values(self)))
        if tokens is None or X is not incoming[0] or y is not incoming[1]:  # the checked data: hashed anew
            tokens = (tokenize(X), None if y is None else tokenize(y), None if not weighted else tokenize(sample_weight))
        data = tokens
        built.X.rebind(X, fingerprint=data[0])
        if built.y is not None:
            built.y.rebind(y, fingerprint=data[1])
        if built.w is not None:
            built.w.rebind(sample_weight, fingerprint=data[2])
        if data != built.data:
            built.store.clear()
        labels = None
        try:
            fit_pass(
                built.roots,
                cache=self._cache(execution),
                store=built.store,
                executor=execution.get("executor"),
                n_jobs=execution.get("n_jobs"),
                verbose=execution.get("verbose", 0),
            )
            run = FitPass(store=built.store)  # reuses the values the fit pass just computed
            self.report_values_ = {name: run.output(node) for name, node in built.signature.report.items()}
            if values:
                for operation in list(values):  # those the signature has
                    if operation in built.signature:
                        values[operation] = run.output(built.signature[operation])
                    else:
                        del values[operation]
            labelled = built.kind == "clusterer" and _labelled(built.signature)
            if labelled:  # scikit-learn's clusterers: labels_
                labels = values[labelled] if values and labelled in values else run.output(built.signature[labelled])
        except BaseException as error:
            # The machines that trained stay trained and the next fit resumes from the failed one, but the
            # network is now partly retrained: it must not predict until a fit succeeds.
            for name in ("network_", "report_values_", "labels_"):
                self.__dict__.pop(name, None)
            self.machines_ = built.machines  # their reports say what failed
            self._failed = f"{kind_name(error)}: {error}".split("\n")[0]
            raise
        finally:
            built.X.release()
            if built.y is not None:
                built.y.release()
            if built.w is not None:
                built.w.release()
        built.data = data
        built.frame = isinstance(X, pd.DataFrame)
        if kept is not None:  # checked: without n_features_in_, X was handed on as it is (see _raw_input)
            built.raw = "n_features_in_" not in self.__dict__
        if kept is not None or built is not last:  # else: the objects it already refers to
            built.seen = (_weak(incoming[0]), _weak(incoming[1]))
        self.network_ = built.signature
        self.machines_ = built.machines
        self.__dict__.pop("_failed", None)
        if built.kind == "classifier" and y is not None:
            self.classes_ = _classes(y)
            self.__dict__.pop("labels_", None)
        else:  # no longer a classifier: no classes left from an earlier fit
            self.__dict__.pop("classes_", None)
            if labelled:
                self.labels_ = labels
            else:  # nor labels, unless a clusterer that predicts
                self.__dict__.pop("labels_", None)
        return self

    # -- operations ------------------------------------------------------------

    def _ready(self) -> Signature:
        network = self.__dict__.get("network_")
        if network is None:
            failed = self.__dict__.get("_failed")
            if failed is not None:
                raise NotTrainedError(
                    f"The last fit of this {type(self).__name__} failed ({failed}), so its network is partly "
                    "retrained and cannot be used. Fix the cause and call fit(X, y) again: the machines that "
                    "trained are kept; report_() shows each machine's action."
                )
            raise NotTrainedError(
                f"This {type(self).__name__} has not been fitted yet. Call fit(X, y) before using it."
            )
        return network

    def __sklearn_is_fitted__(self) -> bool:
        return "network_" in self.__dict__

    def _check_input(self, X: Any, operation: str) -> Any:
        if self._built.raw:  # text, dicts...: the first model judges them (see _raw_input)
            return X
        if type(X) is np.ndarray and X.ndim == 2 and "feature_names_in_" not in self.__dict__:
            if X.shape[1] != self.n_features_in_:
                name = type(self).__name__
                raise DataError(  # scikit-learn's words, as the check below would say them
                    f"{name}.{operation} cannot use the data it received: X has {X.shape[1]} features, but "
                    f"{name} is expecting {self.n_features_in_} features as input."
                )
            return X
        try:
            checked = _validate(self, X, reset=False, accept_sparse=("csr", "csc"), dtype=None, ensure_all_finite=False)
        except (ValueError, TypeError) as error:
            if self._models_judge_columns(X, operation):
                return X
            raise _unusable(self, operation, error) from error
        # A DataFrame goes on as it is (its dtypes kept) to a network trained on one, whatever its column names (a
        # frame of pandas' default integer names has no feature names to scikit-learn, but is still a frame to
        # the models, as scikit-learn's Pipeline hands it on); a network trained on an array gets the array
        # scikit-learn's check made of it, as it trained.
        if isinstance(X, pd.DataFrame) and ("feature_names_in_" in self.__dict__ or self._built.frame):
            return X
        return checked

    def _models_judge_columns(self, X: Any, operation: str) -> bool:
        """Whether ``X``, a DataFrame whose column names differ from ``feature_names_in_`` (other order, extra
        or missing columns), goes on to the network as scikit-learn's ``Pipeline``, stacking and voting
        estimators hand it to their components: when only machines read ``X`` on the way to ``operation``'s
        output, their models judge its columns (a ``ColumnTransformer`` selects its own by name; a
        ``StandardScaler`` refuses other names, as a ``MachineApplyError`` quoting its message). Anything else
        reading ``X`` (a static node: a stack's passthrough columns, a bagging's column subsets) could take
        other columns for the ones it trained on, so the composite's own check refuses them."""
        if not isinstance(X, pd.DataFrame) or "feature_names_in_" not in self.__dict__:
            return False
        try:
            names = _get_feature_names(X)
        except TypeError:  # column names of mixed types: scikit-learn's check says so
            return False
        if names is None or np.array_equal(names, self.feature_names_in_):
            return False
        built = self.__dict__.get("_built")
        return built is not None and built.machines_read_X(operation)

    def _run(self, operation: str, X: Any) -> Any:
        network = self._ready()
        checked = self._check_input(X, operation)
        if checked is X and "feature_names_in_" not in self.__dict__ and type(X) is np.ndarray:
            return network[operation](checked)  # the one-row predict's path: nothing was warned of
        warned = self._warned_of_names(X, checked)
        if warned is not None:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=warned, category=UserWarning)
                return network[operation](checked)
        return network[operation](checked)

    def _run_with(self, operation: str, X: Any, params: dict[str, Any]) -> Any:
        """:meth:`_run`, the model whose ``operation`` gives the output called with ``params``
        (:func:`~wirework.compose._params.run_with`)."""
        network = self._ready()
        checked = self._check_input(X, operation)
        warned = self._warned_of_names(X, checked)
        with warnings.catch_warnings():
            if warned is not None:
                warnings.filterwarnings("ignore", message=warned, category=UserWarning)
            return _params.run_with(type(self).__name__, network[operation], self._built.X, checked, operation, params)

    def _warned_of_names(self, X: Any, checked: Any) -> str | None:
        """The start of the warning the check in :meth:`_check_input` gave about ``X``'s column names, which the
        models inside would each give again (scikit-learn's composites warn once per inner model; this one warns
        once), or ``None``: ``X`` has none and the composite was fitted with them, or ``X``, a DataFrame with
        names, goes on to a network trained on a frame without (pandas' default integers)."""
        if "feature_names_in_" in self.__dict__:
            return "X does not have valid feature names" if _get_feature_names(X) is None else None
        if checked is X and isinstance(X, pd.DataFrame) and _get_feature_names(X) is not None:
            return "X has feature names"
        return None

    @available_if(_offers("predict"))
    def predict(self, X: Any, **params: Any) -> Any:
        """The network's ``predict`` output on ``X``.

        ``params`` (``return_std=True``…) go to the model whose ``predict``
        gives the output, as scikit-learn's ``Pipeline`` hands them to its
        last step (see :mod:`wirework.compose._params`).
        """
        if params:
            return self._run_with("predict", X, params)
        return self._run("predict", X)

    @available_if(_offers("predict_proba"))
    def predict_proba(self, X: Any, **params: Any) -> Any:
        """The network's ``predict_proba`` output on ``X`` (``params``: as for :meth:`predict`)."""
        if params:
            return self._run_with("predict_proba", X, params)
        return self._run("predict_proba", X)

    @available_if(_offers("predict_log_proba"))
    def predict_log_proba(self, X: Any, **params: Any) -> Any:
        """The network's ``predict_log_proba`` output on ``X`` (``params``: as for :meth:`predict`)."""
        if params:
            return self._run_with("predict_log_proba", X, params)
        return self._run("predict_log_proba", X)

    @available_if(_offers("decision_function"))
    def decision_function(self, X: Any) -> Any:
        """The network's ``decision_function`` output on ``X``."""
        return self._run("decision_function", X)

    @available_if(_offers("score_samples"))
    def score_samples(self, X: Any) -> Any:
        """The network's ``score_samples`` output on ``X`` (an outlier detector's or a density's scores)."""
        return self._run("score_samples", X)

    @available_if(_offers("transform"))
    def transform(self, X: Any) -> Any:
        """The network's ``transform`` output on ``X``, in the container ``set_output`` asks for."""
        return self._output(self._run("transform", X), X)

    def _output(self, values: Any, X: Any) -> Any:
        """``values`` in the container of this composite's ``set_output`` (or the global ``transform_output``)."""
        try:
            result = _wrap_data_with_container("transform", values, X, self)
        except ValueError as error:  # an unknown container, or sparse output for a DataFrame
            raise DataError(f"{type(self).__name__}.transform cannot give its output as asked: {error}") from error
        if (
            isinstance(result, pd.DataFrame)
            and isinstance(X, pd.DataFrame)
            and len(result) == len(X)
            and not result.index.equals(X.index)
        ):  # the caller's rows, as scikit-learn's transformers give them (the network may have had an array)
            result = result.set_axis(X.index, axis=0)
        return result

    @available_if(_offers("transform"))
    def set_output(self, *, transform: str | None = None) -> Composite:
        """Set the container of ``transform`` and ``fit_transform`` output, as scikit-learn's transformers.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"} or None
            ``"pandas"`` or ``"polars"``: a DataFrame whose columns are
            :meth:`get_feature_names_out` (and whose index is the input's,
            for pandas); ``"default"``: what the network computes; ``None``:
            unchanged. It applies at once, to the trained network too.

        Raises
        ------
        ParameterError
            Any other value.
        """
        if transform is not None:
            self._keep_output(transform)
        return self

    def _keep_output(self, transform: str) -> None:
        """Record ``set_output(transform=...)``, checked."""
        if transform not in _OUTPUTS:
            raise ParameterError(
                f"set_output(transform=...) takes one of {sorted(_OUTPUTS)} or None. Received: {transform!r}."
            )
        self._sklearn_output_config = {**getattr(self, "_sklearn_output_config", {}), "transform": transform}

    @available_if(_offers("transform"))
    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the columns ``transform`` gives, as scikit-learn's transformers name them.

        Each machine on the way from ``X`` to the ``transform`` output is
        asked in turn (its trained model's ``get_feature_names_out``, given
        the names of its input), so a network that only chains machine
        transforms, as ``ww.Pipeline`` does, names its columns. A composite
        whose output is computed otherwise overrides this method.

        Parameters
        ----------
        input_features : array-like of str, optional
            Names of the input columns; default ``feature_names_in_``, or
            ``x0``, ``x1``… when ``fit`` got no column names.

        Raises
        ------
        NotTrainedError
            Before ``fit``.
        DataError
            ``input_features`` of the wrong length, or not ``feature_names_in_``.
        UnavailableError
            The output is not a chain of machine transforms from ``X``, or a
            machine's model does not name its output (also an ``AttributeError``).
        """
        network = self._ready()
        names = self._input_names(input_features)
        return np.asarray(_names_out(self, network["transform"], self._built.X, names), dtype=object)

    def _input_names(self, input_features: Any) -> np.ndarray:
        """``input_features`` checked against what ``fit`` saw, or the names ``fit`` saw (``x<k>`` if none)."""
        seen = self.__dict__.get("feature_names_in_")
        if "n_features_in_" not in self.__dict__ and self._built.raw:  # no columns: the first model names its output
            return None if input_features is None else np.asarray(input_features, dtype=object)
        if input_features is None:
            if seen is not None:
                return np.asarray(seen, dtype=object)
            return np.asarray([f"x{k}" for k in range(self.n_features_in_)], dtype=object)
        given = np.asarray(input_features, dtype=object)
        if seen is not None and (given.shape != seen.shape or not np.array_equal(given, seen)):
            raise DataError(
                f"input_features is not equal to feature_names_in_ of this {type(self).__name__}: received "
                f"{list(given)}, fitted on {list(seen)}. Pass None to use the names fit saw."
            )
        if given.ndim != 1 or len(given) != self.n_features_in_:
            raise DataError(
                f"input_features should have length equal to number of features ({self.n_features_in_}), "
                f"got {given.size}."
            )
        return given

    @available_if(_offers("transform"))
    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """Fit, and return the ``transform`` output's value on the training data.

        As scikit-learn's ``Pipeline.fit_transform``: a machine whose model
        has its own ``fit_transform`` gives, on the training data, what that
        returned (a ``TargetEncoder``'s cross-fitted encodings); elsewhere
        this equals ``fit(X, y).transform(X)``.
        """
        if type(self).fit not in (Composite.fit, WeightedFit.fit):  # a fit of its own: it must run
            return self.fit(X, y, **fit_params).transform(X)
        values = {"transform": None}
        self._fit_with(X, y, fit_params, values, "fit_transform")
        return self._output(values["transform"], X)

    @available_if(lambda self: self._fits_and_predicts())
    def fit_predict(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """Fit, and return the ``predict`` output's value on the training data: a clusterer's labels, an outlier
        detector's verdicts; or the ``fit_predict`` output's when the signature has one (a model that labels
        only its training data, ``DBSCAN`` say).

        As :meth:`fit_transform` for ``transform`` (and as scikit-learn's
        ``Pipeline.fit_predict``, whose steps feed the last one their
        ``fit_transform``): a machine whose model has its own
        ``fit_transform`` gives, on the training data, what that returned;
        elsewhere this equals ``fit(X, y).predict(X)``.
        """
        if type(self).fit not in (Composite.fit, WeightedFit.fit):  # a fit of its own: it must run
            self.fit(X, y, **fit_params)
            labels = self._ready().get("fit_predict")
            return self.predict(X) if labels is None else labels.machine._labels(labels.parents[0], False)
        values = {"fit_predict": None, "predict": None}  # the _fit keeps those the signature has
        self._fit_with(X, y, fit_params, values, "fit_predict")
        return values["fit_predict"] if "fit_predict" in values else values["predict"]

    def _fits_and_predicts(self) -> bool:
        """Whether :meth:`fit_predict` exists: for a network with a ``fit_predict`` output, and for a clusterer
        or an outlier detector (``OutlierMixin``) that predicts, as scikit-learn's ``ClusterMixin`` and
        ``OutlierMixin`` give it."""
        if self._kind() == "clusterer" or isinstance(self, OutlierMixin):
            return self._provides("predict") or self._provides("fit_predict")
        return self._provides("fit_predict")

    @available_if(_offers("inverse_transform"))
    def inverse_transform(self, X: Any) -> Any:
        """The network's ``inverse_transform`` output on ``X``."""
        network = self._ready()
        return network["inverse_transform"](X)

    @available_if(lambda self: self._scores())
    def score(self, X: Any, y: Any = None, sample_weight: Any = None) -> float:
        """Accuracy for classifiers, R² for regressors (as scikit-learn's mixins); for any other composite, the
        network's ``score`` output on ``X`` (an unsupervised model's score, as a pipeline ending in a clusterer,
        mixture or density gives it).

        ``sample_weight`` weighs the rows: in the metric, or, for the network's
        ``score`` output, in the ``score`` of the machine that gives it, when
        that output is a machine's ``score`` and the model's takes
        ``sample_weight`` (as scikit-learn's ``Pipeline.score`` passes them to
        its last step); otherwise it is an ``ArgumentError``.
        """
        kind = self._kind()
        if kind in ("classifier", "regressor"):
            if y is None:
                raise DataError(f"{type(self).__name__}.score needs y: the true targets to compare predictions with.")
            return self._supervised_score(X, y, sample_weight, kind)
        if sample_weight is not None:
            return self._weighted_score(X, y, sample_weight)
        return float(self._run("score", X))

    def _supervised_score(self, X: Any, y: Any, sample_weight: Any, kind: str) -> float:
        """A classifier's or regressor's :meth:`score`: accuracy or R² of its predictions, as scikit-learn's mixins."""
        metric = accuracy_score if kind == "classifier" else r2_score
        return float(metric(y, self.predict(X), sample_weight=sample_weight))

    def _weighted_score(self, X: Any, y: Any, sample_weight: Any) -> float:
        """The ``score`` output's machine's own ``score`` of its input on ``X``, with ``sample_weight``."""
        output = self._ready()["score"]
        model = output.machine.fitted_model if output.kind == "dynamic" and output.operation == "score" else None
        if model is None or not _has_parameter(model.score, "sample_weight"):
            raise ArgumentError(
                f"{type(self).__name__}.score is its network's score output, which takes no sample_weight. "
                "Score without weights."
            )
        return self._machine_score("score", X, y, sample_weight=sample_weight)

    def _machine_score(self, operation: str, X: Any, y: Any, **params: Any) -> float:
        """The ``score`` of the trained model of the machine whose operation gives the network's ``operation``
        output, given that operation's input computed from ``X``, ``y`` and ``params``."""
        output = self._ready()[operation]
        checked = self._check_input(X, operation)
        with warnings.catch_warnings():
            warned = self._warned_of_names(X, checked)
            if warned is not None:  # said once, as in _run
                warnings.filterwarnings("ignore", message=warned, category=UserWarning)
            inputs = output.parents[0](checked)
        return float(output.machine.fitted_model.score(inputs, y, **params))

    def _scores(self) -> bool:
        """Whether :meth:`score` exists: a classifier or regressor that predicts, or a network with a score."""
        if self._kind() in ("classifier", "regressor"):
            return self._provides("predict")
        return self._provides("score")

    # -- inspection --------------------------------------------------------------

    def fitted_params_(self) -> dict[str, Any]:
        """The trained estimator of each machine, by machine name (``m1``… when unnamed)."""
        self._ready()
        return {_name(m, k): m.fitted_model for k, m in enumerate(self.machines_, start=1)}

    def _trained(self, names: list[str]) -> dict[str, Any]:
        """The trained models of the machines ``names`` (scikit-learn's fitted attributes of the recipes); none
        while the parameters that shape the network differ from those of the last fit."""
        self._ready()
        machines = {m.name: m for m in self.machines_}
        missing = [name for name in names if name not in machines]
        if missing or self._reshaped():
            what = f"no trained {', '.join(map(repr, missing))}" if missing else "no trained models of its parameters"
            raise NotTrainedError(
                f"This {type(self).__name__} has {what}: the parameters that shape its network (the list of "
                "estimators, say) changed since the last fit. Call fit(X, y) again."
            )
        return {name: machines[name].fitted_model for name in names}

    def report_(self) -> dict[str, Any]:
        """What the last ``fit`` did: each machine's report, and the signature's report values.

        After a failed ``fit``, the machines' reports only (which one failed, and why).
        """
        if "machines_" not in self.__dict__:
            self._ready()  # never fitted: says so
        return {
            "machines": {_name(m, k): m.report() for k, m in enumerate(self.machines_, start=1)},
            **self.__dict__.get("report_values_", {}),
        }

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        built = state.get("_built")
        if built is not None:  # kept values of training data are not worth pickling
            state["_built"] = _Built(
                built.signature, built.X, built.y, built.structure, built.objects, built.machines, built.w,
                data=built.data, frame=built.frame, raw=built.raw, weighted=built.weighted, aliases=built.aliases,
            )
        return state


#: scikit-learn's ``set_output`` machinery may wrap what ``transform`` returns (see ``_output``). Set after the
#: class: ``_SetOutputMixin`` empties it when a class is created with ``auto_wrap_output_keys=None``, which keeps
#: it from wrapping Composite's ``transform`` and ``fit_transform`` (they wrap their output themselves, and exist
#: only when the network transforms).
Composite._sklearn_auto_wrap_output_keys = frozenset({"transform"})

#: scikit-learn's mixins that say what an estimator is (and ``set_output``'s): a composite class keeps its own
#: versions of the methods they define (see ``Composite.__init_subclass__``).
_KIND_MIXIN_CLASSES = (
    ClassifierMixin, RegressorMixin, TransformerMixin, _SetOutputMixin, ClusterMixin, OutlierMixin, DensityMixin
)
#: The methods they define that Composite defines too: ``score``, ``fit_transform``, ``fit_predict``, ``set_output``.
_SHADOWED = tuple(
    sorted({name for mixin in _KIND_MIXIN_CLASSES for name in vars(mixin) if not name.startswith("_") and name in vars(Composite)})
)

#: scikit-learn's mixins that must come before ``BaseEstimator`` in an estimator's MRO (the order its
#: ``check_mixin_order`` checks): their ``__sklearn_tags__`` run only there.
_BEFORE_BASE = (
    ClassifierMixin, RegressorMixin, ClusterMixin, TransformerMixin, BiclusterMixin, OneToOneFeatureMixin,
    ClassNamePrefixFeaturesOutMixin, DensityMixin, OutlierMixin, MetaEstimatorMixin, MultiOutputMixin,
)


def _check_mixin_order(cls: type) -> None:
    """Raise unless each of scikit-learn's mixins ``cls`` derives from comes before ``BaseEstimator`` in its MRO."""
    mro = cls.__mro__
    late = [mixin for mixin in _BEFORE_BASE if mixin in mro and mro.index(mixin) > mro.index(BaseEstimator)]
    if not late:
        return
    names = " and ".join(mixin.__name__ for mixin in late)
    composite = next(base for base in cls.__bases__ if issubclass(base, Composite))
    first = [base for base in cls.__bases__ if not issubclass(base, BaseEstimator) and issubclass(base, tuple(late))]
    order = ", ".join(base.__name__ for base in [*first, *(base for base in cls.__bases__ if base not in first)])
    raise ArgumentError(
        f"{cls.__name__} lists {names} after {composite.__name__}, so scikit-learn would not read what it declares: "
        f"in the MRO it comes after BaseEstimator ({composite.__name__} derives from it), whose tags ignore the "
        "classes after it. Put the mixin first, as scikit-learn's rule is (check_estimator's check_mixin_order): "
        f"class {cls.__name__}({order})."
    )


#: The containers ``set_output`` offers (scikit-learn's).
_OUTPUTS = frozenset({"default", "pandas", "polars"})


def _names_out(owner: Composite, node: Node, X: Source, names: np.ndarray) -> Any:
    """Names of the columns of ``node``'s value, given the ``names`` of ``X``'s: asked of each machine on the way."""
    if node is X:
        return names
    if node.kind != "dynamic" or node.operation != "transform":
        raise UnavailableError(
            f"{type(owner).__name__}.get_feature_names_out cannot name the columns of {node!r}: only a chain of "
            "machine transforms from X can be named that way. Override get_feature_names_out in the composite."
        )
    inner = _names_out(owner, node.parents[0], X, names)
    model = node.machine.fitted_model
    if not hasattr(model, "get_feature_names_out"):
        raise UnavailableError(
            f"{type(owner).__name__}.get_feature_names_out cannot name the columns of {node.machine._title()}: "
            f"its model, {type(model).__name__}, has no get_feature_names_out. Give it one, or override "
            "get_feature_names_out in the composite."
        )
    return model.get_feature_names_out(inner)


class WeightedFit:
    """Mixin (before ``Composite``) for a composite whose ``network`` takes ``sample_weight``: a ``fit`` that
    names it, so scikit-learn's ``has_fit_parameter`` (and the meta-estimators that ask it) see the weights."""

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None, **fit_params: Any) -> Composite:
        """Build the network (once) and train it on ``X``, ``y`` and ``sample_weight`` (see ``Composite.fit``).

        Any other fit parameter is an ``ArgumentError`` naming what ``fit`` takes.
        """
        if sample_weight is None and not fit_params:
            return self._fit(X, y, None)
        return self._fit(X, y, *self._fit_weights(sample_weight, fit_params))


def takes_weights(estimator: Any) -> bool:
    """Whether ``estimator.fit`` takes ``sample_weight``: it names it, or it is a composite whose ``network``
    takes it (``Composite.fit`` takes it as a keyword)."""
    if isinstance(estimator, Composite) and _takes_weights(type(estimator)):
        return True
    return has_fit_parameter(estimator, "sample_weight")


def check_weighted(owner: str, name: str, estimator: Any) -> None:
    """Raise unless ``estimator`` takes ``sample_weight`` (``owner``'s component ``name`` is to get them)."""
    if not takes_weights(estimator):
        raise ArgumentError(
            f"{owner}: {name} ({type(estimator).__name__}) takes no sample_weight in fit, so it cannot train "
            "on the weights given. Fit without sample_weight, or use a model whose fit takes them."
        )


def learns_several_targets(estimator: Any) -> bool:
    """The ``multi_output`` target tag of ``estimator``: whether it learns a 2-D ``y`` as several targets.

    ``False`` when its tags cannot be read (its ``fit`` then says what is wrong).
    """
    try:
        return bool(get_tags(estimator).target_tags.multi_output)
    except Exception:
        return False


def _validate(owner: Composite, X: Any, *y: Any, raw: bool = False, **options: Any) -> Any:
    """scikit-learn's ``validate_data(owner, X, *y, **options)``, which also takes a DataFrame whose columns no
    one NumPy dtype holds.

    Its ``check_array`` makes one array of a frame, and cannot when a
    categorical of strings sits beside a bool or nullable (``Int64``,
    ``Float64``, ``boolean``) column ("Cannot cast str dtype to float64"),
    or dates beside numbers; scikit-learn's ``Pipeline`` never asks it to,
    and hands the frame to its steps. A composite hands them the frame too
    (the array is not used), so such a frame is checked as columns of
    objects: its shape, column names and target are checked all the same.
    A frame whose columns are not those ``fit`` saw (``reset=False``) is not
    copied: the check refused it for that.

    ``raw`` (at fit): ``X`` is handed on as it is (see
    ``Composite._raw_input``); only its number of rows is checked, with
    ``y``, and it sets no ``n_features_in_`` or ``feature_names_in_``.
    """
    if raw:
        if _num_samples(X) < 1:
            raise ValueError(f"Found array with 0 sample(s) while a minimum of 1 is required by {type(owner).__name__}.")
        for name in _INPUT_ATTRIBUTES:  # no columns to count or name
            owner.__dict__.pop(name, None)
        if not y:
            return X
        checked = _check_y(y[0], multi_output=options.get("multi_output", False), estimator=owner)
        check_consistent_length(X, checked)
        return X, checked
    try:
        return validate_data(owner, X, *y, **options)
    except (ValueError, TypeError):
        if not isinstance(X, pd.DataFrame) or not (options.get("reset", True) or _as_fitted(owner, X)):
            raise
    return validate_data(owner, X.astype(object), *y, **options)


def _as_fitted(owner: Composite, X: pd.DataFrame) -> bool:
    """Whether the frame ``X`` has the columns ``owner``'s ``fit`` saw: its names, or their number."""
    seen = owner.__dict__.get("feature_names_in_")
    if seen is None:
        return X.shape[1] == owner.__dict__.get("n_features_in_")
    return X.shape[1] == len(seen) and all(str(name) == seen_name for name, seen_name in zip(X.columns, seen))


def _classes(y: Any) -> Any:
    """``classes_`` of a classifier trained on ``y``: its labels, or one array of labels per target, of the dtype
    scikit-learn's check gives them (pandas' nullable ``Int64`` and ``boolean`` labels are floats to its models)."""
    y = check_array(y, ensure_2d=False, dtype=None, ensure_all_finite=False, ensure_min_samples=0, input_name="y")
    if y.ndim == 2 and y.shape[1] > 1:
        return [np.unique(column) for column in y.T]
    return np.unique(y)


def _unusable(owner: Composite, method: str, error: Exception) -> WireworkError:
    """scikit-learn's check of the data given to ``owner.<method>`` failed: its message, as a wirework error.

    A ``DataError`` (a ``ValueError``), or an ``ArgumentError`` (a
    ``TypeError``) when the check raised a ``TypeError``; the check's own
    error is chained as the cause.
    """
    kind = ArgumentError if isinstance(error, TypeError) and not isinstance(error, ValueError) else DataError
    return kind(f"{type(owner).__name__}.{method} cannot use the data it received: {brief(error)}.")


def _unknown_names(component: Any, params: dict[str, Any], alone: bool) -> tuple[list[str], list[str]]:
    """The keys of ``params`` that are no parameters of ``component``, and its parameter names.

    Left to the component's own ``set_params`` (no names returned): a
    composite, which checks every name before changing anything; a component
    whose ``get_params`` raises; and, when it is the only component set
    (``alone``: nothing else could be left half-changed), one whose names
    need ``get_params(deep=True)``, which can be slow.
    """
    if isinstance(component, Composite):
        return [], []
    plain = _plain_names(component)
    if plain is not None and not any("__" in key for key in params):
        return [key for key in params if key not in plain], sorted(plain)
    if alone:
        return [], []
    try:
        names = component.get_params(deep=True)
    except Exception:
        return [], []

    def known(key: str) -> bool:
        head, deeper, _ = key.partition("__")
        return key in names or bool(deeper) and head in params  # replaced in the same call: checked when set

    return [key for key in params if not known(key)], sorted(name for name in names if "__" not in name)


def _plain_names(component: Any) -> tuple[str, ...] | None:
    """The parameter names of a component whose ``get_params`` and ``set_params`` are ``BaseEstimator``'s."""
    if getattr(type(component), "set_params", None) is not BaseEstimator.set_params:
        return None
    return param_names(component)


def _set_component(component: Any, params: dict[str, Any]) -> None:
    """``component.set_params(**params)``.

    For a plain scikit-learn estimator (``BaseEstimator``'s own
    ``get_params`` and ``set_params``) given only its own parameter names,
    the attributes are set directly, which is what ``set_params`` does
    after reading the class signature to check the names.
    """
    plain = _plain_names(component)
    if plain is None or not all(name in plain for name in params):
        component.set_params(**params)
        return
    for name, value in params.items():
        setattr(component, name, value)


def _has_parameter(method: Callable[..., Any], name: str) -> bool:
    """Whether ``method`` names the parameter ``name``."""
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


#: Per class: whether its ``network`` takes a ``sample_weight`` source.
_WEIGHTED_CLASSES: dict[type, bool] = {}


def _takes_weights(kind: type) -> bool:
    known = _WEIGHTED_CLASSES.get(kind)
    if known is None:
        known = _WEIGHTED_CLASSES[kind] = "sample_weight" in inspect.signature(kind.network).parameters
    return known


def _weak(value: Any) -> Any:
    try:
        return weakref.ref(value)
    except TypeError:  # lists and None: never taken for the same object
        return None


def _are_seen(seen: tuple[Any, Any], X: Any, y: Any) -> bool:
    """Whether ``X`` and ``y`` are the very objects ``seen`` refers to (weakly; ``None`` for ``None``)."""
    for reference, value in zip(seen, (X, y)):
        if value is None:
            if reference is not None:
                return False
        elif reference is None or reference() is not value:
            return False
    return True


def _labelled(signature: Signature) -> str | None:
    """The output whose value on the training data is a clusterer's ``labels_``: ``fit_predict``, else
    ``predict``; ``None`` when the signature has neither."""
    if "fit_predict" in signature:
        return "fit_predict"
    return "predict" if "predict" in signature else None


def _name(machine: Machine, position: int) -> str:
    return machine.name or f"m{position}"
