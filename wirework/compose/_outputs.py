"""A composite's operations: ``predict``, ``transform``, ``score``… and the names and container of its output.

:class:`_ComposedOutputs` is the part of
:class:`~wirework.compose.composite.Composite` that runs the trained
network's outputs on new data. Each operation exists exactly when the
network's signature provides it (``available_if``); a composite that
transforms also has ``set_output`` and ``get_feature_names_out``, as
scikit-learn's transformers.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils._set_output import ADAPTERS_MANAGER, _get_output_config, _wrap_data_with_container
from sklearn.utils.metaestimators import available_if

from wirework.errors import ArgumentError, DataError, GraphError, ParameterError, UnavailableError
from wirework.graph.data import describe
from wirework.graph.nodes import Node, Source
from wirework.compose import _params

if TYPE_CHECKING:
    from wirework.compose.composite import Composite

__all__: list[str] = []


def _offers(operation: str):
    return lambda self: self._provides(operation)


class _ComposedOutputs:
    """The operations of a :class:`~wirework.compose.composite.Composite` (a base of it, and of nothing else)."""

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

    #: The operations whose keyword parameters go to a model (see :meth:`_run_with`): those of scikit-learn's
    #: ``Pipeline``; a recipe whose scikit-learn peer takes fewer says which.
    _param_operations: tuple[str, ...] = _params.PARAM_OPERATIONS

    def _run_with(self, operation: str, X: Any, params: dict[str, Any], checks: bool = True) -> Any:
        """:meth:`_run`, the model whose ``operation`` gives the output called with ``params`` (with metadata
        routing on, the models before it too: :func:`~wirework.compose._params.run_with`). ``checks``: whether
        ``X`` is checked as the composite's input (not for ``inverse_transform``).

        Raises
        ------
        ArgumentError
            ``operation`` is not one of :attr:`_param_operations` (a stack's
            ``predict_proba``: scikit-learn's takes ``X`` only).
        """
        if operation not in self._param_operations:
            owner = type(self).__name__
            raise ArgumentError(
                f"{owner}.{operation} takes X only, as its scikit-learn counterpart's does. Received also: "
                f"{', '.join(f'{key}=...' for key in sorted(params))}. Keyword parameters go only to the model that gives "
                f"the output of {' or '.join(self._param_operations)}. Call {operation}(X)."
            )
        network = self._ready()
        checked = self._check_input(X, operation) if checks else X
        warned = self._warned_of_names(X, checked) if checks else None
        with warnings.catch_warnings():
            if warned is not None:
                warnings.filterwarnings("ignore", message=warned, category=UserWarning)
            return _params.run_with(type(self).__name__, network[operation], self._built.X, checked, operation, params)

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
    def decision_function(self, X: Any, **params: Any) -> Any:
        """The network's ``decision_function`` output on ``X``.

        ``params`` only with scikit-learn's metadata routing on, as
        scikit-learn's ``Pipeline`` takes them: each model on the way gets
        what it requests (see :mod:`wirework.compose._params`); without it,
        a ``ParameterError`` (a ``ValueError``, as scikit-learn's).
        """
        if params:
            return self._run_with("decision_function", X, params)
        return self._run("decision_function", X)

    @available_if(_offers("score_samples"))
    def score_samples(self, X: Any) -> Any:
        """The network's ``score_samples`` output on ``X`` (an outlier detector's or a density's scores).

        ``X`` alone, as scikit-learn's ``Pipeline.score_samples`` takes it.
        """
        return self._run("score_samples", X)

    @available_if(_offers("transform"))
    def transform(self, X: Any, **params: Any) -> Any:
        """The network's ``transform`` output on ``X``, in the container ``set_output`` asks for
        (``params``: as for :meth:`decision_function`)."""
        if params:
            return self._output(self._run_with("transform", X, params), X)
        return self._output(self._run("transform", X), X)

    def _output(self, values: Any, X: Any) -> Any:
        """``values`` in the container of this composite's ``set_output`` (or the global ``transform_output``)."""
        try:
            result = _wrap_data_with_container("transform", values, X, self)
        except ValueError as error:  # an unknown container, or sparse output for a DataFrame
            raise DataError(f"{type(self).__name__}.transform cannot give its output as asked: {error}") from error
        except UnavailableError:  # no names for its columns (a FunctionTransformer step without feature_names_out)
            # the container all the same, with the columns the output has: scikit-learn's adapters keep them when a
            # step "does not provide get_feature_names_out", so its Pipeline gives a DataFrame there
            container = _get_output_config("transform", self)["dense"]
            result = ADAPTERS_MANAGER.adapters[container].create_container(values, X, columns=None)
        if (
            isinstance(result, pd.DataFrame)
            and isinstance(X, pd.DataFrame)
            and len(result) == len(X)
            and not result.index.equals(X.index)
        ):  # the caller's rows, as scikit-learn's transformers give them (the network may have had an array)
            result = result.set_axis(X.index, axis=0)
        return result

    def _transforms(self) -> bool:
        """Whether the network transforms: a ``transform`` output, or a ``fit_transform`` one (a model that
        transforms only its training data, ``TSNE``): then it has ``fit_transform``, ``set_output`` and
        ``get_feature_names_out``, as scikit-learn's transformers."""
        return self._provides("transform") or self._provides("fit_transform")

    @available_if(lambda self: self._transforms())
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

    @available_if(lambda self: self._transforms())
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
        output = network["transform"] if "transform" in network else network["fit_transform"]
        return np.asarray(_names_out(self, output, self._built.X, names), dtype=object)

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

    @available_if(_offers("inverse_transform"))
    def inverse_transform(self, X: Any, **params: Any) -> Any:
        """The network's ``inverse_transform`` output on ``X`` (``params``: as for :meth:`decision_function`)."""
        if params:
            return self._run_with("inverse_transform", X, params, checks=False)
        network = self._ready()
        return network["inverse_transform"](X)

    @available_if(lambda self: self._scores())
    def score(self, X: Any, y: Any = None, sample_weight: Any = None, **params: Any) -> float:
        """Accuracy for classifiers, R² for regressors (as scikit-learn's mixins); for any other composite, the
        network's ``score`` output on ``X`` (an unsupervised model's score, as a pipeline ending in a clusterer,
        mixture or density gives it).

        ``sample_weight`` weighs the rows: in the metric, or, for the network's
        ``score`` output, in the ``score`` of the machine that gives it, when
        that output is a machine's ``score`` and the model's takes
        ``sample_weight`` (as scikit-learn's ``Pipeline.score`` passes them to
        its last step); otherwise it is an ``ArgumentError``.

        ``params``: where a model's own ``score`` gives the composite's (that
        output's machine; a ``ww.Pipeline``'s last step), with scikit-learn's
        metadata routing on, what that model requests for its ``score`` and
        the models before it for their ``transform`` (see
        :mod:`wirework.compose._params`); refused otherwise.
        """
        kind = self._kind()
        if kind in ("classifier", "regressor"):
            if y is None:
                raise DataError(f"{type(self).__name__}.score needs y: the true targets to compare predictions with.")
            return self._supervised_score(X, y, sample_weight, kind, params)
        if sample_weight is not None or params:
            return self._weighted_score(X, y, sample_weight, params)
        return _one_number(self, self._run("score", X))

    def _supervised_score(self, X: Any, y: Any, sample_weight: Any, kind: str, params: dict[str, Any]) -> float:
        """A classifier's or regressor's :meth:`score`: accuracy or R² of its predictions, as scikit-learn's mixins
        (computed by the composite: no model takes ``params``)."""
        if params:
            raise ArgumentError(
                f"{type(self).__name__}.score got {_params._received(params)}, but its score is the "
                f"{'accuracy' if kind == 'classifier' else 'R²'} of its predictions, which no model of it computes, "
                "so no model can take them. Call score(X, y) without them."
            )
        metric = accuracy_score if kind == "classifier" else r2_score
        return float(metric(y, self.predict(X), sample_weight=sample_weight))

    def _weighted_score(self, X: Any, y: Any, sample_weight: Any, params: dict[str, Any]) -> float:
        """The ``score`` output's machine's own ``score`` of its input on ``X``, with ``sample_weight`` and
        ``params``."""
        output = self._ready()["score"]
        model = output.machine.fitted_model if output.kind == "dynamic" and output.operation == "score" else None
        if sample_weight is not None and (model is None or not _has_parameter(model.score, "sample_weight")):
            raise ArgumentError(
                f"{type(self).__name__}.score is its network's score output, which takes no sample_weight. "
                "Score without weights."
            )
        return self._machine_score("score", X, y, params, sample_weight=sample_weight)

    def _machine_score(self, operation: str, X: Any, y: Any, params: dict[str, Any], **weights: Any) -> float:
        """The ``score`` of the trained model of the machine whose operation gives the network's ``operation``
        output, given that operation's input computed from ``X``, and ``y``; ``weights``: its ``sample_weight``
        (``None``: not given); ``params``: routed as :func:`~wirework.compose._params.routed_input` says."""
        output = self._ready()[operation]
        checked = self._check_input(X, operation)
        with warnings.catch_warnings():
            warned = self._warned_of_names(X, checked)
            if warned is not None:  # said once, as in _run
                warnings.filterwarnings("ignore", message=warned, category=UserWarning)
            if params:
                owner = type(self).__name__
                target, inputs, given, _, _ = _params.routed_input(
                    owner, "score", output, operation, self._built.X, checked, params
                )
                model = target.machine.fitted_model
            else:
                inputs, given, model = output.parents[0](checked), {}, output.machine.fitted_model
        weighted = {key: value for key, value in weights.items() if value is not None}
        return float(model.score(inputs, y, **weighted, **given))

    def _scores(self) -> bool:
        """Whether :meth:`score` exists: a classifier or regressor that predicts, or a network with a score."""
        if self._kind() in ("classifier", "regressor"):
            return self._provides("predict")
        return self._provides("score")


#: The containers ``set_output`` offers (scikit-learn's).
_OUTPUTS = frozenset({"default", "pandas", "polars"})


def _names_out(owner: Composite, node: Node, X: Source, names: np.ndarray) -> Any:
    """Names of the columns of ``node``'s value, given the ``names`` of ``X``'s: asked of each machine on the way."""
    if node is X:
        return names
    if node.kind != "dynamic" or node.operation not in ("transform", "fit_transform"):
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


def _one_number(owner: Composite, value: Any) -> float:
    """``value``, the network's ``score`` output, as a float; a ``GraphError`` when it is not one number."""
    if np.ndim(value) != 0 and np.size(value) != 1:
        raise GraphError(
            f"{type(owner).__name__}.score gives its network's score output, which must be one number (a model's "
            f"score of its input, mach.score(X)). It gave {describe(value)}. A score per row is score_samples: "
            "give that node as ww.Signature(score_samples=...)."
        )
    return float(np.asarray(value).reshape(()))


def _has_parameter(method: Callable[..., Any], name: str) -> bool:
    """Whether ``method`` names the parameter ``name``."""
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def unnamed_step(owner: Composite, steps: list[tuple[str, Any]]) -> None:
    """Raise scikit-learn's ``Pipeline.get_feature_names_out`` error when one of ``steps`` (the live steps of
    ``owner``, a pipeline that does not transform) has no ``get_feature_names_out``; else return.

    scikit-learn's asks the steps in order, so before ``fit`` a later step's
    turn never comes: the steps before it, unfitted, raise first
    (``NotTrainedError`` here). The error is an ``UnavailableError`` (an
    ``AttributeError``, as scikit-learn's) naming the step, and how to name
    the columns it receives (scikit-learn suggests ``pipeline[:-1]``, which a
    ``ww.Pipeline`` has not).
    """
    lacking = next((k for k, (_, step) in enumerate(steps) if not hasattr(step, "get_feature_names_out")), None)
    if lacking is None:
        return
    if lacking > 0:
        owner._ready()
    name, step = steps[lacking]
    receives = (
        "fit a ww.Pipeline of the steps before it and call its get_feature_names_out() (scikit-learn's "
        "pipeline[:-1].get_feature_names_out())"
        if lacking
        else "they are the pipeline's input: feature_names_in_ once fitted on a DataFrame"
    )
    raise UnavailableError(
        f"Estimator {name} ({type(step).__name__}) does not provide get_feature_names_out, so this "
        f"{type(owner).__name__} names no output columns (it has no transform). For the names of the columns "
        f"step {name!r} receives, {receives}."
    )
