"""Machines: a model bound to training-argument nodes, owning what it learned."""

from __future__ import annotations

import functools
import inspect
from typing import Any

from sklearn.utils import get_tags

from wirework.errors import (
    ArgumentError,
    GraphError,
    MachineApplyError,
    NotTrainedError,
    WireworkError,
    install_advice,
    quoted,
)
from wirework.graph._retraining import _Retraining, _Snapshot, params_key
from wirework.graph.cache import FitCache
from wirework.graph.data import describe, is_data
from wirework.graph.jobs import from_column, to_column, trains_by_fit_transform
from wirework.graph.kept import copied, writes_in_place
from wirework.graph.nodes import DynamicNode, Node, Source, TrainingOutputNode
from wirework.graph.topology import CLOCK, TrainingGraph, stamps, upstream

__all__ = ["Machine", "machine", "OPERATIONS", "params_key"]

#: The operations a machine can label nodes with.
OPERATIONS = (
    "predict",
    "predict_proba",
    "predict_log_proba",
    "decision_function",
    "score_samples",
    "score",
    "transform",
    "inverse_transform",
    "fit_predict",
    "fit_transform",
)


#: What a machine reports before any visit (shared: the same words every time).
_NEVER_VISITED: dict[str, str] = {"action": "none", "reason": "never visited by a fit"}
#: What a machine takes from another in ``Machine._adopt``: everything its training left, and its frozen flag.
_CARRIED = ("_frozen", "_state", "_fitted", "_fit_key", "_output", "_vector", "_snapshot", "_report")


class Machine(_Retraining):
    """Binds one model to training-argument nodes and owns one training's result.

    A machine never trains its ``model`` object itself: it trains a clone, so
    one model object may drive several machines. Build machines with
    :func:`machine`.

    **Retraining rules.** When a ``fit`` pass visits a machine, the machine is
    *skipped* if it is frozen. Otherwise it is **trained from scratch** if

    1. it has never been trained;
    2. ``force=True`` was given: its model's ``fit`` is called even when a
       fit cache holds an equal training (the cache is not looked up), and
       the new fit replaces that entry of the cache;
    3. the state of a machine upstream of its training arguments changed
       since its last training (that machine was retrained);
    4. the data of a source upstream of its training arguments changed
       (the source was given new data);
    5. the type of its model changed (``machine.model = OtherModel()``);
    7. a node of the pass takes its ``fit_transform`` or ``fit_predict``
       output on the training data (see below) and it does not hold that
       output (it trained in a pass without such a node, or was copied or
       unpickled since: the output is dropped), unless a fit cache holds
       its very training with that output: then it takes the output back
       and is left alone;

    and it is **updated** if

    6. its model's hyperparameters changed (compared deeply, nested models
       and random states included): a warm restart when the model has
       ``warm_start=True``, else a fit from scratch.

    Otherwise it is left alone: its ``state`` is not bumped, so nothing
    downstream retrains because of it. The code below cites these numbers.

    **Training output.** A node ``mach.transform(X)`` whose input ``X`` is
    the machine's own first training argument has, on the training data
    (during a fit pass and for ``node()``), the value the model's
    ``fit_transform`` returned when the machine trained, as in
    scikit-learn's ``Pipeline``. A model whose ``fit_transform`` is its own
    (not ``TransformerMixin``'s fit-then-transform) trains by it in a pass
    that needs such a node (upstream of the pass's roots, or of a training
    argument of a machine the pass visits), and the machine holds the
    output until it trains again (a model that writes in place, told so by
    ``copy=False`` or the like, is given a copy of it, as of every value:
    see :mod:`wirework.graph.kept`). This matters where the two differ by
    design (``TargetEncoder`` cross-fits its training encodings; ``NMF``
    returns the factor it learned) or by rounding (``PCA``). New data pushed
    through the network (``node(X_new)``) is transformed with ``transform``.

    A node ``mach.fit_predict(X)`` (``X`` the first training argument, as
    it must be) is the training output of a model that labels only the data
    it trains on (``DBSCAN``, ``AgglomerativeClustering``,
    ``LocalOutlierFactor``: ``fit_predict`` and no ``predict``): its value
    on the training data is what ``fit_predict`` returned when the machine
    trained, which a pass that needs it trains by; it has no value on new data.
    So is a node ``mach.fit_transform(X)`` of a model that transforms only
    the data it trains on (``TSNE``, ``SpectralEmbedding``, ``MDS``:
    ``fit_transform`` and no ``transform``): what ``fit_transform``
    returned when the machine trained.

    Attributes
    ----------
    model : estimator
        The model (hyperparameters); mutate it or assign a new one, then fit.
    args : tuple of Node
        The training arguments: ``(X,)``, ``(X, y)`` or ``(X, y, sample_weight)``.
    name : str or None
        Optional name shown in formulas, reports and drawings.
    state : int
        Number of times the machine has been (re)trained.

    Notes
    -----
    An unsupervised machine trained on one-dimensional data (a target ``y``,
    say) fits its model on that data as a single column, and each of its
    operations turns a one-dimensional input into a column and a one-column
    result back into one dimension (a Series keeps its index and name), as
    scikit-learn's ``TransformedTargetRegressor`` does.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import LinearRegression
    >>> X = ww.source(np.array([[0.0], [1.0], [2.0]]), name="X")
    >>> y = ww.source(np.array([1.0, 3.0, 5.0]), name="y")
    >>> line = ww.machine(LinearRegression(), X, y, name="line")
    >>> line
    machine(LinearRegression(), X, y, name='line')
    >>> line.fit().state
    1
    >>> line.fitted_model.coef_.round(6)
    array([2.])
    >>> line.fit().report()["action"]         # nothing changed: left alone
    'skipped'
    >>> line.model.fit_intercept = False       # condition 6
    >>> line.fit().report()["reason"], line.state
    ('condition 6: hyperparameters changed', 2)
    """

    kind = "machine"
    #: The machines it needs directly (see ``topology._walk``); ``None`` until a walk meets it (a class default:
    #: machines pickled before it existed have none).
    _needs: tuple[Machine, ...] | None = None
    #: ``(fitted model, whether it may write into its input)``, for the fitted model it names (see ``_apply``); a
    #: class default: a machine pickled, copied or adopting another's training finds it out again.
    _writes: tuple[Any, bool] | None = None

    def __init__(self, model: Any, args: tuple[Node, ...], *, name: str | None = None) -> None:
        self.model = model
        self._args = args
        self.name = name
        self._frozen = False
        self._state = 0
        self._fitted: Any = None
        self._fit_key: str | None = None  # the fit cache's key of the last training, when a cache was on
        # (upstream seen, output, "fit_transform" or "fit_predict"): the last training's output, by that method
        self._output: tuple[tuple, Any, str] | None = None
        self._vector = False
        self._snapshot: _Snapshot | None = None
        self._upstream: tuple[tuple[Machine, ...], tuple[Source, ...]] | None = None
        self._training: TrainingGraph | None = None
        self._report: dict[str, Any] = _NEVER_VISITED  # the last visit; report() adds the state

    # -- read-only views ---------------------------------------------------

    @property
    def args(self) -> tuple[Node, ...]:
        """The training-argument nodes (fixed at creation)."""
        return self._args

    @property
    def state(self) -> int:
        """How many times this machine has been (re)trained."""
        return self._state

    @property
    def frozen(self) -> bool:
        """Whether fit passes skip this machine."""
        return self._frozen

    @property
    def fitted_model(self) -> Any:
        """The estimator trained by the last training of this machine."""
        if self._fitted is None:
            raise NotTrainedError(f"{self._title()} has not been trained yet. {self._how_to_train()}")
        return self._fitted

    def _requires(self) -> tuple[Node, ...]:
        return self._args

    def _title(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"Machine{label} ({type(self.model).__name__})"

    def _how_to_train(self) -> str:
        if self._frozen:  # fit passes skip it
            return "It is frozen, so fit passes skip it: call thaw(), then fit() on a node downstream of it."
        return "Call fit() on a node downstream of it, or on the machine."

    def __repr__(self) -> str:
        from wirework.graph.inspect import formulas

        args = ", ".join(formulas(self._args, also=[self]))  # its own name is taken: unnamed ones skip it
        name = f", name={self.name!r}" if self.name else ""
        return f"machine({self.model!r}, {args}{name})"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_output"] = None  # as large as the training data: dropped (condition 7 trains again if needed)
        # what it keeps of the network's structure: rebuilt when asked
        state["_upstream"] = state["_training"] = state["_needs"] = None
        return state

    def __copy__(self) -> Machine:
        """``copy.copy(machine)``: a machine with the same model object, arguments and training, whose fits are
        its own (its record of what it needs lists the machine itself: shared, a fit would train the original)."""
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__getstate__())
        return copied

    # -- operations: each returns a dynamic node ---------------------------

    def _operation(self, operation: str, nodes: tuple) -> DynamicNode:
        if len(nodes) != 1:
            raise GraphError(
                f"Expected exactly one node (the input) for {operation}(). Received {len(nodes)} arguments. "
                f"The training arguments were given to ww.machine(); write mach.{operation}(X)."
            )
        if not hasattr(self.model, operation):
            available = [  # fit_transform where it is the only way to transform (TSNE)
                op for op in OPERATIONS
                if hasattr(self.model, op) and (op != "fit_transform" or not hasattr(self.model, "transform"))
            ] or ["none"]
            raise GraphError(
                f"{type(self.model).__name__} has no {operation}() (in {self._title()}). "
                f"Operations it offers: {', '.join(available)}."
            )
        return DynamicNode(self, operation, _as_node(nodes[0], f"the input of {operation}()"))

    def predict(self, *nodes: Any) -> DynamicNode:
        """A node applying the trained model's ``predict`` to ``nodes[0]``."""
        return self._operation("predict", nodes)

    def predict_proba(self, *nodes: Any) -> DynamicNode:
        """A node applying the trained model's ``predict_proba`` to ``nodes[0]``."""
        return self._operation("predict_proba", nodes)

    def predict_log_proba(self, *nodes: Any) -> DynamicNode:
        """A node applying the trained model's ``predict_log_proba`` to ``nodes[0]``."""
        return self._operation("predict_log_proba", nodes)

    def decision_function(self, *nodes: Any) -> DynamicNode:
        """A node applying the trained model's ``decision_function`` to ``nodes[0]``."""
        return self._operation("decision_function", nodes)

    def score_samples(self, *nodes: Any) -> DynamicNode:
        """A node applying the trained model's ``score_samples`` to ``nodes[0]`` (outlier detectors, densities)."""
        return self._operation("score_samples", nodes)

    def score(self, *nodes: Any) -> DynamicNode:
        """A node applying the trained model's ``score`` to ``nodes[0]`` alone: an unsupervised model's score of
        its input (a clusterer's, a mixture's, a density's, PCA's), one number."""
        if scores_with_a_target(self.model):
            kind = type(self.model).__name__
            raise GraphError(
                f"{kind}'s score() compares its predictions with a target, which a score node does not give it "
                f"(in {self._title()}). A score node is an unsupervised model's score of its input (KMeans, "
                "GaussianMixture, PCA…). Compute a metric of the predictions instead, for example "
                "ww.node(r2_score, y, mach.predict(X))."
            )
        return self._operation("score", nodes)

    def transform(self, *nodes: Any) -> DynamicNode:
        """A node applying the trained model's ``transform`` to ``nodes[0]``."""
        return self._operation("transform", nodes)

    def inverse_transform(self, *nodes: Any) -> DynamicNode:
        """A node applying the trained model's ``inverse_transform`` to ``nodes[0]``."""
        return self._operation("inverse_transform", nodes)

    def fit_predict(self, *nodes: Any) -> TrainingOutputNode:
        """A node whose value on the training data is what the model's ``fit_predict`` returned when this
        machine trained: the labels of a clusterer without ``predict`` (``DBSCAN``), the verdicts of
        ``LocalOutlierFactor``. ``nodes[0]`` must be the machine's first training argument; the node has no
        value on new data (see "Training output")."""
        return self._training_node("fit_predict", nodes, "mach.predict(node) for a model that predicts new data")

    def fit_transform(self, *nodes: Any) -> TrainingOutputNode:
        """A node whose value on the training data is what the model's ``fit_transform`` returned when this
        machine trained: the embedding of a model without ``transform`` (``TSNE``, ``SpectralEmbedding``,
        ``MDS``). ``nodes[0]`` must be the machine's first training argument; the node has no value on new
        data (see "Training output"). A model whose ``fit_transform`` is ``TransformerMixin``'s (fit, then
        transform), or takes no ``sample_weight`` the machine trains with, is refused: the machine would train
        by ``fit``; use ``mach.transform(X)``, which gives the ``fit_transform`` output on the training data."""
        node = self._training_node("fit_transform", nodes, "mach.transform(node) for a model that transforms new data")
        if not trains_by_fit_transform(type(self.model), len(self._args)):
            own = trains_by_fit_transform(type(self.model), 1)  # its own, though it takes no weights
            how = "takes no sample_weight" if own else "is fit, then transform"
            raise GraphError(
                f"fit_transform() of {self._title()}: its fit_transform {how}, so the machine trains by fit and "
                "holds no fit_transform output. Use mach.transform(X): on the training data it gives the "
                "fit_transform output of a model that trains by it, else fit then transform."
            )
        return node

    def _training_node(self, operation: str, nodes: tuple, instead: str) -> TrainingOutputNode:
        """The node of ``operation``'s output on the training data (``fit_predict`` or ``fit_transform``), whose
        input must be the first training argument (else ``instead`` says what to use)."""
        plain = self._operation(operation, nodes)
        if plain.parents[0] is not self._args[0]:
            raise GraphError(
                f"{operation}() of {self._title()} gives its output on the data the machine trains on, so its input "
                f"must be the machine's first training argument. Write mach.{operation}(X) with the X given to "
                f"ww.machine(), or use {instead}."
            )
        return TrainingOutputNode(self, operation, plain.parents[0])

    def _apply(self, operation: str, value: Any, params: dict[str, Any] | None = None) -> Any:
        """Run ``operation`` of the fitted model on ``value`` (the hot path of prediction); ``params``: keyword
        arguments for it (a composite's ``predict(X, return_std=True)``)."""
        fitted = self._fitted
        if fitted is None:
            raise NotTrainedError(
                f"{self._title()} has not been trained yet, so its {operation}() has no value. {self._how_to_train()}"
            )
        method = getattr(fitted, operation, None)
        if method is None:
            raise GraphError(
                f"The trained {type(fitted).__name__} of {self._title()} has no {operation}(). "
                "Build the node from a machine whose model offers it."
            )
        if params:
            method = functools.partial(method, **params)
        writes = self._writes
        if writes is None or writes[0] is not fitted:
            writes = self._writes = (fitted, writes_in_place(fitted))
        if writes[1]:  # a copy=False model: the value may be kept, or shared with other consumers
            value = copied(value)
        try:
            if getattr(value, "ndim", 2) == 1:
                if self._vector:  # trained on a 1-D argument as one column: the same here, and back to 1-D
                    return from_column(method(to_column(value)), value)
                if getattr(fitted, "n_features_in_", None) == 1:  # it learned one column: a 1-D value is that column
                    return method(to_column(value))
            return method(value)
        except WireworkError:  # a composite inside: its error names its own machine already
            raise
        except Exception as error:
            advice = install_advice(error) or "fix the data that reaches it (columns, missing values, categories)"
            raise MachineApplyError.wrapping(
                error,
                f"{self._title()} failed in {operation}() on {describe(value)}: "
                f"{quoted(error)}. The machine stays trained; {advice} and call again.",
                machine=self,
            ) from error

    def _training_output(self, node: Node, method: str = "fit_transform", token: object = None) -> Any:
        """The output of ``method`` at the last training when the machine trained by it, ``node`` is the training
        ``X`` it was computed from and nothing upstream changed since (a frozen machine may have missed a
        change); else ``None``. ``token``: the fit pass's, in one (see :func:`~wirework.graph.topology.stamps`)."""
        kept = self._output
        if kept is None or node is not self._args[0] or kept[2] != method:
            return None
        if kept[0][:2] != stamps(self._args, CLOCK[0] if token is None else token):
            return None
        return kept[1]

    def _kept_output(self, node: Node, method: str, new_data: bool, token: object = None) -> Any:
        """The value of ``fit_predict(node)`` or ``fit_transform(node)`` (``method``): that method's output at
        the last training (see :meth:`fit_predict`, :meth:`fit_transform`)."""
        if new_data:
            name, other = type(self.model).__name__, "predict" if method == "fit_predict" else "transform"
            if hasattr(self.model, other):  # PCA, KMeans: another node of the machine gives values on new data
                same = ", whose value on the training data is this one" if other == "transform" else ""
                raise GraphError(
                    f"{method}() of {self._title()} has a value on the training data only: the output of {name}'s "
                    f"{method} when it trained. Its {other}() gives values on new data: build mach.{other}(X){same}."
                )
            done = "labels" if method == "fit_predict" else "transforms"
            raise GraphError(
                f"{method}() of {self._title()} has a value on the training data only: "
                f"{name} {done} the data it trains on and has no {other}() for new data. "
                "Call the node without data (node()), or fit the machine on the new data."
            )
        output = self._training_output(node, method, token)
        if output is None:
            raise NotTrainedError(
                f"{self._title()} holds no {method} output of its training data: it has not trained since "
                "its training data changed, or it trained by fit (mach.fit() alone), or it was copied or "
                f"unpickled since (the output is dropped). Call fit() on the {method} node: that trains it by "
                f"{method}."
            )
        return output

    # -- freezing ----------------------------------------------------------

    def freeze(self) -> Machine:
        """Make fit passes skip this machine (with a warning when it would have retrained)."""
        self._frozen = True
        return self

    def thaw(self) -> Machine:
        """Undo :meth:`freeze`: the retraining rules apply again at the next fit."""
        self._frozen = False
        return self

    def _adopt(self, other: Machine) -> None:
        """Take ``other``'s training as this machine's own: its trained model, state, what it saw when it
        trained, its training output, its last report, and whether it is frozen.

        For a machine of a network built again that matches ``other`` of the last build (see
        :func:`wirework.graph.carry.carry_over`): the retraining rules then decide about it as about ``other``.
        """
        for name in _CARRIED:
            setattr(self, name, getattr(other, name))
        CLOCK[0] += 1  # its state changed

    # -- training ----------------------------------------------------------

    def fit(self, *, force: bool = False, cache: FitCache | None = None, **execution: Any) -> Machine:
        """Train this machine and every machine it needs, by the retraining rules.

        Parameters
        ----------
        force : bool, default=False
            Train this machine from scratch (condition 2), calling its
            model's ``fit`` even when ``cache`` holds an equal training; the
            new fit replaces that entry. Machines upstream of it are trained
            only if their own rules ask for it.
        cache : FitCache, optional
            Reuse fits of equal models on equal data; defaults to the global
            ``cache`` setting (:func:`wirework.set_config`).
        **execution
            ``executor``, ``n_jobs``, ``on_error``, ``verbose``, ``progress``:
            as for :meth:`Node.fit <wirework.graph.nodes.Node.fit>`.
        """
        from wirework.graph.training import fit_pass

        fit_pass([self], forced=[self] if force else (), cache=cache, **execution)
        return self

    def report(self) -> dict[str, Any]:
        """What happened at this machine's last visit by a fit pass.

        Keys: ``machine``, ``model``, ``action`` (``"trained"``, ``"updated"``,
        ``"skipped"``, ``"frozen"`` or ``"failed"``), ``reason`` (citing the
        numbered retraining condition), ``state``, and after a training
        ``fit_time`` (seconds) and ``n_rows``.
        """
        return {"machine": self.name, "model": type(self.model).__name__, "state": self._state, **self._report}

    def _training_graph(self) -> TrainingGraph:
        """The machines this one needs, then itself, and who needs whom (its arguments are fixed)."""
        if self._training is None:
            self._training = TrainingGraph.of(self)
        return self._training

    def _upstream_of_args(self) -> tuple[tuple[Machine, ...], tuple[Source, ...]]:
        if self._upstream is None:
            self._upstream = upstream(self._args)  # one walk of the arguments' ancestry
        return self._upstream




def scores_with_a_target(model: Any) -> bool:
    """Whether ``model.score`` needs the true target: a classifier's or regressor's, or one whose ``y`` is required."""
    try:
        if get_tags(model).estimator_type in ("classifier", "regressor"):
            return True
    except Exception:  # not a scikit-learn estimator: its signature says
        pass
    try:
        parameters = list(inspect.signature(model.score).parameters.values())
    except (AttributeError, TypeError, ValueError):  # no score at all (the operation says so), or no signature
        return False
    return (
        len(parameters) > 1
        and parameters[1].kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        and parameters[1].default is inspect.Parameter.empty
    )



def _as_node(value: Any, where: str) -> Node:
    if isinstance(value, Node):
        return value
    if is_data(value):
        return Source(value)
    raise ArgumentError(
        f"Expected a node or data (numpy array, pandas DataFrame or Series, sparse matrix, list) as {where}. "
        f"Received: {describe(value)}."
    )


def machine(model: Any, *args: Any, name: str | None = None) -> Machine:
    """Bind ``model`` to training arguments: a :class:`Machine`.

    Parameters
    ----------
    model : estimator
        Any object with scikit-learn's ``fit`` and the operations you will
        ask of it (``predict``, ``transform``…).
    *args : Node or data
        One argument (``X``) for an unsupervised model, two (``X, y``) for a
        supervised one; a third is passed to ``fit`` as ``sample_weight``
        (an unsupervised model given weights: a ``y`` node whose value is
        ``None``). Plain data is wrapped in a new source.
    name : str, optional
        Name shown in formulas, reports and drawings.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.preprocessing import StandardScaler
    >>> y = ww.source(np.array([1.0, 2.0, 3.0]), name="y")
    >>> std = ww.machine(StandardScaler(), y)
    >>> z = std.transform(y)
    >>> z.fit()()
    array([-1.22474487,  0.        ,  1.22474487])
    """
    if isinstance(model, type):
        kind = model.__name__
        raise ArgumentError(
            f"Expected a model instance{'' if name is None else f' for machine {name!r}'}. "
            f"Received the class {kind}; pass an instance, {kind}()."
        )
    if not hasattr(model, "fit"):
        raise ArgumentError(
            f"Expected a model with a fit() method (a scikit-learn estimator)"
            f"{'' if name is None else f' for machine {name!r}'}. Received: {describe(model)}."
        )
    if name is not None and not isinstance(name, str):
        raise ArgumentError(
            f"Expected a machine name as a str (or None for no name). Received: {describe(name)}. "
            "Give a name such as name='ridge'."
        )
    if not 1 <= len(args) <= 3:
        raise GraphError(
            f"Expected 1 training argument (X, unsupervised), 2 (X, y) or 3 (X, y, sample_weight) "
            f"for {type(model).__name__}. Received {len(args)}."
        )
    slots = ("X", "y", "sample_weight")
    slot = next((slot for slot, arg in zip(slots, args) if arg is None), None)
    if slot is not None:  # a composite's network() given no y (fit(X) alone), say
        without = " (ww.machine(model, X) for a model that learns without a target)" if slot == "y" else ""
        raise ArgumentError(
            f"Expected a node or data as training argument {slot} of ww.machine() for {type(model).__name__}. "
            f"Received: NoneType None. In a composite's network(X, y=None), {slot} is None when fit() was called "
            f"without it: fit with it, or build the machine without it{without}."
        )
    nodes = tuple(_as_node(a, f"training argument {slots[i]} of ww.machine()") for i, a in enumerate(args))
    return Machine(model, nodes, name=name)
