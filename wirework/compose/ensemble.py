"""``ww.Bagging`` and ``ww.Average``: ensembles of machines, sharing a model or not."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn import get_config
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import Bunch
from sklearn.utils.metadata_routing import get_routing_for_object
from sklearn.utils.validation import column_or_1d

from wirework.errors import ArgumentError, GraphError, UnavailableError
from wirework.graph.data import describe, take_rows, whole
from wirework.graph.machines import Machine, machine
from wirework.graph.nodes import Node, Source, node
from wirework.compose import _ops
from wirework.compose._kinds import _kind_of
from wirework.compose._members import Seeded, Votes, log_mean_exp, random_states, sorted_rows, unwrapped
from wirework.compose._named import NamedEstimators, TrainedEstimators, dropped, unclaimed
from wirework.compose._routing import RoutedWeights
from wirework.compose.composite import Composite, WeightedFit, check_weighted, learns_several_targets, takes_weights
from wirework.compose.signature import Signature

__all__ = ["Bagging", "Average"]
__all__ += ["Seeded", "Votes", "random_states", "unwrapped"]  # moved to _members; networks pickled before name them here


def _averaged(members: list[Machine], inputs: list[Node], labels: Machine | None, weights: Any) -> dict[str, Node]:
    """Regression: mean of predictions. Classification: mean of probabilities, argmax decoded.

    ``inputs``: what each member predicts from.
    """
    if labels is None:
        return {"predict": node(_ops.weighted_mean, *[m.predict(x) for m, x in zip(members, inputs)], weights=weights)}
    proba = node(_ops.weighted_mean, *[m.predict_proba(x) for m, x in zip(members, inputs)], weights=weights)
    return {"predict": labels.inverse_transform(node(_ops.argmax, proba)), "predict_proba": proba}


def _weights(owner: str, weights: Any, count: int) -> tuple[float, ...] | None:
    """``weights`` as floats, checked: ``count`` finite, non-negative numbers with a positive sum (or ``None``)."""
    if weights is None:
        return None
    try:
        values = tuple(float(w) for w in weights)
    except (TypeError, ValueError):
        values = ()
    if len(values) != count or not all(np.isfinite(values)) or min(values) < 0 or sum(values) <= 0:
        raise GraphError(
            f"{owner}: weights must be {count} non-negative numbers with a positive sum. Received: {weights!r}."
        )
    return values


def _classifier_needs(owner: str, estimator: Any, name: str) -> None:
    if not hasattr(estimator, "predict_proba"):
        raise GraphError(
            f"{owner}: {name} ({type(estimator).__name__}) has no predict_proba(), which averaging classifiers needs."
        )


class Bagging(RoutedWeights, WeightedFit, Composite):
    """``n_estimators`` machines sharing one model, each on a bootstrap sample of the rows.

    Regression averages the members' predictions; classification averages
    their probabilities (every member sees every class: a class missing from
    the draw of a member trained on its drawn rows gets one of its rows
    added), or, for a model without
    ``predict_proba`` (``LinearSVC``), their votes, as scikit-learn's
    ``BaggingClassifier`` does: the probability of a class is then the share
    of members that predict it (see :class:`Votes`). A classifier also has
    ``predict_log_proba`` (the log of those probabilities; for a model with
    its own ``predict_log_proba``, the members' log probabilities added in
    log space, finite where the probabilities underflow) and, when the
    model has it, ``decision_function`` (the members' mean), as
    scikit-learn's.

    Each member trains as scikit-learn's bagging trains it: when the
    model's ``fit`` takes ``sample_weight`` (with metadata routing on: when
    it requests them), on all the rows, each weighted by how many times the
    member's draw took it (0 for the others), with its columns; otherwise on
    its drawn rows. ``fit(X, y, sample_weight=w)`` draws each row with a
    probability proportional to its weight, as scikit-learn's does (any
    model: the members never get the weights themselves).

    Parameters
    ----------
    estimator : estimator
        The model all members share (changing it retrains them all). Each
        member sets every ``random_state`` parameter of its copy, nested ones
        included, to a seed of its own drawn from ``random_state``, as
        scikit-learn's bagging does (see :class:`Seeded`).
    n_estimators : int, default=10
    max_samples : float, int or None, default=None
        Rows drawn per member: all of them (``None``), a fraction of the rows
        (with weights: of the weights' sum; rounded down, at least one, with
        scikit-learn's warning when that is few), or a count, more than the
        rows only with ``bootstrap=True``, as scikit-learn's bagging counts
        them.
    max_features : float or int, default=1.0
        Columns each member sees (drawn without replacement, in the order
        drawn; the same columns when it predicts): a fraction (rounded down,
        at least one), or a count. As scikit-learn's bagging, the member of
        seed ``s`` (drawn from ``random_state``) draws its columns, then its
        rows, from ``RandomState(s)``: with the same ``random_state`` its
        members are scikit-learn's. Below
        all of them, ``estimators_features_`` lists each member's.
    bootstrap : bool, default=True
        Draw the rows with replacement; ``False`` draws them without
        (pasting). ``estimators_samples_`` lists each member's rows.
    bootstrap_features : bool, default=False
        Draw the columns with replacement (a column may come twice, even
        with ``max_features=1.0``), as scikit-learn's bagging does.
    oob_score : bool, default=False
        After ``fit``, score each row with the members that did not draw it,
        as scikit-learn does: ``oob_score_`` (R², or accuracy), and
        ``oob_prediction_`` (regressors) or ``oob_decision_function_``
        (classifiers); also in ``report_()``. Needs ``bootstrap=True``.
    random_state : int, RandomState or None
        Seeds the draws.
    cache : FitCache, optional
    executor, n_jobs : optional
        Where the machines train (see ``ww.Stack``).

    Notes
    -----
    There is no ``warm_start``: the seeds of ``n`` members begin those of
    more, so after ``set_params(n_estimators=...)`` a refit on the same data
    trains only the members added (and none when members are removed),
    giving what scikit-learn's bagging gives with ``warm_start=True``. New
    data retrains every member (the retraining rules' condition 4), where
    scikit-learn's warm start would keep the members trained on the old data.

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> bag = ww.Bagging(DecisionTreeRegressor(max_depth=3), n_estimators=4, random_state=0).fit(X, y)
    >>> len(bag.machines_)
    4
    """

    def __init__(
        self,
        estimator: Any,
        n_estimators: int = 10,
        *,
        max_samples: float | int | None = None,
        max_features: float | int = 1.0,
        bootstrap: bool = True,
        bootstrap_features: bool = False,
        oob_score: bool = False,
        random_state: Any = None,
        cache: Any = None,
        executor: Any = None,
        n_jobs: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.bootstrap_features = bootstrap_features
        self.oob_score = oob_score
        self.random_state = random_state
        self.cache = cache
        self.executor = executor
        self.n_jobs = n_jobs

    def _kind(self) -> str | None:
        return _kind_of(self.estimator)

    def _multi_output(self) -> bool:
        """A regressor's several targets, when the estimator learns them (scikit-learn's bagging regressor takes
        them too; its classifier does not)."""
        return self._kind() == "regressor" and learns_several_targets(self.estimator)

    def _check_fit_data(self, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, Any, Any]:
        """The composite's check, then a column ``y`` ``(n, 1)`` as one target with scikit-learn's
        ``DataConversionWarning``, as its bagging estimators take it (their members predict 1-D values)."""
        X, y, sample_weight = super()._check_fit_data(X, y, sample_weight)
        if getattr(y, "ndim", 1) == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        return X, y, sample_weight

    @property
    def estimators_(self) -> list[Any]:
        """The members' trained models (without the wrappers that gave each its seeds or votes: :func:`unwrapped`)."""
        self._ready()
        trained = self._trained([m.name for m in self.machines_ if m.name.startswith("member")]).values()
        return [unwrapped(model) for model in trained]

    @property
    def estimators_features_(self) -> list[np.ndarray]:
        """The column positions each member saw, in order (all columns when ``max_features`` kept them all)."""
        self._ready()
        features = self.__dict__.get("report_values_", {}).get("features")
        if features is None:
            return [np.arange(self.n_features_in_) for m in self.machines_ if m.name.startswith("member")]
        return list(features)

    @property
    def estimators_samples_(self) -> list[np.ndarray]:
        """The rows each member drew, in the order drawn (with repeats when ``bootstrap``), as scikit-learn's
        bagging gives them: drawn again from the seeds (and weights) at each call, as scikit-learn draws them
        again, so the composite keeps no copy. A classifier member trained on its drawn rows whose draw lacked a
        class: followed by the row added for it."""
        self._ready()
        record = self.__dict__.get("report_values_", {}).get("draws")
        if record is None:  # a network built before the draws were reported (2026-11-30)
            raise UnavailableError(
                f"This {type(self).__name__} was fitted by a version of wirework from before 2026-11-30, which kept "
                "no record of its draws, so it has no estimators_samples_. They cannot be drawn again from what it "
                "holds: each member's seed is kept, but a draw also needs the number of training rows (for a "
                "classifier, their labels too), and training data is not pickled; some of those versions also drew "
                "by other rules (fractions rounded to the nearest, pasting by permutation). Its predictions "
                "are unaffected. Fit it again on its training data, fit(X, y): that fit keeps the draws, and "
                "estimators_samples_ gives them."
            )
        return _ops.sample_sets(record)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickle; a bagging pickled before ``bootstrap_features`` existed (2026-11-30) drew its columns
        without replacement: it gets ``bootstrap_features=False``, so it can be fitted again (``get_params`` and
        building its network read every parameter)."""
        state.setdefault("bootstrap_features", False)
        built = state.get("_built")
        if built is not None and sorted_rows(built.machines):
            built.sorted_rows = True  # see _network_for
        super().__setstate__(state)

    def _network_for(self, supervised: bool, weighted: bool | tuple[str, ...] = False) -> Any:
        """The composite's, but a network pickled before 2026-12 whose members trained on their drawn rows sorted
        (:func:`~wirework.compose._members.sorted_rows`) is built again: its members train on their rows in the
        order drawn, as scikit-learn's (and a fresh ``Bagging``'s) do; what they do not touch keeps its training.
        Until then it predicts as it was trained."""
        built = self.__dict__.get("_built")
        if built is not None and built.__dict__.get("sorted_rows"):
            self._built = self._build(supervised, weighted, built)
            return self._built.holds(self._quick(supervised, weighted), self._kind())
        return super()._network_for(supervised, weighted)

    @property
    def oob_score_(self) -> float:
        """The out-of-bag score (``oob_score=True``): R² for regressors, accuracy for classifiers."""
        return self._out_of_bag("oob_score_", "oob_score")

    @property
    def oob_prediction_(self) -> np.ndarray:
        """Each training row's mean prediction by the members that did not draw it (regressors)."""
        if self._kind() == "classifier":
            raise UnavailableError("A classifier Bagging has oob_decision_function_, not oob_prediction_.")
        return self._out_of_bag("oob_prediction_", "oob_prediction")

    @property
    def oob_decision_function_(self) -> np.ndarray:
        """Each training row's mean probabilities from the members that did not draw it (classifiers)."""
        if self._kind() != "classifier":
            raise UnavailableError("A regressor Bagging has oob_prediction_, not oob_decision_function_.")
        return self._out_of_bag("oob_decision_function_", "oob_prediction")

    def _out_of_bag(self, attribute: str, key: str) -> Any:
        values = self.__dict__.get("report_values_", {})
        if key not in values:
            raise UnavailableError(
                f"{type(self).__name__} has no {attribute}: fit it with oob_score=True (and bootstrap=True)."
            )
        return values[key]

    def _check_options(self, owner: str) -> None:
        """The parameters of the draws, checked before the network is built."""
        if not whole(self.n_estimators) or self.n_estimators < 1:
            raise GraphError(f"{owner}: n_estimators must be an int >= 1. Received: {self.n_estimators!r}.")
        for name in ("bootstrap", "bootstrap_features", "oob_score"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise GraphError(f"{owner}: {name} must be a bool. Received: {getattr(self, name)!r}.")
        for name in ("max_samples", "max_features"):
            share = getattr(self, name)
            fraction = isinstance(share, (float, np.floating)) and 0.0 < share <= 1.0
            if not fraction and not (whole(share) and share >= 1) and not (share is None and name == "max_samples"):
                every = " or None (every row)" if name == "max_samples" else ""
                raise GraphError(
                    f"{owner}: {name} must be a count (an int >= 1) or a fraction in (0, 1]{every}. Received: {share!r}."
                )
        if self.oob_score and not self.bootstrap:
            raise GraphError(f"{owner}: out-of-bag estimation needs bootstrap=True (every row is in some draw).")

    def _weight_routes(self) -> list[tuple[str, Any, str]]:
        return [("estimator", self.estimator, "fit")]

    def _fit_weights(
        self, sample_weight: Any, fit_params: dict[str, Any], caller: str = "fit"
    ) -> tuple[Any, tuple[str, ...] | None]:
        """The weights, which give the draws' probabilities, and routes only for weights under an alias.

        scikit-learn's bagging takes ``sample_weight`` as its own parameter,
        routing or not: each member draws its rows with probabilities
        proportional to the weights, and the members never get them. Under
        metadata routing, weights given under an alias that the estimator
        requests (``set_fit_request(sample_weight="w")``, ``fit(X, y,
        w=...)``) are routed to it instead: each member trains on its drawn
        rows with their weights, the draws unweighted, as scikit-learn's.

        Raises
        ------
        ArgumentError
            Both ``sample_weight`` and an alias (two weight vectors), or any
            other fit parameter.
        """
        if not fit_params or not get_config()["enable_metadata_routing"]:
            return Composite._fit_weights(self, sample_weight, fit_params, caller)
        if sample_weight is not None:
            raise ArgumentError(
                f"{type(self).__name__}.fit got sample_weight and also {sorted(fit_params)}: sample_weight gives the "
                "draws' probabilities, weights under an alias go to the members, and a bagging trains on one weight "
                "vector. Pass one of them."
            )
        return super()._fit_weights(None, fit_params, caller)

    def _counted(self) -> bool:
        """Whether each member trains on all the rows, weighted by how many times its draw took each, rather than
        on the rows drawn: as scikit-learn's bagging, when the estimator's ``fit`` takes ``sample_weight`` (with
        metadata routing on: when it requests them, ``set_fit_request(sample_weight=True)``). A ``ww.Pipeline``,
        ``ww.TransformedTarget``, ``ww.Stack`` or ``ww.Average`` trains on its drawn rows (their
        ``_bagged_by_counts``), as scikit-learn's peers, whose ``fit`` takes no ``sample_weight``: given the
        counts, a machine of theirs that takes no weights learned the out-of-bag rows too, or refused them."""
        estimator = self.estimator
        if not hasattr(estimator, "fit"):
            return False
        if get_config()["enable_metadata_routing"]:
            return bool(get_routing_for_object(estimator).consumes("fit", ("sample_weight",)))
        known = _COUNTED.get(type(estimator))
        if known is None:  # a recipe whose scikit-learn peer takes no weights: its drawn rows (_bagged_by_counts)
            counts = not isinstance(estimator, Composite) or estimator._bagged_by_counts
            known = _COUNTED[type(estimator)] = counts and takes_weights(estimator)
        return known

    def _quick(self, supervised: bool, weighted: bool | tuple[str, ...] = False) -> tuple | None:
        """The composite's quick key, with :meth:`_counted`: metadata routing, or a request changed, may change
        how the members train without changing a parameter."""
        key = super()._quick(supervised, weighted)
        return None if key is None else (*key, self._counted())

    def _structure(
        self, objects: list[Any], supervised: bool, quick: tuple | None = None, weighted: bool | tuple[str, ...] = False
    ) -> str:
        """The composite's token, marked when the members train on their draws' counts (:meth:`_counted`)."""
        token = super()._structure(objects, supervised, quick, weighted)
        return f"{token}+counted" if self._counted() else token

    def network(self, X: Source, y: Source | None = None, sample_weight: Source | None = None) -> Signature:
        owner = type(self).__name__
        if y is None:
            raise GraphError(f"{owner} needs a target: call fit(X, y).")
        self._check_options(owner)
        if not (hasattr(self.estimator, "fit") and hasattr(self.estimator, "predict")):
            raise ArgumentError(
                f"{owner}: expected estimator to be a model with fit() and predict() (a scikit-learn regressor or "
                f"classifier). Received: {describe(self.estimator)}."
            )
        classifier = self._kind() == "classifier"
        votes = classifier and not hasattr(self.estimator, "predict_proba")  # averaged as votes (see Votes)
        counted = self._counted()  # each member on all rows, weighted by its draw's counts
        # the weights give the draws' probabilities, unless routed under an alias (see _fit_weights)
        drawing = {} if sample_weight is None or self._routed_weights() is not None else {"sample_weight": sample_weight}
        passed = () if sample_weight is None or drawing else (sample_weight,)  # weights of the drawn rows
        labels = machine(LabelEncoder(), y, name="labels") if classifier else None
        target: Node = labels.transform(y) if labels is not None else y
        drawn_seeds = _ops.private_rng(self.random_state).randint(np.iinfo(np.int32).max, size=int(self.n_estimators))
        seeds = tuple(map(int, drawn_seeds))
        base = Votes(self.estimator) if votes else self.estimator
        seeded = bool(random_states(base))
        # the columns are drawn (first) unless they are all of them without replacement, which draws nothing
        every_column = isinstance(self.max_features, (float, np.floating)) and self.max_features == 1.0
        subspaces = bool(self.bootstrap_features) or not every_column
        how = {"max_features": self.max_features, **({"bootstrap_features": True} if self.bootstrap_features else {})}
        columns = {"X": X, **how} if subspaces else {}
        size = node(_ops.draw_size, target, self.max_samples, bool(self.bootstrap), owner=owner, **drawing)
        added = classifier and not counted  # a member trained on its drawn rows sees every class (see drawn_rows)
        members, inputs, drawn = [], [], []
        for k, seed in enumerate(seeds):
            # in the order drawn, as scikit-learn's bagging indexes them (a model can depend on the order: ties of a
            # KNeighborsRegressor, an SGDRegressor(shuffle=False) in a pipeline)
            rows = node(_ops.drawn_rows, target, seed, size, added, self.bootstrap, **columns, **drawing)
            model = Seeded(base, seed) if seeded else base
            seen = node(_ops.subspace, X, seed=seed, **how) if subspaces else X
            if counted:  # as scikit-learn's bagging, when the model's fit takes weights
                training = (seen, target, node(_ops.draw_counts, rows, target))
            else:
                training = tuple(node(take_rows, value, rows) for value in (seen, target, *passed))
            members.append(machine(model, *training, name=f"member{k + 1}"))
            inputs.append(seen)
            drawn.append(rows)
        report = {
            "draws": node(
                _ops.draws, target, seeds=seeds, max_samples=size, classes=added, replace=bool(self.bootstrap),
                **columns, **drawing,
            )
        }
        if subspaces:
            report["features"] = node(_ops.drawn_column_sets, X, seeds=seeds, **how)
        if self.oob_score:
            predicted = [m.predict_proba(x) if classifier else m.predict(x) for m, x in zip(members, inputs)]
            oob = node(_ops.out_of_bag, target, *drawn, *predicted, classes=classifier)
            report["oob_score"], report["oob_prediction"] = oob[0], oob[1]
        outputs = _averaged(members, inputs, labels, None)
        if classifier:  # as scikit-learn's BaggingClassifier
            if not votes and hasattr(self.estimator, "predict_log_proba"):  # the members' own, added in log space
                logs = [m.predict_log_proba(x) for m, x in zip(members, inputs)]
                outputs["predict_log_proba"] = node(log_mean_exp, *logs)
            else:
                outputs["predict_log_proba"] = node(_ops.log_of, outputs["predict_proba"])
            if hasattr(self.estimator, "decision_function"):
                scores = [m.decision_function(x) for m, x in zip(members, inputs)]
                outputs["decision_function"] = node(_ops.weighted_mean, *scores)
        return Signature(**outputs, report=report)


#: Per estimator class, with metadata routing off: whether its ``fit`` takes ``sample_weight`` (Bagging._counted).
_COUNTED: dict[type, bool] = {}


class Average(NamedEstimators, TrainedEstimators, RoutedWeights, WeightedFit, Composite):
    """A (weighted) average of several models, each trained on all rows.

    Regressors: mean of predictions. Classifiers: mean of probabilities
    (soft voting), or with ``voting="hard"`` the label most models predict
    (weighted; a tie goes to the first of the sorted labels), as
    scikit-learn's ``VotingClassifier``: then no ``predict_proba``, and the
    models need only ``predict``. ``transform`` gives each model's output as
    columns, as scikit-learn's voting estimators: predictions (regressors),
    probabilities (soft voting) or encoded labels ``0..k-1`` (hard voting);
    ``get_feature_names_out`` names them. The same model object may appear under several names:
    its machines then share it. ``fit(X, y, sample_weight=w)`` trains every
    model with the weights, as scikit-learn's voting estimators do. ``weights``, ``voting`` and
    ``flatten_transform`` set on a fitted average take effect at once, nothing retrained (as scikit-learn reads them).

    Parameters
    ----------
    estimators : list of (str, estimator)
        A model given as ``"drop"`` (also by ``set_params(<name>="drop")``)
        is skipped, as in scikit-learn's voting; all of them dropped is a
        ``GraphError``.
    weights : list of float, optional
        One per pair of ``estimators``, dropped ones included (as
        scikit-learn's).
    voting : {"soft", "hard"}, default="soft"
        How classifiers vote (regressors ignore it).
    flatten_transform : bool, default=True
        What ``transform`` gives for soft voting (regressors and hard voting
        ignore it): the models' probabilities side by side, ``(rows, models
        x classes)``, or with ``False`` stacked, ``(models, rows, classes)``,
        as scikit-learn's ``VotingClassifier``.
    cache : FitCache, optional
    executor, n_jobs : optional
        Where the machines train (see ``ww.Stack``).

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.linear_model import Lasso, Ridge
    >>> X, y = load_diabetes(return_X_y=True)
    >>> avg = ww.Average([("ridge", Ridge()), ("lasso", Lasso())], weights=[2, 1]).fit(X, y)
    >>> avg.predict(X[:1]).shape
    (1,)
    """

    _named = "estimators"
    _output_params = frozenset({"weights", "voting", "flatten_transform"})  # read at each predict, as sklearn's
    _bagged_by_counts = False  # a bagging's members train on their drawn rows, as scikit-learn's voting

    def __init__(
        self,
        estimators: list[tuple[str, Any]],
        weights: Any = None,
        *,
        voting: str = "soft",
        flatten_transform: bool = True,
        cache: Any = None,
        executor: Any = None,
        n_jobs: int | None = None,
    ) -> None:
        self.estimators = estimators
        self.weights = weights
        self.voting = voting
        self.flatten_transform = flatten_transform
        self.cache = cache
        self.executor = executor
        self.n_jobs = n_jobs

    def _kind(self) -> str | None:
        try:
            kinds = {_kind_of(e) for _, e in self._live_pairs()}
        except Exception:
            return None
        return kinds.pop() if len(kinds) == 1 else None

    def _weight_routes(self) -> list[tuple[str, Any, str]]:
        return [(name, estimator, "fit") for name, estimator in self._live_pairs()]

    def __sklearn_tags__(self):
        """The composite's tags; hard voting's ``transform`` gives labels, whose dtype is not the input's."""
        tags = super().__sklearn_tags__()
        if tags.transformer_tags is not None and self._kind() == "classifier" and self.voting == "hard":
            tags.transformer_tags.preserves_dtype = []
        return tags

    @property
    def named_estimators_(self) -> Bunch:
        """The trained models, by name, in the order of ``estimators``; ``"drop"`` for a model dropped, as
        scikit-learn's."""
        return self._named_trained()

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the columns ``transform`` gives, as scikit-learn's voting estimators name them:
        ``average_<name>`` per model (regressors, hard voting), ``average_<name><k>`` per class (soft voting).

        ``input_features`` is checked as ``Composite.get_feature_names_out``
        checks it, and not used.

        Raises
        ------
        GraphError
            Soft voting with ``flatten_transform=False`` (also a ``ValueError``, as scikit-learn's).
        """
        self._ready()
        self._input_names(input_features)
        prefix = type(self).__name__.lower()
        names = [name for name, _ in self._live_pairs()]
        if self._kind() != "classifier" or self.voting == "hard":
            return np.asarray([f"{prefix}_{name}" for name in names], dtype=object)
        if not self.flatten_transform:
            raise GraphError(
                f"{type(self).__name__}: get_feature_names_out is not supported when voting='soft' and "
                "flatten_transform=False (transform then gives a 3-D array). Set flatten_transform=True."
            )
        classes = range(len(self.classes_))
        return np.asarray([f"{prefix}_{name}{k}" for name in names for k in classes], dtype=object)

    def _live_weights(self, owner: str) -> tuple[float, ...] | None:
        """The weights of the estimators not dropped (``weights`` has one per pair, dropped or not, as
        scikit-learn's), checked."""
        pairs = self._checked_pairs()
        weights = _weights(owner, self.weights, len(pairs))
        if weights is None:
            return None
        live = tuple(w for w, (_, estimator) in zip(weights, pairs) if not dropped(estimator))
        if sum(live) <= 0:
            raise GraphError(
                f"{owner}: the weights of the estimators not dropped must have a positive sum. Received: "
                f"{self.weights!r} for {[name for name, _ in pairs]}, of which "
                f"{[name for name, e in pairs if dropped(e)]} are dropped."
            )
        return live

    def network(self, X: Source, y: Source | None = None, sample_weight: Source | None = None) -> Signature:
        owner = type(self).__name__
        estimators = self._live_pairs()
        if y is None:
            raise GraphError(f"{owner} needs a target: call fit(X, y).")
        kinds = sorted({str(_kind_of(e)) for _, e in estimators})
        if len(kinds) > 1:
            raise GraphError(f"{owner}: the estimators must all be regressors or all classifiers. Received kinds {kinds}.")
        weights = self._live_weights(owner)
        classifier = kinds == ["classifier"]
        if self.voting not in ("soft", "hard"):
            raise GraphError(f"{owner}: voting must be 'soft' or 'hard'. Received: {self.voting!r}.")
        hard = classifier and self.voting == "hard"
        routed = self._routed_weights()
        encoder = unclaimed("labels", [name for name, _ in estimators])  # a voter may be named "labels"
        labels = machine(LabelEncoder(), y, name=encoder) if classifier else None
        target: Node = labels.transform(y) if labels is not None else y
        members = []
        for name, estimator in estimators:
            if classifier and not hard:
                _classifier_needs(owner, estimator, name)
            elif not hasattr(estimator, "predict"):
                raise GraphError(f"{owner}: {name} ({type(estimator).__name__}) has no predict().")
            weighted = sample_weight is not None and (routed is None or name in routed)  # routed: requested
            if weighted and routed is None:
                check_weighted(owner, name, estimator)
            members.append(machine(estimator, X, target, *((sample_weight,) if weighted else ()), name=name))
        if not isinstance(self.flatten_transform, (bool, np.bool_)):
            raise GraphError(f"{owner}: flatten_transform must be a bool. Received: {self.flatten_transform!r}.")
        if hard:
            assert labels is not None
            predictions = [m.predict(X) for m in members]
            votes = node(_ops.majority, *predictions, weights=weights)
            return Signature(predict=labels.inverse_transform(votes), transform=node(_ops.side_by_side, *predictions))
        outputs = _averaged(members, [X] * len(members), labels, weights)
        if classifier:
            probabilities = [m.predict_proba(X) for m in members]
            outputs["transform"] = node(_ops.side_by_side, *probabilities, flatten=bool(self.flatten_transform))
        else:
            outputs["transform"] = node(_ops.side_by_side, *[m.predict(X) for m in members])
        return Signature(**outputs)
