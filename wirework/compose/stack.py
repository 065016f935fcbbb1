"""``ww.Stack``: stacking with out-of-fold predictions, one or several levels."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.preprocessing import LabelEncoder, OrdinalEncoder
from sklearn.utils import Bunch, get_tags
from sklearn.utils.validation import check_is_fitted

from wirework.errors import ArgumentError, DataError, GraphError, NotTrainedError, WireworkError
from wirework.graph.data import whole
from wirework.graph.machines import machine
from wirework.graph.nodes import Node, Source, node
from wirework.compose import _multilabel, _ops
from wirework.compose._checks import learns_several_targets
from wirework.compose._kinds import _kind_of
from wirework.compose._named import NamedEstimators, TrainedEstimators, _VisualBlock, unclaimed
from wirework.compose._routing import RoutedWeights
from wirework.compose.composite import Composite, WeightedFit, check_weighted
from wirework.compose.signature import Signature

__all__ = ["Stack"]

_METHODS = ("predict_proba", "decision_function", "predict")


class Stack(NamedEstimators, TrainedEstimators, RoutedWeights, WeightedFit, Composite):
    """Stacked generalization: base learners' out-of-fold predictions feed a final estimator.

    For each base learner, one machine per cross-validation split is trained
    on the split's training rows and predicts its test rows; these
    out-of-fold predictions, in the original row order, train
    ``final_estimator``. The base learners used at prediction time are
    trained on all rows. This is scikit-learn's ``StackingRegressor`` /
    ``StackingClassifier`` (``stack_method="auto"``), written as a network.

    Parameters
    ----------
    estimators : list of (str, estimator)
        The base learners. A learner given as ``"drop"`` (also by
        ``set_params(<name>="drop")``) is skipped, as in scikit-learn's
        stacking; all of them dropped is a ``GraphError``.
    final_estimator : estimator
        Learns from the base learners' predictions. Its kind (regressor or
        classifier) is the stack's.
    cv : int, splitter, iterable of (train, test) splits or "prefit", default=5
        Cross-validation splits for the out-of-fold predictions (an int
        means ``KFold`` for regression, ``StratifiedKFold`` for
        classification, as in scikit-learn). The test sets must partition
        the rows. An iterator (a generator, say) is listed once and its
        splits kept for later fits. ``"prefit"``, as in scikit-learn's
        stacking: the base learners are fitted already and are used as they
        are (each in a ``FrozenEstimator``, so they are neither copied nor
        trained), and their predictions on the training rows, not
        out-of-fold ones, train the final estimator; one level only.
    passthrough : bool, default=False
        Give the final estimator the raw features too, after the predictions.
    levels : int, default=1
        Number of stacking levels. Level ``k > 1`` trains the same base
        learners on the raw features joined with level ``k - 1``'s
        predictions (out-of-fold at training time, full-data at prediction
        time), as AutoGluon's multi-layer stacking does.
    random_state : int, RandomState or None
        Seeds a shuffling ``cv`` splitter that has no seed of its own, so all
        learners and levels share one set of folds.
    stack_method : {"auto", "predict_proba", "decision_function", "predict"}, default="auto"
        What the base learners of a classifier stack give the final
        estimator, as scikit-learn's ``StackingClassifier``: ``"auto"`` takes
        ``predict_proba``, else ``decision_function``, else ``predict``, per
        learner; any other value is asked of every learner. A regressor stack
        always takes ``predict`` (``"auto"`` or ``"predict"``).
    cache : FitCache, optional
        Share fits between clones (defaults to ``ww.set_config(cache=...)``).
    executor, n_jobs : optional
        Where the machines train: ``"sequential"`` (default), ``"threads"``,
        ``"processes"`` or a ``ww.DaskExecutor``, with ``n_jobs`` workers.

    Notes
    -----
    For classifiers, the base learners give ``predict_proba`` where they have
    it (else ``decision_function``, else ``predict``); for binary problems
    the first probability column is dropped. Labels are encoded to
    ``0..k-1`` for the learners and decoded in ``predict``.

    A classifier stack whose final estimator learns a multilabel ``y`` (a 2-D
    0/1 indicator) takes one, as scikit-learn's ``StackingClassifier``: each
    label encoded on its own, ``KFold`` splits, each learner's per-label
    probabilities without their first column, and ``predict_proba`` giving
    each label's first column of the final estimator's, as scikit-learn's
    (see :mod:`wirework.compose._multilabel`).

    ``fit(X, y, sample_weight=w)`` trains every base learner (each fold on
    its training rows' weights) and the final estimator with the weights,
    as scikit-learn's stacking does; the folds do not depend on them. With
    scikit-learn's metadata routing on, only the learners that request the
    weights (``set_fit_request``) get them, and the final estimator gets
    those given as ``sample_weight=`` whatever its own request, as
    scikit-learn's stacking hands it every fit parameter.

    ``predict(X, **params)`` hands ``params`` to the final estimator's
    ``predict`` (``return_std=True``…), as scikit-learn's stacking does;
    ``predict_proba`` takes ``X`` only, as scikit-learn's. With metadata
    routing on, the final estimator gets only what it requests
    (``set_predict_request``), and ``get_metadata_routing()`` declares it as
    scikit-learn's stacking does, reached from ``predict`` only, so a
    ``Pipeline`` ending in the stack routes the parameters to it.

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> stack = ww.Stack([("ridge", Ridge()), ("tree", DecisionTreeRegressor(max_depth=3))], Ridge(), cv=3)
    >>> len(stack.fit(X, y).machines_)  # 2 learners x (3 folds + 1 on all rows) + the final estimator
    9
    """

    _named = "estimators"
    #: scikit-learn's stacking hands keyword parameters to its final estimator's ``predict`` only.
    _param_operations = ("predict",)

    _bagged_by_counts = False  # a bagging's members train on their drawn rows, as scikit-learn's stacking

    def __init__(
        self,
        estimators: list[tuple[str, Any]],
        final_estimator: Any,
        *,
        cv: Any = 5,
        passthrough: bool = False,
        levels: int = 1,
        random_state: Any = None,
        stack_method: str = "auto",
        cache: Any = None,
        executor: Any = None,
        n_jobs: int | None = None,
    ) -> None:
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.cv = cv
        self.passthrough = passthrough
        self.levels = levels
        self.random_state = random_state
        self.stack_method = stack_method
        self.cache = cache
        self.executor = executor
        self.n_jobs = n_jobs

    def _sk_visual_block_(self) -> _VisualBlock:
        """The base learners side by side, then the final estimator, as scikit-learn draws its stacking."""
        names, estimators = zip(*self._pairs())
        learners = _VisualBlock("parallel", estimators, names=names, dash_wrapped=False)
        final = _VisualBlock("parallel", [self.final_estimator], names=["final_estimator"], dash_wrapped=False)
        return _VisualBlock("serial", (learners, final), dash_wrapped=False)

    def _kind(self) -> str | None:
        return _kind_of(self.final_estimator)

    def _takes_multilabel(self, y: Any) -> bool:
        """A multilabel ``y`` (a 2-D 0/1 indicator), when a classifier's final estimator learns one, as scikit-learn's
        ``StackingClassifier`` takes it. The tags stay scikit-learn's (no ``multi_output``, no ``multi_label``):
        its ``predict_proba`` gives each label's first class, which scikit-learn's multilabel checks refuse."""
        return self._kind() == "classifier" and _learns_labels(self.final_estimator) and _multilabel.is_multilabel(y)

    def _check_fit_data(self, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, Any, Any]:
        """The composite's check (a 2-D ``y`` refused, with advice, unless :meth:`_takes_multilabel`); records
        whether the target is multilabel, which shapes the network (see :meth:`_quick`)."""
        try:
            X, y, sample_weight = super()._check_fit_data(X, y, sample_weight)
        except DataError as error:
            if self._kind() != "classifier" or np.ndim(y) != 2:
                raise
            raise DataError(
                f"{error} A stack classifier takes a 2-D y as a multilabel indicator (0/1 per label, as scikit-learn's "
                "StackingClassifier), with a final estimator that learns one (KNeighborsClassifier, "
                "RandomForestClassifier, MLPClassifier, RidgeClassifier)."
            ) from error.__cause__
        self._targets = "multilabel" if self._takes_multilabel(y) else "one"
        return X, y, sample_weight

    def _quick(self, supervised: bool, weighted: bool | tuple[str, ...] = False) -> tuple | None:
        """The composite's key, and whether the last fit's target was multilabel: that shapes the network too."""
        quick = super()._quick(supervised, weighted)
        return None if quick is None else (*quick, self.__dict__.get("_targets"))

    def _structure(self, objects: list[Any], supervised: bool, quick: tuple | None = None,
                   weighted: bool | tuple[str, ...] = False) -> str:
        """The composite's token, marked for a multilabel target (another network: see :meth:`network`)."""
        token = super()._structure(objects, supervised, quick=quick, weighted=weighted)
        return f"{token}:multilabel" if self._multilabel() else token

    def _multilabel(self) -> bool:
        """Whether the network is built for a multilabel target: the last checked ``y`` was one."""
        return self.__dict__.get("_targets") == "multilabel" and self._kind() == "classifier"

    def _methods(self, estimators: list[tuple[str, Any]], classifier: bool) -> list[str]:
        """The operation each base learner gives the final estimator (see ``stack_method``)."""
        owner = type(self).__name__
        allowed = ("auto", *_METHODS) if classifier else ("auto", "predict")
        if not isinstance(self.stack_method, str) or self.stack_method not in allowed:
            raise GraphError(
                f"{owner}: stack_method must be one of {list(allowed)} for a {self._kind() or 'stack'} of this "
                f"final estimator. Received: {self.stack_method!r}."
            )
        methods = []
        for name, estimator in estimators:
            wanted = (_METHODS if classifier else ("predict",)) if self.stack_method == "auto" else (self.stack_method,)
            method = next((m for m in wanted if hasattr(estimator, m)), None)
            if method is None:
                raise GraphError(
                    f"{owner}: base learner {name!r} ({type(estimator).__name__}) has no "
                    f"{' / '.join(wanted)}(), so it cannot feed the final estimator."
                )
            methods.append(method)
        return methods

    def _listed_cv(self) -> Any:
        """``cv``, an iterator of ``(train, test)`` splits (a generator, say) listed the first time it is asked for.

        scikit-learn's ``check_cv`` lists such an iterable; here the list is
        kept (for this very iterator), so a refit, or a network built again,
        gets the same splits rather than an exhausted iterator.
        """
        cv = self.cv
        if not hasattr(cv, "__next__") or hasattr(cv, "split"):
            return cv
        listed = self.__dict__.get("_cv_splits")
        if listed is None or listed[0] is not cv:
            listed = self._cv_splits = (cv, list(cv))
        return listed[1]

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the columns ``transform`` gives, as scikit-learn's stacking names them.

        ``<class>_<learner>`` for a base learner's one column (``stack_ridge``),
        ``<class>_<learner><k>`` for its ``k``-th class column (more than two
        classes); with ``levels > 1`` the last level's learners,
        ``<class>_<learner>_level<L>`` (their class columns ``..._<k>``).
        Then, with ``passthrough``, the input's names (``input_features``,
        checked as ``Composite.get_feature_names_out`` checks them). A
        DataFrame of meta features (pandas input with ``passthrough``, or
        between levels) has these column names too.
        """
        self._ready()
        inputs = self._input_names(input_features)
        estimators = self._live_pairs()
        classifier = self._kind() == "classifier"
        n_classes = len(self.classes_) if classifier else 1
        labels = self._labels(estimators, self._suffix(self.levels))
        methods = self._methods(estimators, classifier)
        widths = [_columns(method, n_classes) for method in methods]
        if self._multilabel():  # per label, as each learner gives them (see _multilabel.columns)
            trained = self.named_estimators_
            models = [_thawed(trained[f"{name}{self._suffix(self.levels)}"]) for name, _ in estimators]
            widths = _multilabel.widths(models, methods, n_classes)
        return np.asarray([*_ops.column_names(labels, widths), *(inputs if self.passthrough else [])], dtype=object)

    def _suffix(self, level: int) -> str:
        """What the names of level ``level``'s machines and columns end with: nothing when there is one level."""
        return "" if self.levels == 1 else f"_level{level}"

    def _labels(self, estimators: list[tuple[str, Any]], suffix: str) -> tuple[str, ...]:
        """The name of each base learner's columns among the meta features: ``<class>_<learner><suffix>``."""
        prefix = type(self).__name__.lower()
        return tuple(f"{prefix}_{name}{suffix}" for name, _ in estimators)

    def _learner_machines(self, estimators: list[tuple[str, Any]]) -> list[str]:
        """The names of the base learners' machines trained on all rows, level by level (``<name><suffix>``)."""
        levels = range(1, self.levels + 1) if whole(self.levels) and self.levels > 1 else [1]
        return [f"{name}{self._suffix(level)}" for level in levels for name, _ in estimators]

    def _own_machine(self, wanted: str, estimators: list[tuple[str, Any]]) -> str:
        """The name of the stack's own machine ``wanted`` (``"final"``, ``"labels"``): ``wanted``, or
        ``wanted_``… when a base learner's machine takes it (a learner named ``"final"``; see
        :func:`unclaimed`). A fold's machine never does: its name ends with ``_fold<k>`` (and ``_``…)."""
        return unclaimed(wanted, self._learner_machines(estimators))

    def _aliases(self, names: list[str | None]) -> dict[str, Any]:
        """The level-1 learners' machines, and the stack's own, matched by what they compute whatever ``levels``
        names them: a learner ``lr`` (and ``lr_fold<k>``) is ``lr_level1`` (``lr_level1_fold<k>``) beside a
        second level, and ``labels`` or ``final`` give way to a learner's machine of that name at one level only.
        Level 1 trains on the same rows of ``X`` either way, so changing ``levels`` keeps its training."""
        estimators = self._live_pairs()
        taken = self._learner_machines(estimators)
        built = set(names)
        suffix = self._suffix(1)
        aliases: dict[str, Any] = {unclaimed(own, taken): ("stack", own) for own in ("labels", "final")}
        for name, _ in estimators:
            aliases[f"{name}{suffix}"] = ("level 1", name)
            k = 1
            while (fold := _fold_name(name, suffix, k, taken)) in built:
                aliases[fold] = ("level 1", name, k)
                k += 1
        return aliases

    @property
    def final_estimator_(self) -> Any:
        """The final estimator, trained on the base learners' out-of-fold predictions."""
        self._ready()
        name = self._own_machine("final", self._live_pairs())
        return self._trained([name])[name]

    @property
    def named_estimators_(self) -> Bunch:
        """The base learners trained on all rows (those that predict), by name (``<name>_level<k>``
        when ``levels > 1``), level by level, each level in the order of ``estimators``; ``"drop"`` for a
        learner dropped, as scikit-learn's."""
        levels = range(1, self.levels + 1) if whole(self.levels) and self.levels > 1 else [1]
        trained = self._named_trained(tuple(self._suffix(level) for level in levels))
        if _prefit(self.cv):  # the learners themselves, as scikit-learn's, not the FrozenEstimator around each
            return Bunch(**{name: _thawed(model) for name, model in trained.items()})
        return trained

    def _operation_routes(self) -> list[tuple[str, Any, dict[str, str]]]:
        """The final estimator takes the parameters of ``predict``, as in scikit-learn's stacking, whose router
        names it ``final_estimator_`` (``_`` added when a learner has that name): the trained one once fitted, as
        ``predict`` gives them to it (see :mod:`wirework.compose._params`), else ``final_estimator``."""
        try:
            final = self.final_estimator_
        except WireworkError:  # not fitted, or fitted for other parameters: the one the next fit trains
            final = self.final_estimator
        return [(unclaimed("final_estimator_", [name for name, _ in self._live_pairs()]), final, {"predict": "predict"})]

    def _weight_routes(self) -> list[tuple[str, Any, str]]:
        """The learners, each reached from ``fit`` by its own ``fit``; not the final estimator, which scikit-learn's
        stacking does not route (see :meth:`_fit_weights`)."""
        return [(name, e, "fit") for name, e in self._live_pairs()]

    def _fit_weights(
        self, sample_weight: Any, fit_params: dict[str, Any], caller: str = "fit"
    ) -> tuple[Any, tuple[str, ...] | None]:
        """The weights, and under scikit-learn's metadata routing who gets them: the learners that request them,
        and the final estimator whenever they were given as ``sample_weight=``, whatever its own request.

        That is scikit-learn's stacking (1.9): its ``fit`` routes the learners'
        metadata and hands the final estimator every fit parameter it was
        given, so a final estimator that declines the weights, or never said,
        trains on them all the same. Routing off: every component, as the
        network decides.

        Raises
        ------
        ArgumentError
            Weights given under an alias (``w=``) that learners requested:
            the final estimator would get them as that keyword, which no
            scikit-learn model's ``fit`` takes, and scikit-learn's stacking
            refuses such a fit (a ``TypeError``). ``groups=``, routing on or
            off: the ``cv`` splitter gets none (nor does scikit-learn's); the
            message says to give ``cv`` the splits.
        """
        if "groups" in fit_params:  # a GroupKFold's, say: scikit-learn's stacking refuses them too (a TypeError)
            raise ArgumentError(
                f"{type(self).__name__}.fit takes X, y and sample_weight. Received also: {sorted(fit_params)}. Its "
                "components get sample_weight only, and its cv splitter no groups, as scikit-learn's stacking gives "
                "its splitter none. For a splitter that needs them (GroupKFold), give cv the splits themselves: "
                "cv=list(GroupKFold(5).split(X, y, groups))."
            )
        weights, routes = super()._fit_weights(sample_weight, fit_params, caller)
        if routes is not None and fit_params:  # weights under an alias
            given = ", ".join(f"{key}=..." for key in sorted(fit_params))
            raise ArgumentError(
                f"{type(self).__name__}.fit got {given} (an alias its learners request for sample_weight). A stack "
                "hands its final estimator every fit parameter as given, as scikit-learn's stacking does "
                f"(final_estimator.fit(X_meta, y, {given})), so scikit-learn's StackingRegressor and StackingClassifier refuse this fit with a TypeError. Request "
                "the weights as set_fit_request(sample_weight=True) and pass sample_weight=: the learners that "
                "request them, and the final estimator, then train on them."
            )
        if routes is not None and sample_weight is not None:
            routes = (*routes, "final_estimator")
        return weights, routes

    def network(self, X: Source, y: Source | None = None, sample_weight: Source | None = None) -> Signature:
        owner = type(self).__name__
        estimators = self._live_pairs()
        if y is None:
            raise GraphError(f"{owner} needs a target: call fit(X, y).")
        routed = self._routed_weights()
        prefit = _prefit(self.cv)
        if sample_weight is not None and routed is None:
            for name, estimator in [*([] if prefit else estimators), ("final_estimator", self.final_estimator)]:
                check_weighted(owner, name if name == "final_estimator" else f"base learner {name!r}", estimator)
        elif sample_weight is not None and "final_estimator" in routed:  # given, whatever its request: it must take them
            check_weighted(owner, "final_estimator", self.final_estimator)
        if not whole(self.levels) or self.levels < 1:
            raise GraphError(f"{owner}: levels must be an int >= 1. Received: {self.levels!r}.")
        classifier = self._kind() == "classifier"
        methods = self._methods(estimators, classifier)
        if not hasattr(self.final_estimator, "predict"):
            default = (
                " A stack has no default final estimator (scikit-learn's stacking takes None for RidgeCV() or "
                "LogisticRegression()): give one."
                if self.final_estimator is None
                else ""
            )
            raise GraphError(
                f"{owner}: final_estimator ({type(self.final_estimator).__name__}) has no predict(); "
                f"give a regressor or a classifier.{default}"
            )
        if prefit:
            _check_prefit(owner, estimators, self.levels)
        multilabel = self._multilabel()  # one encoder per label, as scikit-learn's stacking encodes each column
        encoder = OrdinalEncoder(dtype=np.int64) if multilabel else LabelEncoder()
        labels = machine(encoder, y, name=self._own_machine("labels", estimators)) if classifier else None
        learner_machines = self._learner_machines(estimators)
        target: Node = labels.transform(y) if labels is not None else y
        if not prefit:
            cv = _ops.seeded_cv(self._listed_cv(), classifier, self.random_state)
            splits = node(_ops.cv_splits, X, target, cv, classifier)
            n_splits = _n_splits(cv)
        probabilities = tuple(m == "predict_proba" and not multilabel for m in methods)  # multilabel: columns()

        def weights(name: str) -> tuple[Source, ...]:
            """The weights learner ``name`` trains with (routed: when it requested them)."""
            return () if sample_weight is None or routed is not None and name not in routed else (sample_weight,)

        train_features: Node = X
        predict_features: Node = X
        for level in range(1, self.levels + 1):
            suffix = self._suffix(level)
            out_of_fold, full = [], []
            for (name, estimator), method in zip(estimators, methods):
                if prefit:  # used as trained: its predictions on the training rows, as scikit-learn's "prefit"
                    frozen = machine(FrozenEstimator(estimator), X, target, name=name)
                    out_of_fold.append(_learner_columns(getattr(frozen, method)(X), method, multilabel))
                    full.append(out_of_fold[-1])
                    continue
                fold_predictions = []
                for i in range(n_splits):
                    rows = (train_features, target, *weights(name))
                    fold = machine(
                        estimator,
                        *(node(_ops.take, data, splits, i, 0) for data in rows),
                        name=_fold_name(name, suffix, i + 1, learner_machines),
                    )
                    fold_predictions.append(getattr(fold, method)(node(_ops.take, train_features, splits, i, 1)))
                per_class = {"target": target, "method": method} if classifier and method != "predict" else {}
                gather = _multilabel.gather if multilabel else _ops.gather
                gathered = node(gather, splits, *fold_predictions, **per_class)
                out_of_fold.append(_learner_columns(gathered, method, multilabel))
                everything = machine(estimator, train_features, target, *weights(name), name=f"{name}{suffix}")
                full.append(_learner_columns(getattr(everything, method)(predict_features), method, multilabel))
            joined = {"probabilities": probabilities, "labels": self._labels(estimators, suffix)}
            if level < self.levels:  # the next level learns from the raw features too
                joined["passthrough"] = X
                train_features = node(_ops.meta_features, *out_of_fold, **joined)
                predict_features = node(_ops.meta_features, *full, **joined)
            else:
                if self.passthrough:
                    joined["passthrough"] = X
                train_meta = node(_ops.meta_features, *out_of_fold, **joined)
                predict_meta = node(_ops.meta_features, *full, **joined)

        final_name = self._own_machine("final", estimators)
        final = machine(self.final_estimator, train_meta, target, *weights("final_estimator"), name=final_name)
        outputs: dict[str, Node] = {"predict": final.predict(predict_meta), "transform": predict_meta}
        if labels is not None:
            outputs["predict"] = labels.inverse_transform(outputs["predict"])
            for operation in ("predict_proba", "decision_function"):
                if hasattr(self.final_estimator, operation):
                    outputs[operation] = getattr(final, operation)(predict_meta)
            if multilabel and "predict_proba" in outputs:  # each label's first column, as scikit-learn's
                shown = {"owner": owner, "final": type(self.final_estimator).__name__}
                outputs["predict_proba"] = node(_multilabel.first_columns, outputs["predict_proba"], **shown)
        return Signature(**outputs)


def _learner_columns(output: Node, method: str, multilabel: bool) -> Node:
    """A base learner's ``method`` output as it joins the meta features: for a multilabel target, the columns
    scikit-learn's stacking makes of it (:func:`_multilabel.columns`); else as it is (``meta_features`` decides)."""
    return node(_multilabel.columns, output, probabilities=method == "predict_proba") if multilabel else output


def _learns_labels(estimator: Any) -> bool:
    """Whether ``estimator`` learns a multilabel ``y``: its ``multi_output`` tag (several targets) or its
    ``multi_label`` classifier tag (``MLPClassifier``, ``RidgeClassifier``); ``False`` when unreadable."""
    if learns_several_targets(estimator):
        return True
    try:
        return bool(get_tags(estimator).classifier_tags.multi_label)
    except Exception:
        return False


def _fold_name(name: str, suffix: str, k: int, taken: list[str]) -> str:
    """The name of learner ``name``'s machine trained on the ``k``-th split at the level of ``suffix``:
    ``<name><suffix>_fold<k>``, or after it ``_``… when a learner's machine takes it (a learner ``a_fold1``)."""
    return unclaimed(f"{name}{suffix}_fold{k}", taken)


def _prefit(cv: Any) -> bool:
    """Whether ``cv`` is ``"prefit"``: base learners fitted already, used as they are."""
    return isinstance(cv, str) and cv == "prefit"


def _thawed(model: Any) -> Any:
    """The model a ``"prefit"`` learner's machine holds, without the ``FrozenEstimator`` the stack put around it."""
    return model.estimator if isinstance(model, FrozenEstimator) else model


def _check_prefit(owner: str, estimators: list[tuple[str, Any]], levels: Any) -> None:
    """Refuse ``cv="prefit"`` with several levels, or with a base learner that is not fitted (scikit-learn's check)."""
    if levels != 1:
        raise GraphError(
            f"{owner}: cv='prefit' stacks one level: the base learners are fitted already, on the raw features, so "
            f"they cannot learn from a level below. Received: levels={levels!r}. Use levels=1, or a cv that trains "
            "the learners (an int, a splitter)."
        )
    for name, estimator in estimators:
        try:
            check_is_fitted(estimator)
        except NotFittedError as error:
            raise NotTrainedError(
                f"{owner}: cv='prefit' uses the base learners as they are, but {name!r} "
                f"({type(estimator).__name__}) is not fitted ({error}). Fit it first, or give cv an int or a "
                "splitter to have the stack train it."
            ) from error


def _columns(method: str, n_classes: int) -> int:
    """How many columns a base learner's ``method`` gives the final estimator (binary: one)."""
    return 1 if method == "predict" or n_classes <= 2 else n_classes


def _n_splits(cv: Any) -> int:
    if isinstance(cv, int):
        return cv
    try:
        return int(cv.get_n_splits())
    except Exception as exc:
        raise GraphError(
            f"Stack: cannot tell how many splits cv={cv!r} makes without data ({exc}). "
            "Give an int or a splitter such as KFold(5)."
        ) from exc
