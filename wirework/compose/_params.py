"""Keyword arguments of a composite's ``predict`` (``return_std=True``…), given to the model that predicts.

scikit-learn's ``Pipeline.predict(X, **params)`` hands ``params`` to its
last step's ``predict`` (also ``predict_proba`` and ``predict_log_proba``),
``StackingRegressor`` to its final estimator's and
``TransformedTargetRegressor`` to its regressor's; with its metadata
routing on, only what that model requests (``set_predict_request``). A
composite does the same for the model whose operation gives the output
asked for: the output node itself when it is one machine's operation (a
pipeline's last step, a regressor stack's final estimator), or the one
under the ``inverse_transform`` of other machines that map it back (a
target transformer, a classifier's label encoder). The rest of the network
then runs on that model's value as usual. An output computed otherwise (an
average of members) has no such model, and refuses parameters.
"""

from __future__ import annotations

import inspect
from typing import Any

from sklearn import get_config
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping

from wirework.compose._routing import routed_params
from wirework.errors import ArgumentError
from wirework.graph.nodes import DynamicNode, Node, Source, evaluate

__all__ = ["consumer", "run_with"]

#: The operations of a composite that take keyword arguments for one of its models, as scikit-learn's
#: ``Pipeline`` offers them without metadata routing.
OPERATIONS = ("predict", "predict_proba", "predict_log_proba")


def consumer(output: Node, operation: str) -> DynamicNode | None:
    """The dynamic node whose model gets ``operation``'s keyword arguments: ``output`` itself when it is a machine's
    ``operation``, or the one under the machines' ``inverse_transform`` that map it back; ``None``: no model's."""
    node = output
    while isinstance(node, DynamicNode) and node.operation == "inverse_transform" and node.parents:
        node = node.parents[0]
    if isinstance(node, DynamicNode) and node.operation == operation:
        return node
    return None


def run_with(owner: str, output: Node, X: Source, data: Any, operation: str, params: dict[str, Any]) -> Any:
    """``output``'s value on ``data`` (given to source ``X``), its model's ``operation`` called with ``params``.

    Raises
    ------
    ArgumentError
        No model's ``operation`` gives the output; the model's
        ``operation`` takes no such parameter; it returned several values
        (``return_std=True``) that another machine would have to map back;
        with metadata routing on, a parameter no model requests.
    UnsetRequestError
        With metadata routing on, a parameter the model neither requests
        nor declines (scikit-learn's ``UnsetMetadataPassedError``).
    """
    target = consumer(output, operation)
    received = ", ".join(f"{key}=..." for key in sorted(params))
    if target is None:
        raise ArgumentError(
            f"{owner}.{operation} got {received}, but its {operation} output is not one model's {operation} (it "
            f"is computed from several: {output!r}), so no model can take them. Call {operation}(X) without them."
        )
    mach = target.machine
    model = mach.fitted_model
    name = mach.name or type(model).__name__
    given = _routed(owner, name, model, operation, params)
    _check_takes(owner, name, model, operation, given, received)
    overrides = {X: data}
    memo: dict = {}
    value = mach._apply(operation, evaluate(target.parents[0], memo, overrides), given)
    if target is output:
        return value
    if isinstance(value, tuple):  # return_std=True, return_cov=True: a mean and its uncertainty
        raise ArgumentError(
            f"{owner}.{operation} got {received}, with which {name} ({type(model).__name__}).{operation} returns "
            f"{len(value)} values, but its {operation} output maps that model's value back "
            f"({output.machine._title()}.inverse_transform), which takes one. Call {operation}(X) without them, "
            f"or the trained model itself: fitted_params_()[{name!r}].{operation}(...) on its input."
        )
    memo[target] = value
    return evaluate(output, memo, overrides)


def _routed(owner: str, name: str, model: Any, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` as the model gets them: all of them, or with scikit-learn's metadata routing on, those it
    requests (``set_predict_request``), as scikit-learn's ``Pipeline`` routes them to its last step."""
    if not get_config()["enable_metadata_routing"]:
        return params
    router = MetadataRouter(owner=owner).add(
        **{name: model}, method_mapping=MethodMapping().add(caller=operation, callee=operation)
    )
    routed = routed_params(  # declined by the model, and no one else takes it: the advice
        router, operation, params,
        f"Request it on {name} ({type(model).__name__}): "
        f"set_{operation}_request({', '.join(f'{key}=True' for key in sorted(params))}), or call {operation}(X) "
        "without it.",
    )
    return dict(routed[name][operation])


def _check_takes(owner: str, name: str, model: Any, operation: str, given: dict[str, Any], received: str) -> None:
    """Refuse parameters the model's ``operation`` does not name (unless it takes any: ``**kwargs``)."""
    if not given:
        return
    try:
        signature = inspect.signature(getattr(model, operation))
    except (TypeError, ValueError):  # no signature to read (a builtin): the call itself will tell
        return
    parameters = signature.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return
    named = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    unknown = sorted(set(given) - named)
    if unknown:
        raise ArgumentError(
            f"{owner}.{operation} got {received} for {name} ({type(model).__name__}), whose {operation} takes no "
            f"{', '.join(unknown)}. Call {operation}(X) without {'it' if len(unknown) == 1 else 'them'}."
        )
