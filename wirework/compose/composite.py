"""Composites: a learning network exported as a scikit-learn estimator.

A subclass declares its component models and options as ``__init__``
parameters (stored verbatim) and implements ``network(X, y=None)``, which
builds the network from two source nodes and returns a
:class:`~wirework.compose.signature.Signature`. ``fit`` builds the network
once and trains it; later fits on the same data retrain only the machines a
change touches, by the retraining rules of the core.

This module holds the class with what makes it an estimator (its kind and
tags, ``fit``, pickling). Its other parts are private bases, each in its own
module: the parameters (``_hyperparams``), building the network and keeping
it while its structure holds (``_building``), the checks of the data
(``_checks``) and the operations (``_outputs``). The rules of scikit-learn's mixins it is
created by (which kind each declares, their order in the class) are in ``_kinds``.
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils import get_tags
from sklearn.utils._set_output import _SetOutputMixin
from sklearn.utils._tags import ClassifierTags, RegressorTags, TransformerTags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import has_fit_parameter

from wirework.errors import ArgumentError, NotTrainedError, kind_name
from wirework.graph.fingerprint import tokenize
from wirework.graph.kept import copied
from wirework.graph.nodes import Source
from wirework.graph.training import FitPass, fit_pass
from wirework.compose._building import _Built, _ComposedNetwork, _layout, _quick_key, _skeleton
from wirework.compose._checks import _ComposedChecks, _classes, _unusable, learns_several_targets
from wirework.compose._hyperparams import _ComposedParams, is_estimator
from wirework.compose._kinds import _KIND_MIXIN_CLASSES, _KIND_MIXINS, _check_mixin_order
from wirework.compose._named import machine_keys
from wirework.compose._outputs import _ComposedOutputs, _has_parameter
from wirework.compose.signature import Signature

__all__ = ["Composite", "WeightedFit", "check_weighted", "is_estimator", "learns_several_targets", "takes_weights"]
__all__ += ["_has_parameter", "_quick_key", "_unusable"]  # moved to the modules of its parts; imported from here
__all__ += ["_KIND_MIXINS", "_KIND_MIXIN_CLASSES", "_check_mixin_order"]  # moved to _kinds; imported from here




class Composite(
    _ComposedParams, _ComposedNetwork, _ComposedChecks, _ComposedOutputs, _SetOutputMixin, BaseEstimator,
    auto_wrap_output_keys=None,
):
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
        _check_mixin_order(cls, Composite)
        for name in _SHADOWED:
            owner = next(k for k in cls.__mro__ if name in k.__dict__)
            if owner in _KIND_MIXIN_CLASSES:
                ours = next(k for k in cls.__mro__ if name in k.__dict__ and issubclass(k, _OWN))
                setattr(cls, name, ours.__dict__[name])

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

    #: Whether a bagging (``ww.Bagging``) trains a member of this composite on all the rows weighted by how many
    #: times its draw took each (when its ``fit`` takes ``sample_weight``), or on the rows drawn (``False``): as
    #: scikit-learn's bagging does for a recipe's peer, whose ``fit`` takes ``sample_weight`` or not (1.9's
    #: ``Pipeline``, ``TransformedTargetRegressor``, stacking and voting: not, so those recipes say ``False``).
    _bagged_by_counts: bool = True

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
        if self._transforms():
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

    # -- fitting ---------------------------------------------------------------

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
            self.__dict__.pop("_unwired", None)
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
                self.labels_ = copied(labels)  # a value of the pass, which the network keeps
            else:  # nor labels, unless a clusterer that predicts
                self.__dict__.pop("labels_", None)
        return self

    # -- trained or not; fitting that returns the training output ------------

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
            unwired = self.__dict__.get("_unwired")
            if unwired is not None:
                raise NotTrainedError(
                    f"The parameters set on this {type(self).__name__} after fit cannot be applied to its trained "
                    f"network ({kind_name(unwired)}: {unwired}). Set valid ones with set_params (the trained models "
                    "are kept: nothing retrains), or call fit(X, y)."
                ) from unwired
            raise NotTrainedError(
                f"This {type(self).__name__} has not been fitted yet. Call fit(X, y) before using it."
            )
        return network

    def __sklearn_is_fitted__(self) -> bool:
        return "network_" in self.__dict__

    @available_if(lambda self: self._transforms())
    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """Fit, and return the ``transform`` output's value on the training data; or the ``fit_transform``
        output's when the signature has one (a model that transforms only its training data, ``TSNE`` say).

        As scikit-learn's ``Pipeline.fit_transform``: a machine whose model
        has its own ``fit_transform`` gives, on the training data, what that
        returned (a ``TargetEncoder``'s cross-fitted encodings); elsewhere
        this equals ``fit(X, y).transform(X)``.
        """
        if type(self).fit not in (Composite.fit, WeightedFit.fit):  # a fit of its own: it must run
            self.fit(X, y, **fit_params)
            output = self._ready().get("fit_transform")
            if output is None:
                return self.transform(X)
            return self._output(copied(output.machine._kept_output(output.parents[0], "fit_transform", False)), X)
        values = {"fit_transform": None, "transform": None}  # the _fit keeps those the signature has
        self._fit_with(X, y, fit_params, values, "fit_transform")
        # values of the pass, which the network keeps: the caller gets a copy, as scikit-learn's are the caller's
        return self._output(copied(values["fit_transform"] if "fit_transform" in values else values["transform"]), X)

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
            if labels is None:
                return self.predict(X)
            return copied(labels.machine._kept_output(labels.parents[0], "fit_predict", False))
        values = {"fit_predict": None, "predict": None}  # the _fit keeps those the signature has
        self._fit_with(X, y, fit_params, values, "fit_predict")
        return copied(values["fit_predict"] if "fit_predict" in values else values["predict"])

    def _fits_and_predicts(self) -> bool:
        """Whether :meth:`fit_predict` exists: for a network with a ``fit_predict`` output, and for a clusterer
        or an outlier detector (``OutlierMixin``) that predicts, as scikit-learn's ``ClusterMixin`` and
        ``OutlierMixin`` give it."""
        if self._kind() == "clusterer" or isinstance(self, OutlierMixin):
            return self._provides("predict") or self._provides("fit_predict")
        return self._provides("fit_predict")

    # -- inspection --------------------------------------------------------------

    def fitted_params_(self) -> dict[str, Any]:
        """The trained estimator of each machine, by machine name (``m1``… when unnamed)."""
        self._ready()
        return dict(zip(self._machine_keys(), (m.fitted_model for m in self.machines_)))

    def _machine_keys(self) -> list[str]:
        """The keys of ``machines_`` in :meth:`report_` and :meth:`fitted_params_`: the names the formulas and
        drawings of the network's outputs show (see :func:`~wirework.compose._named.machine_keys`)."""
        built = self.__dict__.get("_built")
        return machine_keys(self.machines_, [] if built is None else built.signature.nodes())

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
            "machines": dict(zip(self._machine_keys(), (m.report() for m in self.machines_))),
            **self.__dict__.get("report_values_", {}),
        }

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        built = state.get("_built")
        if built is not None:  # kept values of training data are not worth pickling
            state["_built"] = _Built(
                built.signature, built.X, built.y, built.structure, built.objects, built.machines, built.w,
                data=built.data, frame=built.frame, raw=built.raw, weighted=built.weighted, aliases=built.aliases,
                tokens=built.tokens, offers=built.offers,
            )
        return state


#: scikit-learn's ``set_output`` machinery may wrap what ``transform`` returns (see ``_output``). Set after the
#: class: ``_SetOutputMixin`` empties it when a class is created with ``auto_wrap_output_keys=None``, which keeps
#: it from wrapping Composite's ``transform`` and ``fit_transform`` (they wrap their output themselves, and exist
#: only when the network transforms).
Composite._sklearn_auto_wrap_output_keys = frozenset({"transform"})

#: The classes that define Composite's methods: it, and the parts it derives from (a composite class in an MRO is
#: one of these or derives from Composite).
_OWN = (Composite, _ComposedParams, _ComposedNetwork, _ComposedChecks, _ComposedOutputs)
_OWN_NAMES = frozenset(name for own in _OWN for name in vars(own))
#: The methods they define that Composite defines too: ``score``, ``fit_transform``, ``fit_predict``, ``set_output``.
_SHADOWED = tuple(
    sorted({name for mixin in _KIND_MIXIN_CLASSES for name in vars(mixin) if not name.startswith("_") and name in _OWN_NAMES})
)



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
