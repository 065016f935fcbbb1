"""The exception and warning hierarchy of wirework.

Every error the library raises on purpose is a :class:`WireworkError`, and
also the builtin exception a user would naturally catch, so both
``except ww.GraphError`` and ``except ValueError`` work.
"""

from __future__ import annotations

from typing import Any

from sklearn.exceptions import NotFittedError, UnsetMetadataPassedError

__all__ = [
    "WireworkError",
    "GraphError",
    "NotTrainedError",
    "DataError",
    "ArgumentError",
    "ParameterError",
    "UnsetRequestError",
    "StorageError",
    "ClusterError",
    "UnavailableError",
    "LazyNodeError",
    "MachineFitError",
    "MachineApplyError",
    "NodeApplyError",
    "ExportError",
    "WireworkWarning",
    "FrozenMachineWarning",
    "FitCacheWarning",
    "PrecisionWarning",
]


class WireworkError(Exception):
    """Root of every error raised on purpose by wirework.

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> try:
    ...     ww.machine(Ridge, [[0.0], [1.0]], [0.0, 1.0])   # the class, not a model
    ... except ww.WireworkError as error:
    ...     print(type(error).__name__, isinstance(error, TypeError))
    ArgumentError True
    """


class GraphError(WireworkError, ValueError):
    """A learning network is malformed or used in a way its shape forbids.

    Raised for disconnected or ambiguous sources, an operation called with the
    wrong number of nodes, a machine with the wrong number of training
    arguments, or an operation the model does not provide.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.preprocessing import StandardScaler
    >>> X = ww.source(np.eye(3), name="X")
    >>> ww.machine(StandardScaler(), X).predict(X)
    Traceback (most recent call last):
        ...
    wirework.errors.GraphError: StandardScaler has no predict() (in Machine (StandardScaler)). Operations it offers: transform, inverse_transform.
    >>> issubclass(ww.GraphError, ValueError)
    True
    """


class NotTrainedError(WireworkError, NotFittedError):
    """A machine's (or composite's) learned state was requested before training.

    Also scikit-learn's ``NotFittedError``, hence ``ValueError`` and ``AttributeError``.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> ww.machine(Ridge(), np.eye(3), np.arange(3.0)).fitted_model
    Traceback (most recent call last):
        ...
    wirework.errors.NotTrainedError: Machine (Ridge) has not been trained yet. Call fit() on a node downstream of it, or on the machine.
    """


class DataError(WireworkError, ValueError):
    """Data flowing through a network is inconsistent (for example, training
    arguments with different numbers of rows, or a source holding no data).

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> ww.machine(Ridge(), np.eye(3), np.arange(4.0)).fit()
    Traceback (most recent call last):
        ...
    wirework.errors.DataError: The training arguments of Machine (Ridge) have different numbers of rows: X has 3, y has 4. ...
    """


class ArgumentError(WireworkError, TypeError):
    """An argument is neither a node nor data a network can hold.

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> ww.machine(Ridge, [[0.0], [1.0]], [0.0, 1.0])
    Traceback (most recent call last):
        ...
    wirework.errors.ArgumentError: Expected a model instance. Received the class Ridge; pass an instance, Ridge().
    """


class ParameterError(WireworkError, ValueError):
    """``set_params`` got a name the estimator does not have, or nested into something without parameters;
    or a setting (``set_output``, say) got a value it does not take; or a composite's ``transform`` (also
    ``inverse_transform``, ``decision_function``, ``score``) got keyword parameters, which it takes only with
    scikit-learn's metadata routing on.

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> ww.Pipeline([("ridge", Ridge())]).set_params(ridge__alpah=1.0)
    Traceback (most recent call last):
        ...
    wirework.errors.ParameterError: Invalid parameter ridge__alpah for Pipeline: 'ridge' holds sklearn.Ridge Ridge(), whose parameters are ['alpha', ...].
    """


class UnsetRequestError(WireworkError, UnsetMetadataPassedError):
    """With scikit-learn's metadata routing on, a composite got weights (or parameters of ``predict``) that one of
    its components neither requests nor declines (its ``set_fit_request``, or ``set_predict_request``, was never
    called).

    scikit-learn's own error for this (``UnsetMetadataPassedError``, a
    ``ValueError``), with its message: call the component's
    ``set_fit_request(sample_weight=True)`` or ``(sample_weight=False)``.

    Examples
    --------
    >>> import numpy as np
    >>> import sklearn
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> X, y, weights = np.eye(4), np.arange(4.0), np.ones(4)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     try:
    ...         ww.Average([("a", Ridge()), ("b", Ridge())]).fit(X, y, sample_weight=weights)
    ...     except ValueError as error:
    ...         print(type(error).__name__)
    UnsetRequestError
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     ridge = Ridge().set_fit_request(sample_weight=True)
    ...     ww.Average([("a", ridge), ("b", ridge)]).fit(X, y, sample_weight=weights).predict(X[:1]).round(3)
    array([0.75])
    """

    def __reduce__(self):
        return (_unset_request_error, (str(self), self.unrequested_params, self.routed_params))


def _unset_request_error(message: str, unrequested_params: dict, routed_params: dict) -> UnsetRequestError:
    return UnsetRequestError(message=message, unrequested_params=unrequested_params, routed_params=routed_params)


class StorageError(WireworkError, OSError):
    """A path cannot hold what was asked: a directory where a file is wanted (or the reverse), a directory
    that does not exist, or the system refused to write (the system's error is chained as the cause).

    Examples
    --------
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> ww.save_onnx(Ridge(), "no_such_directory/model.onnx")
    Traceback (most recent call last):
        ...
    wirework.errors.StorageError: save_onnx cannot write 'no_such_directory/model.onnx': the directory 'no_such_directory' does not exist. Create it first.
    >>> issubclass(ww.StorageError, OSError)
    True
    """


class ClusterError(WireworkError, OSError):
    """A Dask cluster cannot be reached: its scheduler's address does not answer (the system's or Dask's error
    is chained as the cause).

    Examples
    --------
    >>> import dask
    >>> import distributed   # loads its settings: ones first loaded inside dask.config.set are dropped at its end
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> far = ww.DaskExecutor(address="tcp://127.0.0.1:1")   # nothing listens there
    >>> with dask.config.set({"distributed.comm.timeouts.connect": "0.5s"}):
    ...     ww.machine(Ridge(), np.eye(3), np.arange(3.0)).fit(executor=far, verbose=0)
    Traceback (most recent call last):
        ...
    wirework.errors.ClusterError: executor=DaskExecutor(address='tcp://127.0.0.1:1') could not reach a Dask scheduler there: ...
    >>> issubclass(ww.ClusterError, OSError)
    True
    """


class UnavailableError(WireworkError, AttributeError):
    """A trained network cannot give what was asked of it: the names of output columns that no machine
    names (``get_feature_names_out``), for instance. An ``AttributeError``, as scikit-learn raises there.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.base import TransformerMixin
    >>> from sklearn.preprocessing import StandardScaler
    >>> class Doubled(TransformerMixin, ww.Composite):
    ...     def __init__(self, scaler=None):
    ...         self.scaler = scaler
    ...     def network(self, X, y=None):   # the output is a static node, not a machine's
    ...         return ww.Signature(transform=2 * ww.machine(self.scaler, X).transform(X))
    >>> Doubled(StandardScaler()).fit(np.eye(3)).get_feature_names_out()
    Traceback (most recent call last):
        ...
    wirework.errors.UnavailableError: Doubled.get_feature_names_out cannot name the columns of (2 * transform(m1, X)): ...
    """


class LazyNodeError(WireworkError, TypeError):
    """An eager question (truth value, length, iteration) was asked of a lazy node.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> X = ww.source(np.eye(2), name="X")
    >>> len(X)
    Traceback (most recent call last):
        ...
    wirework.errors.LazyNodeError: A node is lazy and has no length until it is called. Received a request for the length of X. ...
    >>> len(X())
    2
    """


class _WrappingError(WireworkError, RuntimeError):
    """Code wirework ran (a model, a node's function) raised; the original is the ``__cause__``."""

    @classmethod
    def wrapping(cls, cause: BaseException, message: str, **context: Any) -> _WrappingError:
        """An error of this class that is also every builtin class ``cause`` is.

        A ``ValueError`` raised by a model becomes an error that
        ``except ValueError`` and ``except ww.MachineFitError`` (or
        ``ww.MachineApplyError``, ``ww.NodeApplyError``) both catch.
        ``context``: the keyword arguments of the class (``machine=``, ``node=``).
        """
        builtins = [
            k
            for k in type(cause).__mro__
            if k.__module__ == "builtins" and k not in (BaseException, Exception, object, RuntimeError)
        ]
        bases = tuple(k for k in builtins if not any(o is not k and issubclass(o, k) for o in builtins))
        if not bases:
            return cls(message, **context)
        variant = _VARIANTS.get((cls, bases))
        if variant is None:  # named for both, MachineApplyError[ValueError] (messages say MachineApplyError: kind_name)
            name = f"{cls.__name__}[{', '.join(k.__name__ for k in bases)}]"
            namespace = {"__module__": cls.__module__, "__qualname__": name, "_public": cls}
            try:
                variant = type(name, (cls, *bases), namespace)
            except TypeError:  # a builtin whose instance layout cannot be combined
                variant = cls
            _VARIANTS[(cls, bases)] = variant
        return variant(message, **context)

    __str__ = BaseException.__str__  # the message as given, not quoted as a KeyError variant would show it

    def __reduce__(self):
        return (type(self).__dict__.get("_public", type(self)), (str(self),))


class _MachineError(_WrappingError):
    """A model raised inside a machine; ``machine`` is that machine, the model's error the ``__cause__``."""

    def __init__(self, message: str, *, machine: object = None) -> None:
        super().__init__(message)
        self.machine = machine


class MachineFitError(_MachineError):
    """A model raised while a machine was training it.

    The original exception is chained as ``__cause__``; ``machine`` is the
    machine that failed. Machines that finished training before the failure
    stay trained, so the next ``fit`` resumes from there. With
    ``fit(on_error="continue")`` and several failures, one error lists them
    all and ``failures`` holds each machine's error, in training order.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> X, y = np.array([[0.0], [np.nan]]), np.array([0.0, 1.0])
    >>> try:
    ...     ww.machine(Ridge(), X, y).fit()
    ... except ww.MachineFitError as error:
    ...     print(isinstance(error, ValueError), type(error.__cause__).__name__)
    ...     print(error)
    True ValueError
    Machine (Ridge) failed to train (condition 1: never trained): ValueError: Input X contains NaN...
    """


class MachineApplyError(_MachineError):
    """A trained model raised while a machine applied one of its operations (``predict``, ``transform``…).

    The original exception is chained as ``__cause__`` and ``machine`` is
    the machine; the error is also of the original's builtin class (a
    ``ValueError`` stays a ``ValueError``). Nothing is changed: the machine
    stays trained as it was.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> X = ww.source(np.array([[0.0], [1.0]]), name="X")
    >>> yhat = ww.machine(Ridge(), X, np.array([0.0, 1.0])).predict(X).fit()
    >>> try:
    ...     yhat(np.array([[np.nan]]))
    ... except ww.MachineApplyError as error:
    ...     print(isinstance(error, ValueError))
    ...     print(error)
    True
    Machine (Ridge) failed in predict() on numpy.ndarray of shape (1, 1): ValueError: Input X contains NaN...
    >>> yhat(np.array([[1.0]])).round(3)   # still trained
    array([0.667])
    """


class NodeApplyError(_WrappingError):
    """A static node's function raised while a node was called (``node()``, ``node(X_new)``, a composite's
    ``predict``…).

    ``node`` is the static node whose function raised (its formula is in the
    message), the original exception is chained as ``__cause__``, and the
    error is also of the original's builtin class (a ``ValueError`` stays a
    ``ValueError``). In a fit pass the same failure is the
    :class:`MachineFitError` of the machine that needed the value.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> def first_rows(x):
    ...     if len(x) < 2:
    ...         raise ValueError("too few rows")
    ...     return x[:2]
    >>> X = ww.source(np.zeros((3, 1)), name="X")
    >>> head = ww.node(first_rows, X)
    >>> try:
    ...     head(np.zeros((1, 1)))
    ... except ww.NodeApplyError as error:
    ...     print(isinstance(error, ValueError), type(error.__cause__).__name__)
    True ValueError
    """

    def __init__(self, message: str, *, node: object = None) -> None:
        super().__init__(message)
        self.node = node


_VARIANTS: dict[tuple[type, tuple[type, ...]], type] = {}


class ExportError(WireworkError, ValueError):
    """A model, split kind or operation cannot be exported to ONNX exactly.

    The message names what was received (the estimator class, the node, the
    split kind) and what to do instead. The exporter never falls back to an
    approximation silently.

    Examples
    --------
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.neighbors import KNeighborsRegressor
    >>> ww.to_onnx(KNeighborsRegressor(n_neighbors=1).fit(np.eye(2), [0.0, 1.0]))
    Traceback (most recent call last):
        ...
    wirework.errors.ExportError: KNeighborsRegressor cannot be exported exactly: ...
    """


class WireworkWarning(UserWarning):
    """Root of every warning issued by wirework.

    Examples
    --------
    >>> import warnings
    >>> import wirework as ww
    >>> issubclass(ww.FrozenMachineWarning, ww.WireworkWarning), issubclass(ww.WireworkWarning, UserWarning)
    (True, True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", ww.WireworkWarning)   # silences every wirework warning
    """


class FrozenMachineWarning(WireworkWarning):
    """A frozen machine was skipped although its retraining rules asked for training.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.linear_model import Ridge
    >>> y = ww.source(np.arange(3.0), name="y")
    >>> ridge = ww.machine(Ridge(), np.eye(3), y)
    >>> ridge.fit().freeze()
    machine(Ridge(), s1, y)
    >>> y.data = np.arange(3.0) + 1   # condition 4, but the machine is frozen
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = ridge.fit()
    >>> [warning.category.__name__ for warning in caught], ridge.report()["action"]
    (['FrozenMachineWarning'], 'frozen')
    """


class FitCacheWarning(WireworkWarning):
    """A fit cache could not store or read an entry; the fit went on without it (nothing is lost).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import wirework as ww
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> cache = ww.FitCache(max_bytes=10**6)   # measures each fit by pickling it
    >>> doubling = FunctionTransformer(lambda x: 2 * x)   # a lambda cannot be pickled
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = ww.machine(doubling, np.eye(2)).fit(cache=cache)
    >>> [warning.category.__name__ for warning in caught], cache.misses
    (['FitCacheWarning'], 1)
    """


class PrecisionWarning(WireworkWarning):
    """An export is known to give some inputs other values than the native model.

    A float32 file compares the float32 value of each input; a model that
    compares the float64 value (HistGradientBoosting, whose thresholds are
    often training values) can then send a row holding such a value the
    other way. It is raised when such a threshold rounds up in float32 and
    the model was trained on more rows than its ``max_bins`` (trained on
    fewer, every threshold lies between two training values).
    ``dtype="float64"`` exports reproduce the native predictions.

    A ``LocalOutlierFactor`` whose training rows have neighbours at equal
    distances raises it too: among such rows the file and scikit-learn's
    search may take different neighbours.

    Examples
    --------
    >>> import warnings
    >>> import wirework as ww
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = ww.to_onnx(model, dtype="float32")
    >>> [warning.category.__name__ for warning in caught]
    ['PrecisionWarning']
    """


#: How much of another library's error message a wirework message quotes (the whole is its ``__cause__``).
QUOTED_LENGTH = 500


def brief(error: BaseException) -> str:
    """The message of ``error`` for a wirework message, without its final period; a long one is cut at a word.

    Some messages carry their data (scikit-learn's "Expected 2D array, got 1D
    array instead: array=[...]" lists every value); the error quoting it
    chains the original as ``__cause__``, so nothing is lost.
    """
    message = str(error).rstrip(".")
    if len(message) > QUOTED_LENGTH:
        cut = message[:QUOTED_LENGTH].rsplit(None, 1)[0].rstrip(",;:")
        message = f"{cut} … ({len(message)} characters; the whole message is this error's cause)"
    return message


def missing_package(error: BaseException) -> str | None:
    """Whether ``error`` says a package is missing: the top-level name of the module that an ``ImportError``
    (or the ``ImportError`` it was raised from, as scikit-learn's "requires polars to be installed") could not
    import, ``""`` when it does not name one; ``None`` for any other error."""
    if not isinstance(error, ImportError):
        return None
    seen: BaseException | None = error
    while isinstance(seen, ImportError):
        if seen.name:
            return seen.name.partition(".")[0]
        seen = seen.__cause__ or seen.__context__
    return ""


def install_advice(error: BaseException) -> str | None:
    """What to do about an ``error`` that says a package is missing (``None``: it does not)."""
    package = missing_package(error)
    if package is None:
        return None
    what = f"install {package}" if package else "install the package it names"
    instead = ": another set_output container, say" if "output container" in str(error) else ""
    return f"{what} (or configure the model not to need it{instead})"


def kind_name(error: BaseException) -> str:
    """The name of ``error``'s class for a message: a machine error's public class (``MachineApplyError``, not
    the ``MachineApplyError[ValueError]`` that is also the builtin)."""
    kind = type(error)
    return kind.__dict__.get("_public", kind).__name__


def quoted(error: BaseException) -> str:
    """``"<class>: <message>"`` of ``error`` (the class as :func:`kind_name` names it), the message as
    :func:`brief` gives it."""
    return f"{kind_name(error)}: {brief(error)}"
