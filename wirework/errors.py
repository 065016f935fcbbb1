"""The exception and warning hierarchy of wirework.

Every error the library raises on purpose is a :class:`WireworkError`, and
also the builtin exception a user would naturally catch, so both
``except ww.GraphError`` and ``except ValueError`` work.
"""

from __future__ import annotations

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
    "ExportError",
    "WireworkWarning",
    "FrozenMachineWarning",
    "FitCacheWarning",
]


class WireworkError(Exception):
    """Root of every error raised on purpose by wirework."""


class GraphError(WireworkError, ValueError):
    """A learning network is malformed or used in a way its shape forbids.

    Raised for disconnected or ambiguous sources, an operation called with the
    wrong number of nodes, a machine with the wrong number of training
    arguments, or an operation the model does not provide.
    """


class NotTrainedError(WireworkError, NotFittedError):
    """A machine's (or composite's) learned state was requested before training.

    Also scikit-learn's ``NotFittedError``, hence ``ValueError`` and ``AttributeError``.
    """


class DataError(WireworkError, ValueError):
    """Data flowing through a network is inconsistent (for example, training
    arguments with different numbers of rows, or a source holding no data)."""


class ArgumentError(WireworkError, TypeError):
    """An argument is neither a node nor data a network can hold."""


class ParameterError(WireworkError, ValueError):
    """``set_params`` got a name the estimator does not have, or nested into something without parameters;
    or a setting (``set_output``, say) got a value it does not take."""


class UnsetRequestError(WireworkError, UnsetMetadataPassedError):
    """With scikit-learn's metadata routing on, a composite got weights that one of its components neither
    requests nor declines (its ``set_fit_request`` was never called).

    scikit-learn's own error for this (``UnsetMetadataPassedError``, a
    ``ValueError``), with its message: call the component's
    ``set_fit_request(sample_weight=True)`` or ``(sample_weight=False)``.
    """

    def __reduce__(self):
        return (_unset_request_error, (str(self), self.unrequested_params, self.routed_params))


def _unset_request_error(message: str, unrequested_params: dict, routed_params: dict) -> UnsetRequestError:
    return UnsetRequestError(message=message, unrequested_params=unrequested_params, routed_params=routed_params)


class StorageError(WireworkError, OSError):
    """A path cannot hold what was asked: a directory where a file is wanted (or the reverse), a directory
    that does not exist, or the system refused to write (the system's error is chained as the cause)."""


class ClusterError(WireworkError, OSError):
    """A Dask cluster cannot be reached: its scheduler's address does not answer (the system's or Dask's error
    is chained as the cause)."""


class UnavailableError(WireworkError, AttributeError):
    """A trained network cannot give what was asked of it: the names of output columns that no machine
    names (``get_feature_names_out``), for instance. An ``AttributeError``, as scikit-learn raises there."""


class LazyNodeError(WireworkError, TypeError):
    """An eager question (truth value, length, iteration) was asked of a lazy node."""


class _MachineError(WireworkError, RuntimeError):
    """A model raised inside a machine; ``machine`` is that machine, the model's error the ``__cause__``."""

    def __init__(self, message: str, *, machine: object = None) -> None:
        super().__init__(message)
        self.machine = machine

    @classmethod
    def wrapping(cls, cause: BaseException, message: str, *, machine: object = None) -> _MachineError:
        """An error of this class that is also every builtin class ``cause`` is.

        A ``ValueError`` raised by a model becomes an error that
        ``except ValueError`` and ``except ww.MachineFitError`` (or
        ``ww.MachineApplyError``) both catch.
        """
        builtins = [
            k
            for k in type(cause).__mro__
            if k.__module__ == "builtins" and k not in (BaseException, Exception, object, RuntimeError)
        ]
        bases = tuple(k for k in builtins if not any(o is not k and issubclass(o, k) for o in builtins))
        if not bases:
            return cls(message, machine=machine)
        variant = _VARIANTS.get((cls, bases))
        if variant is None:  # named for both, MachineApplyError[ValueError] (messages say MachineApplyError: kind_name)
            name = f"{cls.__name__}[{', '.join(k.__name__ for k in bases)}]"
            namespace = {"__module__": cls.__module__, "__qualname__": name, "_public": cls}
            try:
                variant = type(name, (cls, *bases), namespace)
            except TypeError:  # a builtin whose instance layout cannot be combined
                variant = cls
            _VARIANTS[(cls, bases)] = variant
        return variant(message, machine=machine)

    __str__ = BaseException.__str__  # the message as given, not quoted as a KeyError variant would show it

    def __reduce__(self):
        return (type(self).__dict__.get("_public", type(self)), (str(self),))


class MachineFitError(_MachineError):
    """A model raised while a machine was training it.

    The original exception is chained as ``__cause__``; ``machine`` is the
    machine that failed. Machines that finished training before the failure
    stay trained, so the next ``fit`` resumes from there.
    """


class MachineApplyError(_MachineError):
    """A trained model raised while a machine applied one of its operations (``predict``, ``transform``…).

    The original exception is chained as ``__cause__`` and ``machine`` is
    the machine; the error is also of the original's builtin class (a
    ``ValueError`` stays a ``ValueError``). Nothing is changed: the machine
    stays trained as it was.
    """


_VARIANTS: dict[tuple[type, tuple[type, ...]], type] = {}


class ExportError(WireworkError, ValueError):
    """A model, split kind or operation cannot be exported to ONNX exactly.

    The message names what was received (the estimator class, the node, the
    split kind) and what to do instead. The exporter never falls back to an
    approximation silently.
    """


class WireworkWarning(UserWarning):
    """Root of every warning issued by wirework."""


class FrozenMachineWarning(WireworkWarning):
    """A frozen machine was skipped although its retraining rules asked for training."""


class FitCacheWarning(WireworkWarning):
    """A fit cache could not store or read an entry; the fit went on without it (nothing is lost)."""


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
