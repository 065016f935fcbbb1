"""Machines: a model bound to training-argument nodes, owning what it learned."""

from __future__ import annotations

import copy
import functools
import inspect
import operator
import sys
import warnings
from typing import TYPE_CHECKING, Any, NamedTuple

from sklearn.base import clone
from sklearn.utils import get_tags

from wirework.errors import (
    ArgumentError,
    DataError,
    FrozenMachineWarning,
    GraphError,
    MachineApplyError,
    MachineFitError,
    NotTrainedError,
    WireworkError,
    install_advice,
    kind_name,
    quoted,
)
from wirework.graph._params import param_values, shallow_params
from wirework.graph.cache import FitCache
from wirework.graph.data import describe, is_data, n_rows
from wirework.graph.fingerprint import model_token, tokenize
from wirework.graph.jobs import (
    PLAIN,
    How,
    Job,
    copy_output_config,
    fresh_copy,
    from_column,
    to_column,
    trains_by_fit_transform,
    training_method,
    wants_column,
)
from wirework.graph.kept import copied, writes_in_place
from wirework.graph.nodes import DynamicNode, Node, Source, TrainingOutputNode
from wirework.graph.topology import (
    CLOCK,
    TrainingGraph,
    stamps,
    state_of,
    upstream,
    version_of,
)

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.training import FitPass

__all__ = ["Machine", "machine", "OPERATIONS"]

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


#: What a visit reports when it leaves a machine alone (shared: the same words every time).
_SKIPPED: dict[str, str] = {"action": "skipped", "reason": "no retraining condition holds"}
_NEVER_VISITED: dict[str, str] = {"action": "none", "reason": "never visited by a fit"}
#: What a machine takes from another in ``Machine._adopt``: everything its training left, and its frozen flag.
_CARRIED = ("_frozen", "_state", "_fitted", "_fit_key", "_output", "_vector", "_snapshot", "_report")


class _Snapshot(NamedTuple):
    """What a machine saw at its last training, to compare with now.

    ``upstream_states`` and ``source_versions``: the sums of the states and
    versions upstream of its training arguments
    (:func:`~wirework.graph.topology.stamps`; a snapshot pickled by an
    earlier wirework holds the states and versions themselves, as tuples);
    ``needs_states``: the states of the machines it needs directly
    (``machine._needs``), to name those that changed.
    """

    model_type: type
    params_key: Any
    upstream_states: int | tuple[int, ...]
    source_versions: int | tuple[int, ...]
    needs_states: tuple[int, ...] = ()


class Machine:
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
            how = "takes no sample_weight" if own else "is TransformerMixin's, fit then transform"
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
            done = "labels" if method == "fit_predict" else "transforms"
            lacks = "predict" if method == "fit_predict" else "transform"
            raise GraphError(
                f"{method}() of {self._title()} has a value on the training data only: "
                f"{type(self.model).__name__} {done} the data it trains on and has no {lacks}() for new data. "
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

    def _decide(
        self,
        force: bool,
        seen: tuple[int, int, tuple[int, ...]],
        found: tuple[tuple, tuple] | None,
        owed: str | None = None,
    ) -> tuple[Any, ...] | None:
        """Apply the retraining rules: ``(action, reason[, params key])`` or ``None`` to leave alone.

        ``seen``: the sums of the states of the machines and of the versions
        of the sources upstream of the training arguments, now
        (:func:`~wirework.graph.topology.stamps`), and the states of the
        machines it needs directly. ``found``: the model's
        :func:`~wirework.graph._params.param_values`, read once per visit.
        ``owed``: the training output a node of the pass takes (``"fit_transform"``
        or ``"fit_predict"``), if any.
        """
        snap = self._snapshot
        if snap is None or self._fitted is None:
            return "trained", "condition 1: never trained"
        if force:
            return "trained", "condition 2: forced"
        states, versions, needs_states = seen
        if states != snap.upstream_states or versions != snap.source_versions:
            if type(snap.upstream_states) is tuple:  # pickled by an earlier wirework: compared as it was
                decision = self._decide_by_tuples(snap, seen)
                if decision is not None:
                    return decision
                snap = self._snapshot
            elif states != snap.upstream_states:  # condition 3, naming the machines it needs directly that changed
                needs = self._needs or ()
                changed = [m._title() for m, old, new in zip(needs, snap.needs_states, needs_states) if old != new]
                if not changed:  # further upstream, behind machines that kept their state (frozen ones)
                    changed = [f"upstream of {', '.join(m._title() for m in needs)}"]
                return "trained", f"condition 3: upstream state changed ({', '.join(changed)})"
            else:
                return "trained", "condition 4: source data changed"
        if type(self.model) is not snap.model_type:
            return "trained", (
                f"condition 5: model type changed ({snap.model_type.__name__} -> {type(self.model).__name__})"
            )
        if (
            owed
            and (self._output is None or self._output[2] != owed)
            and (owed == "fit_predict" or trains_by_fit_transform(type(self.model), len(self._args)))
        ):  # as training_method(), inline: visited on every refit
            return "trained", f"condition 7: a node takes its {owed} output, which it does not hold"
        if (
            found is not None
            and type(snap.params_key) is tuple  # plain values (see params_key), and no set_output configuration
            and getattr(self.model, "_sklearn_output_config", None) is None
        ):
            seen_names, seen_values = snap.params_key[1], snap.params_key[3]
            if found[0] is seen_names and all(map(operator.is_, found[1], seen_values)):
                return None  # the very objects seen last: plain values cannot change in place
        key = params_key(self.model, found)
        if key != snap.params_key:
            return "updated", "condition 6: hyperparameters changed", key
        return None

    def _decide_by_tuples(self, snap: _Snapshot, seen: tuple[int, int, tuple[int, ...]]) -> tuple[str, str] | None:
        """Conditions 3 and 4 for a snapshot holding the states and versions themselves (pickled by a wirework
        before :func:`~wirework.graph.topology.stamps`); when neither holds, the snapshot takes ``seen``'s sums, so
        the next visit compares them."""
        machines, sources = self._upstream_of_args()
        states = tuple(map(state_of, machines))
        if states != snap.upstream_states:
            changed = [m._title() for m, old, new in zip(machines, snap.upstream_states, states) if old != new]
            return "trained", f"condition 3: upstream state changed ({', '.join(changed)})"
        if tuple(map(version_of, sources)) != snap.source_versions:
            return "trained", "condition 4: source data changed"
        self._snapshot = snap._replace(upstream_states=seen[0], source_versions=seen[1], needs_states=seen[2])
        return None

    def _plan(self, run: FitPass, *, force: bool, owed: str | None = None) -> Job | None:
        """A fit pass's visit: decide by the rules; return the fit to run, or ``None``.

        ``None`` when the machine is left alone, frozen, or found its fit in
        the cache (it is then already trained). ``owed``: the output of
        ``fit_transform`` or ``fit_predict`` a node of the pass takes, if any
        (see "Training output"). Runs in the scheduling thread.
        """
        # its snapshot's, if it trains: the sums upstream of its arguments, and the states of what it needs directly
        seen = (*stamps(self._args, run.token), tuple(map(state_of, self._needs)))
        try:
            found = param_values(self.model)
        except Exception:  # a broken model: the rules compare its token, and fresh_copy says what is wrong
            found = None
        decision = self._decide(force, seen, found, owed)
        if decision is None:
            self._report = _SKIPPED
            return None
        action, reason = decision[:2]
        if self._frozen:
            self._report = {"action": "frozen", "reason": f"frozen; otherwise {reason}"}  # before: it may raise
            warnings.warn(
                f"{self._title()} is frozen and was not trained, though the retraining rules asked for it "
                f"({reason}). Call thaw() to let it train.",
                FrozenMachineWarning,
                stacklevel=_callers_level(),
            )
            return None
        try:
            values = list(map(run.value, self._args))
        except WireworkError:  # names its own machine or data already
            raise
        except Exception as error:  # a static node's function raised: this machine cannot train
            raise self._values_failure(error, run.failed, reason) from error
        rows = n_rows(values[0])
        for value in values[1:]:
            if value is not None and n_rows(value) != rows:  # None: no target (X, None, sample_weight)
                names = ("X", "y", "sample_weight")
                got = ", ".join(f"{names[i]} has {n_rows(v)}" for i, v in enumerate(values) if v is not None)
                raise DataError(
                    f"The training arguments of {self._title()} have different numbers of rows: {got}. "
                    "Make them row-aligned (restrict every argument with the same folds)."
                )
        key = decision[2] if len(decision) > 2 else params_key(self.model, found)
        if found is not None:
            params: dict[str, Any] | None = dict(zip(*found))
        else:
            try:
                params = shallow_params(self.model)
            except Exception:  # fresh_copy below asks again, and says what is wrong
                params = None
        warm = (
            action == "updated"
            and type(self._fitted) is type(self.model)
            and params is not None
            and params.get("warm_start") is True
        )
        how = How(
            len(values) == 1 and getattr(values[0], "ndim", 2) == 1 and wants_column(self.model),
            training_method(type(self.model), owed, len(values)) if owed else None,
        )
        job = Job(self, values, how, action, reason + (" (warm start)" if warm else ""), key, rows, seen)
        # a model told to write into its input (copy=False...) must not write into values kept or shared; params
        # read once above; a key that is a tuple: plain values, no nested model to look into
        job.writes = writes_in_place(self.model, found, type(key) is tuple)
        if run.cache is not None and not warm:
            token = model_token(self.model)
            # a fit by fit_predict is kept apart: its output is labels, not what fit_transform gives
            job.key = run.cache.key(token if how.output != "fit_predict" else tokenize(token, how.output), values)
            # condition 2 (forced): the model's fit runs, not looked up; its fit replaces the entry (in _finish)
            cached = None if force else run.cache.get(job.key, with_output=how.output)
            if cached is not None:
                fitted, output = cached if how.output else (cached, None)
                if job.key == self._fit_key and reason.startswith("condition 7"):
                    # its own training, stored with the output a node takes (dropped when it was copied or
                    # unpickled): the output is all it lacks, so nothing trains and nothing downstream retrains
                    self._output = (seen, from_column(output, values[0]) if how.column else output, how.output)
                    self._report = {"action": "skipped", "reason": f"{reason}: found in the cache with its training"}
                    return None
                job.reason += " (fit found in the cache)"
                self._finish(job, fitted, output, 0.0)
                return None
        try:
            if warm:  # condition 6 with warm start: continue from a copy of the fitted model
                job.model = copy.deepcopy(self._fitted)
                job.model.set_params(**clone(self.model).get_params(deep=False))
                copy_output_config(self.model, job.model)
            else:
                job.model = fresh_copy(self.model, params)
        except Exception as error:  # what clone() would raise too: a parameter not kept as an attribute, say
            raise self._failure(job, error, "copying the model") from error
        if job.writes:  # after the cache's key: fingerprints of the values themselves
            job.values = list(map(copied, values))
        return job

    def _finish(self, job: Job, fitted: Any, output: Any, elapsed: float, cache: FitCache | None = None) -> None:
        """Record a finished fit: the new state, what was seen (conditions 3-7) and the training output
        (``fit_transform``'s, when the job asked for it); then store it in ``cache`` (recorded first: an interrupt
        while it is written to disk loses nothing)."""
        self._fitted = fitted
        self._writes = (fitted, job.writes)
        self._fit_key = job.key
        self._vector = job.how.column
        if job.how.output:
            self._output = (job.seen, from_column(output, job.values[0]) if job.how.column else output, job.how.output)
        else:
            self._output = None
        self._state += 1
        CLOCK[0] += 1
        # model type, params key, and the upstream states and source versions seen when the job was planned
        # (nothing upstream trains while a machine's job runs)
        self._snapshot = _Snapshot(type(self.model), job.params_key, *job.seen)
        self._report = {
            "action": job.action,
            "reason": job.reason,
            "fit_time": elapsed,
            "n_rows": job.n_rows,
        }
        if cache is not None and job.key is not None:
            cache.put(job.key, fitted, output)

    def _failure(self, job: Job, error: BaseException, step: str = "fit", advice: str | None = None) -> MachineFitError:
        """The error to raise when ``step`` of a training (the model's fit, the copy made to fit, sending it to
        a worker) raised ``error``; ``advice``: what to do, when the step knows. The machine keeps its last state."""
        self._report = {"action": "failed", "reason": f"{job.reason}; {step} raised {kind_name(error)}"}
        where = ", ".join(_node_labels(self)) or "no node yet"
        during = "" if step == "fit" else f"{step} raised "
        advice = install_advice(error) or advice or "fix the model or its data"
        failure = MachineFitError.wrapping(
            error,
            f"{self._title()} failed to train ({job.reason}): {during}{quoted(error)}. "
            f"Model: {_shown(self.model)}. Training arguments: {where}. "
            f"Machines trained before it stay trained; {advice} and fit again.",
            machine=self,
        )
        failure.__cause__ = error
        return failure

    def _values_failure(self, error: BaseException, node: Node | None, reason: str) -> MachineFitError:
        """The error to raise when computing the training values of this machine raised ``error`` at ``node``
        (a static node's function, say); the machine keeps its last state."""
        from wirework.graph.inspect import formulas

        at = "a node" if node is None else f"the node {formulas([node], also=[self])[0]}"
        self._report = {"action": "failed", "reason": f"its training values: {at} raised {quoted(error)}"}
        failure = MachineFitError.wrapping(
            error,
            f"{self._title()} could not train ({reason}): computing its training values, {at} raised "
            f"{quoted(error)}. Training arguments: {', '.join(_node_labels(self))}. Machines trained before it "
            "stay trained; fix that node's function or the data it gets and fit again.",
            machine=self,
        )
        failure.__cause__ = error
        return failure


def _callers_level() -> int:
    """The ``stacklevel`` of a warning issued here that points at the first caller outside wirework (the line
    that called ``fit``, whichever way the call came: a node, a machine, a composite, a thread of a pool)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "wirework":
        frame = frame.f_back
        level += 1
    return level


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


def _shown(model: Any) -> str:
    """``repr(model)``, or what it is when its ``repr`` raises (scikit-learn's reads ``get_params``)."""
    try:
        return repr(model)
    except Exception as error:
        return f"<{type(model).__name__}; its repr raised {kind_name(error)}>"


def _node_labels(machine: Machine) -> list[str]:
    from wirework.graph.inspect import formulas

    return formulas(machine.args, also=[machine])


def params_key(model: Any, found: tuple[tuple, tuple] | None = None) -> Any:
    """What condition 6 compares: the model's hyperparameters, deeply.

    Models whose parameters are all plain values (``None``, bools, ints,
    strings, floats; NaN equal to NaN) are compared by their names, types and
    values, which costs a microsecond or two; any other model (nested
    estimators, arrays, random states…) by its content token
    (:func:`model_token`). ``found``: ``param_values(model)`` when the
    caller has it.
    """
    if getattr(model, "_sklearn_output_config", None) is not None:  # set_output(...): the token covers it
        return model_token(model)
    try:
        if found is None:
            found = param_values(model)
        names, values = found if found is not None else _names_values(model.get_params(deep=False))
    except Exception:
        return model_token(model)
    kinds = tuple(map(type, values))
    if not PLAIN.issuperset(kinds):
        return model_token(model)
    if float in kinds:
        for v in values:
            if v != v:  # NaN equals NaN here
                values = tuple("nan" if v != v else v for v in values)
                break
    return (type(model), names, kinds, values)


def _names_values(params: dict[str, Any]) -> tuple[tuple[str, ...], tuple]:
    return tuple(params), tuple(params.values())


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
    nodes = tuple(_as_node(a, f"training argument {slots[i]} of ww.machine()") for i, a in enumerate(args))
    return Machine(model, nodes, name=name)
