"""``ww.Pipeline`` and ``ww.TransformedTarget``: chains of machines as composites."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from sklearn import get_config
from sklearn.linear_model import LinearRegression
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import check_array, get_tags
from sklearn.utils._tags import TransformerTags

from wirework.errors import ArgumentError, GraphError, ParameterError, WireworkError
from wirework.graph.data import describe
from wirework.graph.machines import Machine, machine, scores_with_a_target
from wirework.graph.nodes import Node, Source, node
from wirework.compose import _ops, _params
from wirework.compose._kinds import _kind_of
from wirework.compose._named import NamedEstimators, _VisualBlock, dropped
from wirework.compose._outputs import unnamed_step
from wirework.compose._routing import RoutedWeights
from wirework.compose.composite import (
    _has_parameter,
    _unusable,
    Composite,
    WeightedFit,
    check_weighted,
    learns_several_targets,
    takes_weights,
)
from wirework.compose.signature import Signature

__all__ = ["Pipeline", "TransformedTarget"]
__all__ += ["_kind_of"]  # moved to _kinds; imported from here


def _final_outputs(
    final: Any, Z: Node, y: Source | Node | None, name: str, target: Any = None, weights: Source | None = None
) -> tuple[dict[str, Node], Machine, Machine | None]:
    """The operations a last step offers, as nodes (through a target transformer if given), its machine,
    and the target transformer's machine (``None`` without one).

    ``weights``: the sample weights the last step trains with, if any.
    """
    row_weights = () if weights is None else (weights,)
    if target is not None and y is not None:
        y = node(_ops.plain_target, y)
        scale = machine(target, y, name="target_transformer")
        mach = machine(final, Z, scale.transform(y), *row_weights, name=name)
        return {"predict": scale.inverse_transform(node(_params.one_target, mach.predict(Z)))}, mach, scale
    if y is None and weights is not None:  # unsupervised, with weights: no target before them
        y = node(_ops.no_target, Z)
    mach = machine(final, Z, y, *row_weights, name=name) if y is not None else machine(final, Z, name=name)
    outputs = {}
    for operation in ("predict", "predict_proba", "predict_log_proba", "decision_function", "score_samples", "transform"):
        if hasattr(final, operation):
            outputs[operation] = getattr(mach, operation)(Z)
    if hasattr(final, "score") and not scores_with_a_target(final):
        outputs["score"] = mach.score(Z)  # an unsupervised step's own score of its input, as scikit-learn's gives
    if "predict" not in outputs and hasattr(final, "fit_predict"):  # labels of its training data only (DBSCAN)
        outputs["fit_predict"] = mach.fit_predict(Z)
    elif "transform" not in outputs and hasattr(final, "fit_transform"):  # its training data only (TSNE)
        outputs["fit_transform"] = mach.fit_transform(Z)
    if not outputs:
        raise GraphError(
            f"The last step {name!r} ({type(final).__name__}) offers none of predict, predict_proba, "
            "decision_function, score_samples, transform, fit_predict or fit_transform. Make it an estimator or "
            "a transformer."
        )
    return outputs, mach, None


def _takes_no_columns(model: Any) -> bool:
    """Whether ``model``'s input tags say it takes no 2-D array (text, dicts, a vector); ``False`` when unreadable."""
    try:
        return not get_tags(model).input_tags.two_d_array
    except (AttributeError, TypeError, ValueError):
        return False


def _skipped(step: Any) -> bool:
    """Whether a pipeline step is skipped: ``None`` or ``"passthrough"``."""
    return step is None or (isinstance(step, str) and step == "passthrough")


class Pipeline(NamedEstimators, RoutedWeights, WeightedFit, Composite):
    """Steps chained as machines: each transformer feeds the next; the last step predicts.

    Parameters
    ----------
    steps : list of (str, estimator)
        Transformers, then any estimator. ``"passthrough"`` or ``None``
        skips a step; every step skipped makes the identity transformer,
        as in scikit-learn (``transform`` and ``inverse_transform`` give
        ``X`` back; nothing trains). Every step gets ``y`` at fit, as in
        scikit-learn. A last step with ``fit_predict`` and no ``predict``
        (``DBSCAN``, ``AgglomerativeClustering``, ``LocalOutlierFactor``)
        labels the data it trains on: the pipeline then has ``fit_predict``
        (and, for a clusterer, ``labels_``) and no ``predict``, as
        scikit-learn's. Likewise a last step with ``fit_transform`` and no
        ``transform`` (``TSNE``, ``SpectralEmbedding``, ``MDS``): the
        pipeline has ``fit_transform`` (that step's output on the training
        data) and no ``transform``.
    target_transformer : transformer, optional
        Fit on ``y``; the last step learns the transformed target and its
        predictions are mapped back with ``inverse_transform``.
    cache : FitCache, optional
        Share fits between clones (defaults to ``ww.set_config(cache=...)``).
    executor, n_jobs : optional
        Where the machines train: ``"sequential"`` (default), ``"threads"``,
        ``"processes"`` or a ``ww.DaskExecutor``, with ``n_jobs`` workers.

    Notes
    -----
    ``fit(X, y, sample_weight=w)`` trains every step whose ``fit`` takes
    ``sample_weight`` with the weights (in scikit-learn:
    ``Pipeline.fit(X, y, <step>__sample_weight=w)`` for each such step), so
    integer weights train the pipeline as repeated rows would. A transformer
    whose ``fit`` takes no weights trains without them; a last step that
    predicts (or labels, by ``fit_predict``) must take them
    (``ww.ArgumentError`` otherwise: it would ignore them). With
    scikit-learn's metadata routing on, the steps that
    request the weights (``set_fit_request``) get them, as in scikit-learn's
    ``Pipeline.fit(X, y, sample_weight=w)``.

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_diabetes(return_X_y=True)
    >>> pipe = ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())]).fit(X, y)
    >>> pipe.set_params(ridge__alpha=3.0).fit(X, y).report_()["machines"]["ridge"]["action"]
    'updated'
    """

    _named = "steps"
    _routes_each_fit = True  # fit_transform and fit_predict route as themselves, as in scikit-learn's Pipeline

    _bagged_by_counts = False  # a bagging's members train on their drawn rows, as scikit-learn's Pipeline

    def __init__(self, steps: list[tuple[str, Any]], *, target_transformer: Any = None, cache: Any = None, executor: Any = None, n_jobs: int | None = None) -> None:
        self.steps = steps
        self.target_transformer = target_transformer
        self.cache = cache
        self.executor = executor
        self.n_jobs = n_jobs

    def _live_steps(self) -> list[tuple[str, Any]]:
        steps = self._checked_pairs()
        for name, step in steps:
            if dropped(step):
                raise ArgumentError(
                    f"Pipeline: step {name!r} is 'drop', which a pipeline does not take (scikit-learn's voting and "
                    "stacking estimators skip such an estimator). Skip a step with 'passthrough' or None, as in "
                    "scikit-learn's Pipeline."
                )
        return [(name, step) for name, step in steps if not _skipped(step)]

    def _last_step(self) -> Any:
        """The last live step, without the full check of the steps that network() makes (``None``: none)."""
        try:
            for _, step in reversed(self.steps):
                if not _skipped(step):
                    return step
        except Exception:
            return None
        return None

    def _sk_visual_block_(self) -> _VisualBlock:
        """The steps in order, as scikit-learn draws its ``Pipeline`` (``sklearn.utils.estimator_html_repr``, a
        notebook's display); beside them, the target transformer when there is one."""
        pairs = self._pairs()
        names = [f"{name}: {'passthrough' if _skipped(step) else type(step).__name__}" for name, step in pairs]
        steps = [step for _, step in pairs]
        serial = _VisualBlock("serial", steps, names=names, name_details=[str(step) for step in steps], dash_wrapped=False)
        target = self.target_transformer
        if target is None:
            return serial
        return _VisualBlock(
            "parallel", [serial, target], names=["steps", f"target_transformer: {type(target).__name__}"],
            name_details=[None, str(target)],
        )

    def _kind(self) -> str | None:
        last = self._last_step()
        return None if last is None else _kind_of(last)

    def _multi_output(self) -> bool:
        """Several targets when the last step learns them, as scikit-learn's ``Pipeline`` tags say."""
        return learns_several_targets(self._last_step())

    def _component_tags(self, tags: Any) -> None:
        """The tags scikit-learn's ``Pipeline`` takes from its steps, from the steps that run (not those skipped).

        As scikit-learn's: sparse input when every step takes it (so the
        identity, with no step, takes it: it gives ``X`` back), ``pairwise``
        from the first step (a precomputed kernel: cross-validation then
        splits its columns too), and the last step's classifier and regressor
        tags. Where scikit-learn's ``Pipeline`` keeps its defaults, what the
        network does: NaN input when every step takes it (the identity
        does), randomness when any step or the target transformer has it,
        and the dtypes a transformer pipeline keeps, those every step keeps
        (the identity: float64 and float32; scikit-learn copies the last
        step's). Steps that cannot be read leave the defaults: ``fit`` says
        what is wrong with them.
        """
        try:
            steps = [step for _, step in self._live_steps()]
            inner = [get_tags(step) for step in steps]
            around = [get_tags(self.target_transformer)] if self.target_transformer is not None else []
        except (WireworkError, AttributeError, TypeError, ValueError):
            return
        tags.input_tags.sparse = all(t.input_tags.sparse for t in inner)
        tags.input_tags.allow_nan = all(t.input_tags.allow_nan for t in inner)
        tags.input_tags.pairwise = bool(inner) and inner[0].input_tags.pairwise
        tags.non_deterministic = any(t.non_deterministic for t in [*inner, *around])
        if not inner:  # the identity: X itself, as it came
            if tags.transformer_tags is not None:
                tags.transformer_tags.preserves_dtype = ["float64", "float32"]
            return
        last = inner[-1]
        if tags.classifier_tags is not None and last.classifier_tags is not None:
            tags.classifier_tags = copy.deepcopy(last.classifier_tags)
        if tags.regressor_tags is not None and last.regressor_tags is not None:
            tags.regressor_tags = copy.deepcopy(last.regressor_tags)
        if tags.transformer_tags is not None:
            kept = [(t.transformer_tags or TransformerTags()).preserves_dtype for t in inner]
            tags.transformer_tags.preserves_dtype = [d for d in kept[-1] if all(d in k for k in kept)] or ["float64"]

    def _raw_input(self) -> bool:
        """Whether ``X`` goes to the first step unchecked: when that step takes no 2-D array (text for a
        ``TfidfVectorizer``, dicts for a ``DictVectorizer``, a vector for an ``IsotonicRegression``), as
        scikit-learn's ``Pipeline`` hands ``X`` to its first step."""
        try:
            steps = self._live_steps()
        except WireworkError:  # fit says what is wrong with them
            return False
        return bool(steps) and _takes_no_columns(steps[0][1])

    def _fits_and_predicts(self) -> bool:
        """``fit_predict`` when the last step has one (clusterers, outlier detectors), as scikit-learn's
        ``Pipeline`` offers it: its ``predict`` output's value on the training data, or, for a last step
        without ``predict`` (``DBSCAN``), what its ``fit_predict`` returned."""
        if not hasattr(self._last_step(), "fit_predict"):
            return False
        return self._provides("predict") or self._provides("fit_predict")

    def set_output(self, *, transform: str | None = None) -> Pipeline:
        """Set the output container of every step that transforms, and of the pipeline, as scikit-learn's.

        Available on every pipeline, as on scikit-learn's: one that predicts
        hands its last step a DataFrame, say.

        The steps are the components as given (``steps``): their new setting
        is a change that the next ``fit`` retrains them for (a step that
        outputs a DataFrame can change what the next step learns: its
        ``feature_names_in_``, say). The pipeline's own setting applies at
        once: ``"pandas"`` or ``"polars"`` puts the trained network's output
        in that container, named by :meth:`get_feature_names_out`, while
        ``"default"`` gives what the trained network computes, which is what
        its steps were set to when they trained, until the next ``fit``.

        Raises
        ------
        ParameterError
            A value other than ``"default"``, ``"pandas"``, ``"polars"`` or
            ``None``, or a step that transforms but has no ``set_output``.
            Nothing is changed.
        """
        if transform is None:
            return self
        steps = [(name, step) for name, step in self._live_steps() if hasattr(step, "transform")]
        for name, step in steps:  # every step checked before any changes
            if not hasattr(step, "set_output"):
                raise ParameterError(
                    f"Pipeline.set_output cannot configure step {name!r} ({type(step).__name__}): it has no "
                    "set_output. Give it one (scikit-learn's TransformerMixin), or leave the output as it is."
                )
        self._keep_output(transform)  # checks the value
        for _, step in steps:
            step.set_output(transform=transform)
        return self

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the columns ``transform`` gives (``Composite.get_feature_names_out``). On every pipeline, as on
        scikit-learn's: one whose steps do not all name their output (a last step that predicts) raises an
        ``UnavailableError``, an ``AttributeError`` (see :func:`~wirework.compose._outputs.unnamed_step`)."""
        if not self._transforms():
            unnamed_step(self, self._live_steps())
        return super().get_feature_names_out(input_features)

    def _supervised_score(self, X: Any, y: Any, sample_weight: Any, kind: str, params: dict[str, Any]) -> float:
        """The last step's own ``score`` of what the steps before it make of ``X``, as scikit-learn's
        ``Pipeline.score`` (a ``PoissonRegressor`` scores by the deviance it explains, not R²); with a target
        transformer, R² of the predictions, as ``TransformedTargetRegressor(Pipeline(...))`` scores.

        With metadata routing on, ``sample_weight`` is routed as the other
        parameters: to the last step when its ``score`` requests it
        (``set_score_request``), to the steps before it when their
        ``transform`` does, as scikit-learn's ``Pipeline.score`` routes it.
        """
        if self.target_transformer is not None:
            return super()._supervised_score(X, y, sample_weight, kind, params)
        if sample_weight is not None and get_config()["enable_metadata_routing"]:
            return self._machine_score("predict", X, y, {**params, "sample_weight": sample_weight})
        if sample_weight is not None:
            model = self._ready()["predict"].machine.fitted_model
            if not _has_parameter(model.score, "sample_weight"):
                raise ArgumentError(
                    f"Pipeline.score is its last step's score ({type(model).__name__}), which takes no "
                    "sample_weight, as in scikit-learn's Pipeline. Score without weights."
                )
        # the last step's, given what its predict is given
        return self._machine_score("predict", X, y, params, sample_weight=sample_weight)

    def _weighted_score(self, X: Any, y: Any, sample_weight: Any, params: dict[str, Any]) -> float:
        """An unsupervised last step's ``score`` (see ``Composite.score``); with metadata routing on,
        ``sample_weight`` routed as in :meth:`_supervised_score`."""
        if sample_weight is not None and get_config()["enable_metadata_routing"]:
            return self._machine_score("score", X, y, {**params, "sample_weight": sample_weight})
        return super()._weighted_score(X, y, sample_weight, params)

    def _scores_itself(self) -> bool:
        """Only with a target transformer (R² of the predictions): else the last step's ``score`` gives the
        pipeline's, and scikit-learn's metadata routing reaches it (:meth:`_operation_routes`)."""
        return self.target_transformer is not None

    def _weight_routes(self) -> list[tuple[str, Any, dict[str, str]]]:
        """The live steps, each reached by the methods scikit-learn's ``Pipeline`` routes its ``fit``,
        ``fit_transform`` and ``fit_predict`` to: a step before the last by its ``fit_transform`` (else its
        ``fit``), the last by the method called, when it has it (else its ``fit``)."""
        steps = self._live_steps()
        routes = []
        for k, (name, step) in enumerate(steps):
            if k < len(steps) - 1:
                method = "fit_transform" if hasattr(step, "fit_transform") else "fit"
                routes.append((name, step, dict.fromkeys(("fit", "fit_transform", "fit_predict"), method)))
            else:
                last = {caller: caller if hasattr(step, caller) else "fit" for caller in ("fit_transform", "fit_predict")}
                routes.append((name, step, {"fit": "fit", **last}))
        return routes

    def _operation_routes(self) -> list[tuple[str, Any, dict[str, str]]]:
        """As scikit-learn's ``Pipeline`` routes its operations' parameters: the steps before the last by their
        ``transform`` (``inverse_transform`` by theirs), the last by the method called, when it has it; its
        ``score`` too, which gives the pipeline's. With a target transformer the pipeline's ``score`` is its own
        (R² of the predictions: see :meth:`_scores_itself`), and reaches no step."""
        steps = self._live_steps()
        own = self.target_transformer is not None
        before = {op: method for op, method in _params.STEP_METHODS.items() if not (own and op == "score")}
        routes = [(name, step, before) for name, step in steps[:-1]]
        if steps:
            name, last = steps[-1]
            operations = (*_params.PARAM_OPERATIONS, *(() if own else ("score",)))
            routes.append((name, last, {op: op for op in operations if hasattr(last, op)}))
        return routes

    def _weighted_steps(self, steps: list[tuple[str, Any]], sample_weight: Source | None) -> set[str]:
        """The names of the steps that train with ``sample_weight``: those whose ``fit`` takes it.

        A last step that predicts or labels must take them (it would ignore them), and
        some step must. Under metadata routing: the steps that requested them.
        """
        if sample_weight is None:
            return set()
        routed = self._routed_weights()
        if routed is not None:
            return set(routed)
        if steps and (hasattr(steps[-1][1], "predict") or hasattr(steps[-1][1], "fit_predict")):
            check_weighted("Pipeline", f"its last step {steps[-1][0]!r}", steps[-1][1])
        weighted = {name for name, step in steps if takes_weights(step)}
        if not weighted:
            listed = ", ".join(repr(n) for n, _ in steps) or "every step is 'passthrough' or None"
            raise ArgumentError(
                f"Pipeline: no step takes sample_weight in fit ({listed}), so the weights given would change "
                "nothing. Fit without sample_weight, or add a step that takes them."
            )
        return weighted

    def network(self, X: Source, y: Source | None = None, sample_weight: Source | None = None) -> Signature:
        steps = self._live_steps()
        last_given = self.steps[-1][0]
        for name, step in steps:
            if name != last_given and not hasattr(step, "transform"):
                raise ArgumentError(
                    f"Pipeline: step {name!r} ({type(step).__name__}) is not the last step, so it must be a "
                    "transformer (have transform()), as scikit-learn's Pipeline requires of every step but the last, "
                    "even when those after it are 'passthrough' or None. Move it to the end, or use a transformer."
                )
        weighted = self._weighted_steps(steps, sample_weight)
        if not steps:  # scikit-learn's identity transformer: X is the output, both ways
            if self.target_transformer is not None:
                raise GraphError(
                    "Pipeline: every step is 'passthrough' or None, so nothing predicts the target that "
                    "target_transformer transforms. Give a last step that predicts, or set target_transformer=None."
                )
            return Signature(transform=X, inverse_transform=X)
        Z: Node = X
        chain = []
        for name, step in steps[:-1]:
            if name in weighted:  # unsupervised: no target before the weights
                data = (Z, node(_ops.no_target, Z) if y is None else y, sample_weight)
            else:
                data = (Z,) if y is None else (Z, y)
            mach = machine(step, *data, name=name)
            chain.append(mach)
            Z = mach.transform(Z)
        name, final = steps[-1]
        weights = sample_weight if name in weighted else None
        outputs, last, _ = _final_outputs(final, Z, y, name, self.target_transformer, weights)
        if self.target_transformer is None and all(hasattr(s, "inverse_transform") for _, s in steps):
            back: Node = X
            for mach in [*chain, last][::-1]:
                back = mach.inverse_transform(back)
            outputs["inverse_transform"] = back
        return Signature(**outputs)


class TransformedTarget(RoutedWeights, WeightedFit, Composite):
    """A regressor learning a transformed target, its predictions mapped back.

    The seed's example, as scikit-learn's ``TransformedTargetRegressor``:
    ``transformer`` (a ``StandardScaler``, say) is fit on ``y``;
    ``regressor`` on ``(X, transformer.transform(y))``; predictions are
    ``transformer.inverse_transform(regressor.predict(X))``.
    ``fit(X, y, sample_weight=w)`` trains the regressor with the weights
    (the transformer without), as scikit-learn's does (with its metadata
    routing on: when the regressor requests them).

    Parameters
    ----------
    regressor : regressor, optional
        Learns the transformed target; ``None`` (the default): a
        ``LinearRegression()``, as scikit-learn's.
    transformer : transformer, optional
        Learns the target (a 1-D ``y`` as one column). Not together with
        ``func`` and ``inverse_func``.
    func, inverse_func : callable, optional
        Without a ``transformer``: the target goes through
        ``FunctionTransformer(func, inverse_func, validate=True)``; both or
        neither (neither: the identity).
    check_inverse : bool, default=True
        After the transformer trains, check on every tenth row of ``y`` that
        ``inverse_transform`` gives it back, and warn (``UserWarning``) if
        not. ``report_()["inverse_holds"]`` says what the check found.
    cache, executor, n_jobs : optional
        As for ``ww.Pipeline``.

    A 2-D ``y`` is learned as several targets when the regressor learns
    several (its ``multi_output`` tag); a 1-D ``y`` gives 1-D predictions.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = np.arange(6.0).reshape(3, 2), np.array([1.0, 2.0, 3.0])
    >>> ww.TransformedTarget(LinearRegression(), StandardScaler()).fit(X, y).predict(X).round(6)
    array([1., 2., 3.])
    >>> growth = ww.TransformedTarget(LinearRegression(), func=np.log, inverse_func=np.exp)
    >>> growth.fit(X, np.exp(y)).predict(X).round(4)
    array([ 2.7183,  7.3891, 20.0855])
    """

    _bagged_by_counts = False  # a bagging's members train on their drawn rows, as TransformedTargetRegressor

    def __init__(
        self,
        regressor: Any = None,
        transformer: Any = None,
        *,
        func: Callable[..., Any] | None = None,
        inverse_func: Callable[..., Any] | None = None,
        check_inverse: bool = True,
        cache: Any = None,
        executor: Any = None,
        n_jobs: int | None = None,
    ) -> None:
        self.regressor = regressor
        self.transformer = transformer
        self.func = func
        self.inverse_func = inverse_func
        self.check_inverse = check_inverse
        self.cache = cache
        self.executor = executor
        self.n_jobs = n_jobs

    def _kind(self) -> str | None:
        return "regressor"

    def _multi_output(self) -> bool:
        """Several targets when the regressor learns them, as scikit-learn's tags say."""
        return learns_several_targets(self._regressor())

    @property
    def regressor_(self) -> Any:
        """The regressor, trained on the transformed target."""
        return self._trained(["regressor"])["regressor"]

    @property
    def transformer_(self) -> Any:
        """The transformer, trained on the target (a ``FunctionTransformer`` of ``func`` without one)."""
        return self._trained(["target_transformer"])["target_transformer"]

    def _components(self) -> list[Any]:
        return [self._regressor()]

    def _component_tags(self, tags: Any) -> None:
        """The regressor's: sparse and NaN input, randomness, and ``pairwise`` (it sees ``X`` as given, so
        cross-validation splits a precomputed kernel's columns too, which scikit-learn's
        ``TransformedTargetRegressor`` does not say)."""
        super()._component_tags(tags)
        try:
            tags.input_tags.pairwise = get_tags(self._regressor()).input_tags.pairwise
        except (AttributeError, TypeError, ValueError):  # fit says what is wrong with it
            pass

    def _weight_routes(self) -> list[tuple[str, Any, str]]:
        return [("regressor", self._regressor(), "fit")]

    def _raw_input(self) -> bool:
        """Whether ``X`` goes to the regressor unchecked: when it takes no 2-D array (one column as a vector for an
        ``IsotonicRegression``), as scikit-learn's ``TransformedTargetRegressor`` hands ``X`` to it."""
        return _takes_no_columns(self._regressor())

    def _check_fit_data(self, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, Any, Any]:
        """The composite's check, after scikit-learn's ``TransformedTargetRegressor``'s check of ``y``: numbers (not
        strings, which a transformer would otherwise read as numbers), finite, at most 2-D unless several."""
        if y is not None:
            try:
                check_array(y, input_name="y", ensure_2d=False, dtype="numeric", allow_nd=True)
            except (ValueError, TypeError) as error:
                raise _unusable(self, "fit", error) from error
        return super()._check_fit_data(X, y, sample_weight)

    def _regressor(self) -> Any:
        """``regressor``, or scikit-learn's default, a ``LinearRegression``, when it is ``None``."""
        return LinearRegression() if self.regressor is None else self.regressor

    def _operation_routes(self) -> list[tuple[str, Any, dict[str, str]]]:
        """The regressor takes the parameters of ``predict``, as in scikit-learn's ``TransformedTargetRegressor``."""
        return [("regressor", self.regressor, {"predict": "predict"})]

    def _target_transformer(self) -> Any:
        """``transformer``, or the ``FunctionTransformer`` of ``func`` and ``inverse_func`` (checked)."""
        functions = {"func": self.func, "inverse_func": self.inverse_func}
        if self.transformer is not None:
            if any(f is not None for f in functions.values()):
                raise ParameterError(
                    "TransformedTarget: 'transformer' and functions 'func'/'inverse_func' cannot both be set. "
                    "Keep the transformer, or set transformer=None."
                )
            return self.transformer
        given = [name for name, f in functions.items() if f is not None]
        if len(given) == 1:
            lacking = "inverse_func" if given[0] == "func" else "func"
            raise ParameterError(
                f"TransformedTarget: when '{given[0]}' is provided, '{lacking}' must also be provided. "
                f"If {lacking} is supposed to be the identity, pass the identity function."
            )
        for name, f in functions.items():
            if f is not None and not callable(f):
                raise ParameterError(f"TransformedTarget: expected {name} to be callable. Received: {describe(f)}.")
        # The target is not a feature: the output stays an array, whatever the global transform_output says.
        return FunctionTransformer(
            func=self.func, inverse_func=self.inverse_func, validate=True, check_inverse=self.check_inverse
        ).set_output(transform="default")

    def network(self, X: Source, y: Source | None = None, sample_weight: Source | None = None) -> Signature:
        if y is None:
            raise GraphError("TransformedTarget needs a target: call fit(X, y).")
        if not isinstance(self.check_inverse, (bool, np.bool_)):
            raise ParameterError(
                f"TransformedTarget: expected check_inverse to be a bool. Received: {describe(self.check_inverse)}."
            )
        target, regressor = self._target_transformer(), self._regressor()
        if sample_weight is not None and self._routed_weights() is None:  # routed: the regressor requested them
            check_weighted("TransformedTarget", "regressor", regressor)
        outputs, _, scale = _final_outputs(regressor, X, y, "regressor", target, sample_weight)
        report = {}
        if self.check_inverse:
            checked = node(_ops.every_tenth, scale.args[0])  # the target as the transformer trains on it
            report["inverse_holds"] = node(_ops.inverse_holds, checked, scale.inverse_transform(scale.transform(checked)))
        return Signature(**outputs, report=report)
