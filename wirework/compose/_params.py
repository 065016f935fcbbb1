"""Keyword arguments of a composite's operations (``predict(X, return_std=True)``…), given to the models that run.

scikit-learn's ``Pipeline.predict(X, **params)`` hands ``params`` to its
last step's ``predict`` (also ``predict_proba`` and ``predict_log_proba``),
``StackingRegressor`` to its final estimator's and
``TransformedTargetRegressor`` to its regressor's. Its ``transform``,
``inverse_transform`` and ``decision_function`` take parameters only with
metadata routing on (without, a ``ValueError``), and its ``score`` then
routes them too (without, it ignores them). With routing on, each step gets
what it requests for the method the pipeline calls on it: the steps before
the last their ``transform`` requests (``set_transform_request``), the last
step those of the method called (``inverse_transform`` runs every step's).

A composite does the same for the model whose operation gives the output
asked for (the *target*): the output node itself when it is one machine's
operation (a pipeline's last step, a regressor stack's final estimator), or
the one under the ``inverse_transform`` of other machines that map it back
(a target transformer, a classifier's label encoder). With routing on, when
the target's input is computed from ``X`` by machines alone, one after
another (a pipeline's steps), each of those machines gets what it requests
for its operation, as scikit-learn's steps do; in any other network only the
target does. The rest of the network runs as usual. An output computed
otherwise (an average of members) has no target, and refuses parameters.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from sklearn import get_config
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping

from wirework.compose._routing import routed_params
from wirework.errors import ArgumentError, ParameterError
from wirework.graph.nodes import DynamicNode, Node, Source, StaticNode, evaluate

__all__ = ["consumer", "one_target", "run_with", "routed_input"]

#: The operations of a composite that take keyword arguments for one of its models without metadata routing, as
#: scikit-learn's ``Pipeline`` offers them.
OPERATIONS = ("predict", "predict_proba", "predict_log_proba")
#: Every operation of a composite whose keyword arguments can reach a model (with metadata routing on, those
#: besides :data:`OPERATIONS`), as scikit-learn's ``Pipeline`` routes them.
PARAM_OPERATIONS = (*OPERATIONS, "decision_function", "transform", "inverse_transform")
#: The method of a ``ww.Pipeline``'s steps before the last that each of its operations routes parameters to, with
#: metadata routing on (scikit-learn's ``Pipeline.get_metadata_routing``).
STEP_METHODS = {
    **dict.fromkeys((*OPERATIONS, "decision_function", "transform", "score"), "transform"),
    "inverse_transform": "inverse_transform",
}


def one_target(predictions: Any) -> Any:
    """A one-column prediction ``(n, 1)`` as a vector, for a target transformer's ``inverse_transform`` to give it the
    target's shape: 1-D for a 1-D target, one column for a column target (scikit-learn's
    ``TransformedTargetRegressor`` squeezes a regressor's one column when the target was 1-D). It keeps the values,
    so :func:`consumer` looks through it."""
    if getattr(predictions, "ndim", 1) == 2 and predictions.shape[1] == 1 and not hasattr(predictions, "tocsr"):
        return np.asarray(predictions).ravel()
    return predictions


def consumer(output: Node, operation: str) -> DynamicNode | None:
    """The dynamic node whose model gets ``operation``'s keyword arguments: ``output`` itself when it is a machine's
    ``operation``, or the one under the machines' ``inverse_transform`` that map it back (and :func:`one_target`);
    ``None``: no model's."""
    node = output
    while operation != "inverse_transform" and node.parents and (
        isinstance(node, DynamicNode) and node.operation == "inverse_transform"
        or isinstance(node, StaticNode) and node.function is one_target
    ):
        node = node.parents[0]
    if isinstance(node, DynamicNode) and node.operation == operation:
        return node
    return None


def run_with(owner: str, output: Node, X: Source, data: Any, operation: str, params: dict[str, Any]) -> Any:
    """``output``'s value on ``data`` (given to source ``X``), its model's ``operation`` called with ``params``
    (with metadata routing on, the models before it too: see :func:`routed_input`).

    Raises
    ------
    ArgumentError
        As :func:`routed_input`; also when the model returned several values
        (``return_std=True``) that another machine would have to map back.
    ParameterError, UnsetRequestError
        As :func:`routed_input`.
    """
    target, value, given, memo, overrides = routed_input(owner, operation, output, operation, X, data, params)
    value = target.machine._apply(operation, value, given)
    if target is output:
        return value
    if isinstance(value, tuple):  # return_std=True, return_cov=True: a mean and its uncertainty
        model = target.machine.fitted_model
        name = target.machine.name or type(model).__name__
        raise ArgumentError(
            f"{owner}.{operation} got {_received(params)}, with which {name} ({type(model).__name__}).{operation} "
            f"returns {len(value)} values, but its {operation} output maps that model's value back "
            f"({output.machine._title()}.inverse_transform), which takes one. Call {operation}(X) without them, "
            f"or the trained model itself: fitted_params_()[{name!r}].{operation}(...) on its input."
        )
    memo[target] = value
    return evaluate(output, memo, overrides)


def routed_input(
    owner: str, caller: str, output: Node, operation: str, X: Source, data: Any, params: dict[str, Any]
) -> tuple[DynamicNode, Any, dict[str, Any], dict, dict]:
    """Where ``params`` of the composite's ``caller`` go: the target (the node of ``output`` whose model's
    ``operation`` gives it, see :func:`consumer`), its input's value on ``data``, and the parameters its model's
    ``caller`` method gets (``score`` for a classifier's ``score``, which scores the ``predict`` output's model;
    else ``operation`` itself); also the values computed (``memo``) and the ``overrides`` giving ``data`` to ``X``.

    Without metadata routing the target gets ``params`` (the operations of
    :data:`OPERATIONS` only); with it, each model gets what it requests:
    the target for ``caller``, and when its input comes from ``X`` through
    machines alone, one after another, each of those for its own operation.

    Raises
    ------
    ParameterError
        Routing off, and ``caller`` takes parameters only with it (a
        ``ValueError``, as scikit-learn's ``Pipeline`` raises).
    ArgumentError
        No model's ``operation`` gives the output; the target's method
        takes no such parameter; with routing on, a parameter no model
        requests.
    UnsetRequestError
        With routing on, a parameter a model neither requests nor declines
        (scikit-learn's ``UnsetMetadataPassedError``).
    """
    routing = get_config()["enable_metadata_routing"]
    if not routing and caller not in OPERATIONS:
        raise ParameterError(_routing_only(owner, caller, params))
    target = consumer(output, operation)
    if target is None:
        raise ArgumentError(
            f"{owner}.{caller} got {_received(params)}, but its {operation} output is not one model's {operation} "
            f"({output!r}), so no model can take them. Call {caller}(X) without them."
        )
    chain = _chain(target.parents[0], X) if routing else []
    routes = [(node, node.operation) for node in chain or ()] + [(target, caller)]
    given = _routed(owner, caller, routes, params, chain is not None) if routing else {target: params}
    for node, method in routes:
        _check_takes(owner, caller, node.machine, method, given.get(node), params)
    memo: dict = {}
    overrides = {X: data}
    for node in chain or ():
        if given[node]:  # computed with its parameters; the others as usual
            memo[node] = node.machine._apply(node.operation, evaluate(node.parents[0], memo, overrides), given[node])
    return target, evaluate(target.parents[0], memo, overrides), given[target], memo, overrides


def _chain(node: Node, X: Source) -> list[DynamicNode] | None:
    """The machines' nodes from ``X`` up to ``node``, in that order, when ``node`` is computed from ``X`` by
    machines alone, one after another (a pipeline's steps); ``None`` when it is not."""
    nodes = []
    while node is not X:
        if not isinstance(node, DynamicNode) or len(node.parents) != 1:
            return None
        nodes.append(node)
        node = node.parents[0]
    if len({id(n.machine) for n in nodes}) != len(nodes):  # a machine twice: one name per model in a router
        return None
    return nodes[::-1]


def _routed(
    owner: str, caller: str, routes: list[tuple[DynamicNode, str]], params: dict[str, Any], chained: bool
) -> dict[DynamicNode, dict[str, Any]]:
    """The parameters each node's model gets for its method, as scikit-learn's routing gives them: those it
    requests (``set_predict_request``, ``set_transform_request``…), as scikit-learn's ``Pipeline`` routes them to
    its steps. ``chained``: whether ``routes`` holds every model the target's input goes through (else the
    target's alone, which the error says)."""
    router = MetadataRouter(owner=owner)
    names = {}
    for node, method in routes:
        mach = node.machine
        name = names[node] = mach.name or type(mach.fitted_model).__name__
        router.add(**{name: mach.fitted_model}, method_mapping=MethodMapping().add(caller=caller, callee=method))
    keys = ", ".join(f"{key}=True" for key in sorted(params))
    call = "score(X, y)" if caller == "score" else f"{caller}(X)"
    where = [  # the models that can request these metadata for their method, the target first
        f"{names[node]} ({type(node.machine.fitted_model).__name__}): set_{method}_request({keys})"
        for node, method in reversed(routes)
        if _can_request(node.machine.fitted_model, method, params)
    ]
    advice = (
        f"Request it on {where[0]}{''.join(f', or on {w}' for w in where[1:])}; or call {call} without it."
        if where
        else f"None of the models it routes to takes metadata there: call {call} without it."
    )
    if not chained:
        advice += (
            f" Only the model whose {routes[-1][0].operation} gives the output gets parameters here: its input is "
            "not computed from X by models alone, one after another, as a pipeline's steps."
        )
    routed = routed_params(router, caller, params, advice)  # declined by every model, or taken by none: the advice
    return {node: dict(routed[names[node]][method]) for node, method in routes}


def _can_request(model: Any, method: str, params: dict[str, Any]) -> bool:
    """Whether ``model`` has ``set_<method>_request`` taking every key of ``params`` (a ``StandardScaler``'s
    ``set_transform_request`` takes ``copy`` only)."""
    setter = getattr(model, f"set_{method}_request", None)
    if setter is None:
        return False
    try:
        return set(params) <= set(inspect.signature(setter).parameters)
    except (TypeError, ValueError):  # no signature to read: it may take them
        return True


def _routing_only(owner: str, caller: str, params: dict[str, Any]) -> str:
    """The refusal of ``caller``'s parameters with metadata routing off: scikit-learn's ``Pipeline``'s words."""
    if caller == "score":  # scikit-learn's Pipeline.score ignores them then, silently
        return (
            f"{owner}.score got {_received(params)}, which it routes to its models' score and transform only "
            "with scikit-learn's metadata routing on (scikit-learn's Pipeline.score ignores them without it). "
            "Set sklearn.set_config(enable_metadata_routing=True) and request them on the models, or call "
            "score(X, y) without them."
        )
    return (
        f"Passing extra keyword arguments to {owner}.{caller} is only supported if enable_metadata_routing=True, "
        "which you can set using `sklearn.set_config`. See the User Guide "
        "<https://scikit-learn.org/stable/metadata_routing.html> for more details. Extra parameters passed are: "
        f"{set(params)}"
    )


def _received(params: dict[str, Any]) -> str:
    return ", ".join(f"{key}=..." for key in sorted(params))


def _check_takes(owner: str, caller: str, mach: Any, method: str, given: Any, params: dict[str, Any]) -> None:
    """Refuse parameters the model's ``method`` does not name (unless it takes any: ``**kwargs``)."""
    if not given:
        return
    model = mach.fitted_model
    try:
        signature = inspect.signature(getattr(model, method))
    except (TypeError, ValueError):  # no signature to read (a builtin): the call itself will tell
        return
    parameters = signature.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return
    named = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    unknown = sorted(set(given) - named)
    if unknown:
        name = mach.name or type(model).__name__
        raise ArgumentError(
            f"{owner}.{caller} got {_received(params)} for {name} ({type(model).__name__}), whose {method} takes "
            f"no {', '.join(unknown)}. Call {caller}(X) without {'it' if len(unknown) == 1 else 'them'}."
        )
