"""scikit-learn's own meta-estimators, each through the converters of the models it holds.

skl2onnx has no float64 form of ``TransformedTargetRegressor``, and its
ensembles' converters write trees with the deprecated operators, so a
scikit-learn ``StackingRegressor`` or ``VotingClassifier`` was refused. Here:

- ``TransformedTargetRegressor``: the regressor's ``predict`` as one column,
  then the transformer's ``inverse_transform`` (back to 1-D for a 1-D target);
- ``VotingRegressor`` and ``VotingClassifier``: the members' predictions (or
  probabilities) added member by member, weighted, divided by the weights'
  sum; hard voting counts weighted one-hot votes as ``np.bincount`` does;
- ``StackingRegressor`` and ``StackingClassifier``: each member's
  ``stack_method_`` output (a binary classifier's probabilities without the
  first column), the input after them with ``passthrough``, then the final
  estimator; the classifier's labels decoded by its label encoder;
- ``BaggingRegressor``: each member's prediction on its features, added in
  the order and groups of scikit-learn's jobs, divided by their number;
  ``BaggingClassifier`` the same of the members' probabilities (one-hot
  votes for a member without them), and the label of the first largest,
  and of their ``decision_function`` when the members have it;
- ``AdaBoostRegressor``: the weighted median of the members' predictions
  (sorted, cumulative weights, the first reaching half the total);
  ``AdaBoostClassifier``: SAMME's weighted votes, its labels and softmax;
- ``MultiOutputRegressor`` and ``MultiOutputClassifier``: each member's
  ``predict`` as a column (skl2onnx's form did not type its output in
  float64, and wrote trees with the deprecated operators);
  ``RegressorChain``: each member on the input and the previous members'
  predictions, the columns put back in the targets' order;
- ``CalibratedClassifierCV`` (``sigmoid`` and ``isotonic``): each calibrated
  classifier's response (``decision_function``, else ``predict_proba``)
  through its calibrators (SciPy's ``expit``; ``interp1d``'s linear
  interpolation, clipped), normalised as scikit-learn does, then averaged.

Additions follow NumPy's order where it is plain; its pairwise sums over
more than two members may round otherwise, so these agree within about
1e-15 relative, not always bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import (
    AdaBoostClassifier,
    AdaBoostRegressor,
    BaggingClassifier,
    BaggingRegressor,
    StackingClassifier,
    StackingRegressor,
    VotingClassifier,
    VotingRegressor,
)
from sklearn.multioutput import MultiOutputClassifier, MultiOutputRegressor, RegressorChain

from wirework.errors import ExportError
from wirework.export.builder import GraphBuilder
from wirework.export.elementwise import interp
from wirework.export.categories import Member, member_inputs, members_categories, members_read
from wirework.export.heads import (
    binary_labels,
    class_at,
    class_values,
    labels,
    majority,
    two_columns,
    weighted_average,
)
from wirework.export.registry import converter_for, register
from wirework.export.trees import logistic, softmax

__all__: list[str] = []


def _apply(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    return converter_for(model).apply(model, method, g, x)


def _members(model: Any) -> list[Member]:
    """The models that read a meta-estimator's input, each with the input positions of its columns."""
    if isinstance(model, TransformedTargetRegressor):
        return [(model.regressor_, None)]
    if isinstance(model, CalibratedClassifierCV):
        return [(calibrated.estimator, None) for calibrated in model.calibrated_classifiers_]
    if isinstance(model, (BaggingRegressor, BaggingClassifier)):
        return [(member, list(features)) for member, features in zip(model.estimators_, model.estimators_features_)]
    return [(member, None) for member in model.estimators_]


def _inputs(model: Any, g: GraphBuilder, x: str) -> list[str]:
    """The input as each member reads it (its categories' codes, where it numbers them otherwise)."""
    return member_inputs(g, x, _members(model))


def _reads(model: Any) -> frozenset[int] | None:
    if getattr(model, "passthrough", False):  # a stack passing its input on to the final estimator
        return None
    return members_read(_members(model))


#: What the members read: the categorical columns, numbered as the first member reading each (members that
#: number them otherwise get recoded inputs), and the columns some member reads.
_READING = {"categories": lambda model: members_categories(_members(model)), "reads": _reads}


@register(TransformedTargetRegressor, methods=lambda model: ("predict",), **_READING)
def _convert_target_transform(model: TransformedTargetRegressor, method: str, g: GraphBuilder, x: str) -> str:
    predicted = _apply(model.regressor_, "predict", g, _inputs(model, g, x)[0])
    one_target = getattr(model, "_training_dim", 1) == 1
    column = g.as_column(predicted) if one_target else predicted
    back = _apply(model.transformer_, "inverse_transform", g, column)
    return g.as_vector(back) if one_target else back


@register(VotingRegressor, methods=lambda model: ("predict",), **_READING)
def _convert_voting_regressor(model: VotingRegressor, method: str, g: GraphBuilder, x: str) -> str:
    predictions = [_apply(member, "predict", g, xm) for member, xm in zip(model.estimators_, _inputs(model, g, x))]
    return weighted_average(g, predictions, model._weights_not_none)


def _voting_methods(model: VotingClassifier) -> tuple[str, ...]:
    return ("predict", "predict_proba") if model.voting == "soft" else ("predict",)


@register(VotingClassifier, methods=_voting_methods, **_READING)
def _convert_voting_classifier(model: VotingClassifier, method: str, g: GraphBuilder, x: str) -> str:
    # the members learned the encoded labels 0..K-1 (le_); soft: the average of their probabilities and its
    # first largest column; hard: weighted one-hot votes counted in float64 (np.bincount), the first largest
    classes = model.le_.classes_
    if model.voting == "soft":
        members = [_apply(m, "predict_proba", g, xm) for m, xm in zip(model.estimators_, _inputs(model, g, x))]
        probabilities = weighted_average(g, members, model._weights_not_none)
        return probabilities if method == "predict_proba" else labels(g, probabilities, classes)
    votes = [g.as_column(_apply(m, "predict", g, xm)) for m, xm in zip(model.estimators_, _inputs(model, g, x))]
    return class_at(g, majority(g, votes, len(classes), model._weights_not_none), classes)


def _meta_features(model: Any, g: GraphBuilder, x: str) -> str:
    """A scikit-learn stack's ``transform``: each member's ``stack_method_`` output as columns (a binary
    classifier's probabilities without the first column), then the input with ``passthrough``."""
    binary = hasattr(model, "classes_") and len(model.classes_) == 2
    parts = []
    for member, method, xm in zip(model.estimators_, model.stack_method_, _inputs(model, g, x)):
        value = g.as_matrix(_apply(member, method, g, xm))
        parts.append(g.columns(value, 1, 2) if method == "predict_proba" and binary else value)
    if model.passthrough:
        parts.append(x)
    return g.hstack(parts, hint="meta_features")


@register(StackingRegressor, methods=lambda model: ("predict",), **_READING)
def _convert_stacking_regressor(model: StackingRegressor, method: str, g: GraphBuilder, x: str) -> str:
    return _apply(model.final_estimator_, "predict", g, _meta_features(model, g, x))


def _stacking_methods(model: StackingClassifier) -> tuple[str, ...]:
    final = model.final_estimator_
    offered = converter_for(final).methods(final)
    return ("predict",) + tuple(m for m in ("predict_proba", "decision_function") if m in offered)


@register(StackingClassifier, methods=_stacking_methods, **_READING)
def _convert_stacking_classifier(model: StackingClassifier, method: str, g: GraphBuilder, x: str) -> str:
    encoder = getattr(model, "_label_encoder", None)
    if encoder is None or isinstance(encoder, list):
        raise ExportError("A StackingClassifier of several targets cannot be exported; export one per target.")
    out = _apply(model.final_estimator_, method, g, _meta_features(model, g, x))
    if method != "predict":
        return out
    return class_at(g, g.cast(out, np.int64), encoder.classes_)  # the final estimator learned the codes


@register(BaggingRegressor, methods=lambda model: ("predict",), **_READING)
def _convert_bagging_regressor(model: BaggingRegressor, method: str, g: GraphBuilder, x: str) -> str:
    # each member on its features; summed within each of scikit-learn's jobs, then the jobs' sums, then
    # divided by the number of members
    members = [
        _apply(member, "predict", g, g.take_columns(xm, features, hint="features"))
        for member, features, xm in zip(model.estimators_, model.estimators_features_, _inputs(model, g, x))
    ]
    return _bagged(model, g, members)


def _bagged(model: Any, g: GraphBuilder, members: list[str]) -> str:
    """The members' values added within each of scikit-learn's jobs (as its ``n_jobs`` groups them), then the
    jobs' sums, divided by the number of members."""
    try:
        from sklearn.ensemble._base import _partition_estimators
    except ImportError as error:  # a private helper: another scikit-learn may not have it
        raise ExportError(f"Cannot tell how this scikit-learn groups a bagging's members ({error}).") from error
    jobs, _, starts = _partition_estimators(model.n_estimators, model.n_jobs)
    sums = [g.added(members[starts[i] : starts[i + 1]]) for i in range(jobs) if starts[i + 1] > starts[i]]
    return g.op("Div", [g.added(sums), g.const(float(model.n_estimators), "count")], hint="bagged")


def _bagging_classifier_methods(model: BaggingClassifier) -> tuple[str, ...]:
    # decision_function when scikit-learn's has it (its estimator does) and every member's converter exports it
    scores = hasattr(model, "decision_function") and all(
        "decision_function" in converter_for(member).methods(member) for member in model.estimators_
    )
    return ("predict", "predict_proba", *(("decision_function",) if scores else ()))


@register(BaggingClassifier, methods=_bagging_classifier_methods, **_READING)
def _convert_bagging_classifier(model: BaggingClassifier, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's predict_proba: each member's probabilities on its features (a member that saw fewer
    # classes fills its classes' columns, the others 0; one without predict_proba votes one-hot for its
    # label), added within each job, then across jobs, divided by the number of members; predict: the class
    # of the first largest column. The members learned the classes' codes 0..K-1.
    n_classes = len(model.classes_)
    members = []
    if method == "decision_function":  # the members' scores, added and divided as the probabilities are
        return _bagged(model, g, _bagging_scores(model, g, x))
    for member, features, xm in zip(model.estimators_, model.estimators_features_, _inputs(model, g, x)):
        rows = g.take_columns(xm, features, hint="features")
        own = np.asarray(member.classes_).astype(np.int64)
        if hasattr(member, "predict_proba"):
            proba = _apply(member, "predict_proba", g, rows)
            if len(own) != n_classes:
                zero = g.op("Mul", [g.columns(proba, 0, 1), g.const(0.0, "zero")], hint="never_seen")
                where = {int(c): k for k, c in enumerate(own)}
                columns = [g.columns(proba, where[c], where[c] + 1) if c in where else zero for c in range(n_classes)]
                proba = g.hstack(columns, hint="proba")
        else:
            label = g.cast(g.as_column(_apply(member, "predict", g, rows)), g.dtype)
            positions = g.const(np.arange(n_classes, dtype=np.float64).reshape(1, -1), "classes")
            proba = g.cast(g.op("Equal", [label, positions], hint="vote"), g.dtype)
        members.append(proba)
    probabilities = _bagged(model, g, members)
    return probabilities if method == "predict_proba" else labels(g, probabilities, model.classes_)


def _bagging_scores(model: BaggingClassifier, g: GraphBuilder, x: str) -> list[str]:
    """Each member's ``decision_function`` on its features. scikit-learn adds them as they come, so a member that
    saw fewer classes (its scores of another shape) gives no ensemble score to reproduce: refused."""
    width = len(model.classes_)
    scores = []
    for member, features, xm in zip(model.estimators_, model.estimators_features_, _inputs(model, g, x)):
        if len(member.classes_) != width:
            raise ExportError(
                f"This BaggingClassifier's decision_function cannot be exported: a member learned "
                f"{len(member.classes_)} of its {width} classes, and scikit-learn adds such a member's scores to "
                "the others' whatever their columns. Export predict and predict_proba (methods=[...]), or draw "
                "more rows per member."
            )
        scores.append(_apply(member, "decision_function", g, g.take_columns(xm, features, hint="features")))
    return scores


@register(AdaBoostRegressor, methods=lambda model: ("predict",), **_READING)
def _convert_adaboost_regressor(model: AdaBoostRegressor, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's weighted median: the members' predictions sorted per row, their weights added in that
    # order, the first prediction whose cumulative weight reaches half the total (equal predictions may sort
    # in any order: the value found is the same)
    members = model.estimators_
    inputs = _inputs(model, g, x)
    table = g.hstack([g.as_matrix(_apply(m, "predict", g, xm)) for m, xm in zip(members, inputs)], hint="predictions")
    values, order = g.op(
        "TopK", [table, g.const([len(members)], "k")], axis=1, largest=0, sorted=1, outputs=2, hint="sorted"
    )
    weights = g.const(np.asarray(model.estimator_weights_[: len(members)], dtype=np.float64), "estimator_weights")
    cdf = g.op("CumSum", [g.op("Gather", [weights, order], axis=0), g.const(np.array(1))], hint="weight_cdf")
    half = g.op("Mul", [g.const(0.5, "half"), g.columns(cdf, len(members) - 1, len(members))], hint="half")
    reached = g.cast(g.op("GreaterOrEqual", [cdf, half], hint="median_or_above"), np.int64)
    median = g.op("ArgMax", [reached], axis=1, keepdims=1, hint="median_index")
    return g.as_vector(g.op("GatherElements", [values, median], axis=1, hint="median"))


@register(MultiOutputRegressor, MultiOutputClassifier, methods=lambda model: ("predict",), **_READING)
def _convert_multi_output(model: Any, method: str, g: GraphBuilder, x: str) -> str:
    # np.asarray([member.predict(X) for member in estimators_]).T: one column per target (the targets were one
    # array, so the members' labels are of one kind)
    members = zip(model.estimators_, _inputs(model, g, x))
    return g.hstack([g.as_matrix(_apply(member, "predict", g, xm)) for member, xm in members], hint="targets")


@register(RegressorChain, methods=lambda model: ("predict",))
def _convert_regressor_chain(model: RegressorChain, method: str, g: GraphBuilder, x: str) -> str:
    # scikit-learn's chain: member k predicts from the input and the predictions of members 0..k-1 (in the
    # order it was fitted), then the columns go back to the targets' order
    predictions: list[str] = []
    for member in model.estimators_:
        augmented = g.hstack([x, *predictions], hint="chained")
        predictions.append(g.as_matrix(_apply(member, "predict", g, augmented)))
    order = np.asarray(model.order_)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return g.take_columns(g.hstack(predictions, hint="chain"), inverse, hint="targets")


def _adaboost_methods(model: AdaBoostClassifier) -> tuple[str, ...]:
    return ("predict", "predict_proba", "decision_function")


@register(AdaBoostClassifier, methods=_adaboost_methods, **_READING)
def _convert_adaboost_classifier(model: AdaBoostClassifier, method: str, g: GraphBuilder, x: str) -> str:
    # SAMME: each member's vote, its weight for the class it predicts and -w / (K - 1) for the others, added
    # member by member, divided by the weights' sum; two classes: the second column minus the first
    classes, k = model.classes_, model.n_classes_
    if k < 2:
        raise ExportError("An AdaBoostClassifier that saw one class cannot be exported.")
    values = class_values(classes)  # as the members' labels come (class_at's types)
    known = g.const(values.reshape(1, -1), "classes", dtype=values.dtype if values.dtype.kind == "f" else None)
    votes = []
    for member, w, xm in zip(model.estimators_, model.estimator_weights_, _inputs(model, g, x)):
        predicted = g.op("Reshape", [_apply(member, "predict", g, xm), g.const([-1, 1], "column_shape")])
        chosen = g.op("Equal", [predicted, known], hint="vote")
        votes.append(g.op("Where", [chosen, g.const(float(w), "weight"), g.const(-1 / (k - 1) * float(w), "against")]))
    total = g.const(float(model.estimator_weights_.sum()), "weight_sum")
    decision = g.op("Div", [g.added(votes), total], hint="decision")
    if k == 2:
        decision = g.op("Sub", [g.columns(decision, 1, 2), g.columns(decision, 0, 1)], hint="decision")
        if method == "predict":
            return binary_labels(g, decision, classes, strict=True)
        if method == "decision_function":
            return g.as_vector(decision)
        half = g.op("Div", [decision, g.const(2.0, "two")])
        scaled = g.op("Concat", [g.op("Neg", [half]), half], axis=1, hint="scaled")
    else:
        if method == "predict":
            return labels(g, decision, classes)
        if method == "decision_function":
            return decision
        scaled = g.op("Div", [decision, g.const(float(k - 1), "k_minus_1")], hint="scaled")
    return softmax(g, scaled, width=k)


@register(CalibratedClassifierCV, methods=lambda model: ("predict", "predict_proba"), **_READING)
def _convert_calibrated(model: CalibratedClassifierCV, method: str, g: GraphBuilder, x: str) -> str:
    # the mean of the calibrated classifiers' probabilities; the label of its first largest column
    if model.method not in ("sigmoid", "isotonic"):
        raise ExportError(f"CalibratedClassifierCV(method={model.method!r}) cannot be exported; sigmoid and isotonic can.")
    total = g.const(np.zeros((1, len(model.classes_))), "zeros")
    for calibrated, xm in zip(model.calibrated_classifiers_, _inputs(model, g, x)):
        total = g.op("Add", [total, _calibrated_probabilities(calibrated, g, xm)], hint="sum")
    mean = g.op("Div", [total, g.const(float(len(model.calibrated_classifiers_)), "count")], hint="calibrated")
    return mean if method == "predict_proba" else labels(g, mean, model.classes_)


def _calibrated_probabilities(calibrated: Any, g: GraphBuilder, x: str) -> str:
    """One ``_CalibratedClassifier``'s ``predict_proba``: its estimator's response through the calibrators."""
    estimator, classes = calibrated.estimator, calibrated.classes
    if hasattr(estimator, "decision_function"):
        if "decision_function" not in converter_for(estimator).methods(estimator):
            raise ExportError(
                f"A CalibratedClassifierCV over {type(estimator).__name__} calibrates its decision_function, "
                "which its converter does not export."
            )
        response = _apply(estimator, "decision_function", g, x)
    else:
        response = _apply(estimator, "predict_proba", g, x)
        if len(estimator.classes_) == 2:  # the positive class's column, as _get_response_values takes it
            response = g.columns(response, 1, 2)
    response = g.as_matrix(response)
    n_classes = len(classes)
    positions = np.searchsorted(classes, estimator.classes_)  # LabelEncoder().fit(classes).transform(...)
    columns: dict[int, str] = {}
    for k, (position, calibrator) in enumerate(zip(positions, calibrated.calibrators)):
        target = int(position) + 1 if n_classes == 2 else int(position)
        columns[target] = _calibrator(calibrator, g, g.columns(response, k, k + 1))
    if n_classes == 2:
        proba = two_columns(g, columns[1])
    else:
        nothing = g.op("Mul", [g.columns(response, 0, 1), g.const(0.0, "zero")], hint="never_seen")
        proba = g.op("Concat", [columns.get(j, nothing) for j in range(n_classes)], axis=1, hint="proba")
        denominator = g.row_sum(proba, n_classes)
        empty = g.op("Equal", [denominator, g.const(0.0, "zero")], hint="empty")
        uniform = g.const(np.full((1, n_classes), 1.0 / n_classes), "uniform")
        proba = g.op("Where", [empty, uniform, g.op("Div", [proba, denominator])], hint="normalised")
    one = g.const(1.0, "one")
    barely = g.op("And", [g.op("Less", [one, proba]), g.op("LessOrEqual", [proba, g.const(1.0 + 1e-5, "tolerance")])])
    return g.op("Where", [barely, one, proba], hint="proba")


def _calibrator(calibrator: Any, g: GraphBuilder, t: str) -> str:
    """A calibrator's ``predict`` of a ``[N, 1]`` response: SciPy's ``expit(-(a T + b))``, or the isotonic
    fit's ``np.interp`` (which SciPy's linear ``interp1d`` calls) of ``T`` clipped to the thresholds' range."""
    if hasattr(calibrator, "a_"):
        z = g.op("Add", [g.op("Mul", [g.const(float(calibrator.a_), "a"), t]), g.const(float(calibrator.b_), "b")])
        return logistic(g, g.op("Neg", [z]))  # expit(-(a T + b))
    xs = np.asarray(calibrator.X_thresholds_, dtype=np.float64)
    ys = np.asarray(calibrator.y_thresholds_, dtype=np.float64)
    if len(xs) < 2:  # a constant fit
        return g.op("Add", [g.op("Mul", [t, g.const(0.0, "zero")]), g.const(float(ys[0]), "level")], hint="isotonic")
    low, high = g.const(float(calibrator.X_min_), "x_min"), g.const(float(calibrator.X_max_), "x_max")
    return interp(g, g.op("Min", [g.op("Max", [t, low]), high], hint="clipped"), xs, ys)
