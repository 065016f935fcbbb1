"""The retraining rules of a machine, and how a fit pass plans, records and reports its training.

:class:`_Retraining` is a base class of :class:`~wirework.graph.machines.Machine`:
a fit pass's visit (``_plan``) decides by the numbered retraining conditions
(``_decide``; see ``Machine``'s docstring), computes the training values and
returns the job to run, or ``None``; ``_finish`` records a finished fit, and
``_failure`` and ``_values_failure`` make the errors of a training that
raised. Also :func:`params_key` (what condition 6 compares) and the snapshot
of what a machine saw at its last training. The machine itself (its public
API, operations and prediction) is in :mod:`wirework.graph.machines`, which
re-exports these names.
"""

from __future__ import annotations

import copy
import math
import operator
import sys
import warnings
from typing import TYPE_CHECKING, Any, NamedTuple

from sklearn.base import clone

from wirework.errors import (
    DataError,
    FitCacheWarning,
    FrozenMachineWarning,
    MachineFitError,
    WireworkError,
    install_advice,
    kind_name,
    quoted,
)
from wirework.graph._params import param_values, shallow_params
from wirework.graph.data import n_rows
from wirework.graph.fingerprint import model_token, tokenize
from wirework.graph.jobs import (
    PLAIN,
    How,
    Job,
    copy_output_config,
    fresh_copy,
    from_column,
    trains_by_fit_transform,
    training_method,
    wants_column,
)
from wirework.graph.kept import copied, holds_values, writes_in_place
from wirework.graph.topology import CLOCK, stamps, state_of, version_of

if TYPE_CHECKING:  # pragma: no cover
    from wirework.graph.cache import FitCache
    from wirework.graph.machines import Machine
    from wirework.graph.nodes import Node
    from wirework.graph.training import FitPass

__all__ = ["params_key"]


#: What a visit reports when it leaves a machine alone (shared: the same words every time).
_SKIPPED: dict[str, str] = {"action": "skipped", "reason": "no retraining condition holds"}


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

# pickles name the machine's module, where it always was
_Snapshot.__module__ = "wirework.graph.machines"


class _Retraining:
    """The retraining rules and a fit pass's visit of a :class:`~wirework.graph.machines.Machine` (its base)."""

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
            cached = None if force else run.cache.get(job.key, with_output=how.output, kind=type(self.model))
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
        # after the cache's key: fingerprints of the values themselves; values pickled to a worker process are
        # copied by pickling, so the copy made here would be a second one
        if job.writes and not run.values_pickled:
            job.values = list(map(copied, values))
        return job

    def _finish(self, job: Job, fitted: Any, output: Any, elapsed: float, cache: FitCache | None = None) -> None:
        """Record a finished fit: the new state, what was seen (conditions 3-7) and the training output
        (``fit_transform``'s, when the job asked for it); then store it in ``cache`` (recorded first: an interrupt
        while it is written to disk loses nothing). An in-memory cache keeps the very objects: a fit or output that
        holds its training data (``KNeighborsRegressor``) is copied first, so that an edit of that data in place
        afterwards does not change the entry (nor the machine)."""
        if cache is not None and job.key is not None and cache.location is None:
            fitted, output, cache = _apart(fitted, output, job.values, cache)
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


def _apart(fitted: Any, output: Any, values: list[Any], cache: FitCache) -> tuple[Any, Any, FitCache | None]:
    """``fitted`` and ``output`` as an in-memory ``cache`` may keep them (it keeps the very objects): copies when
    they hold their training ``values`` (or their memory), so that the caller editing its data in place does not
    change the entry; the cache is ``None`` (not stored, with a warning) when they cannot be copied."""
    try:
        if holds_values(fitted, values):
            fitted = copy.deepcopy(fitted)
        if output is not None and holds_values(output, values):
            output = copied(output)
    except Exception as error:  # a model deepcopy refuses: kept, not cached
        warnings.warn(
            f"FitCache did not store a fitted {type(fitted).__name__}: it keeps its training data, and copying it "
            f"(so that the entry stays as trained if that data is changed in place) raised {quoted(error)}. The fit "
            "is kept, but not cached.",
            FitCacheWarning,
            stacklevel=_callers_level(),
        )
        return fitted, output, None
    return fitted, output, cache


def _callers_level() -> int:
    """The ``stacklevel`` of a warning issued here that points at the first caller outside wirework (the line
    that called ``fit``, whichever way the call came: a node, a machine, a composite, a thread of a pool)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "wirework":
        frame = frame.f_back
        level += 1
    return level

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
    strings, floats; NaN equal to NaN, ``-0.0`` not equal to ``0.0``) are
    compared by their names, types and values, which costs a microsecond or two; any other model (nested
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
            if v != v or (v == 0.0 and type(v) is float and math.copysign(1.0, v) < 0):
                values = tuple(map(_plain_key, values))
                break
    return (type(model), names, kinds, values)


def _plain_key(value: Any) -> Any:
    """``value`` as :func:`params_key` compares it: NaN equal to NaN, ``-0.0`` not equal to ``0.0`` (as tokens)."""
    if type(value) is float:
        if value != value:
            return "nan"
        if value == 0.0 and math.copysign(1.0, value) < 0:
            return "-0.0"
    return value


def _names_values(params: dict[str, Any]) -> tuple[tuple[str, ...], tuple]:
    return tuple(params), tuple(params.values())
