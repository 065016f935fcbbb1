"""scikit-learn's metadata routing of ``sample_weight`` through the recipes.

With ``sklearn.set_config(enable_metadata_routing=True)``, scikit-learn's
meta-estimators hand each component the weights exactly when the component
asks for them (``set_fit_request(sample_weight=True)``, or an alias whose key
was passed), train it without them when it declines (``False``), and raise
when it was not asked (its request unset). The recipes mixing in
:class:`RoutedWeights` do the same: :meth:`RoutedWeights.get_metadata_routing`
describes the routing (so ``GridSearchCV`` and ``cross_validate`` know what to
pass), and ``fit`` asks scikit-learn's ``process_routing`` which components
get the weights. With routing off (the default) nothing here runs: each
recipe decides, as ``docs/compose.md`` says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sklearn import get_config
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.utils import metadata_routing
from sklearn.utils.metadata_routing import MetadataRequest, MetadataRouter, MethodMapping, process_routing

from wirework.errors import ArgumentError, UnsetRequestError

__all__ = ["RoutedWeights", "routed_params"]

#: The methods of a recipe that train its components.
_TRAINING = ("fit", "fit_transform", "fit_predict")


class RoutedWeights:
    """Mixin (before ``WeightedFit`` and ``Composite``) for a recipe whose components take the weights.

    A subclass lists its components in :meth:`_weight_routes`; its
    ``network`` asks ``self._routed_weights()`` which of them train on the
    weights (``None``: routing is off, the recipe decides).

    The recipe does not consume the weights itself, its components do: it
    has no ``set_fit_request`` (as scikit-learn's ``Pipeline`` and stacking
    have none), only ``set_score_request`` for its own ``score`` (a
    ``ww.Pipeline``'s ``score`` is its last step's, routed as scikit-learn's
    ``Pipeline`` routes it: see :meth:`_scores_itself`).
    """

    __metadata_request__fit = {"sample_weight": metadata_routing.UNUSED}
    #: Whether ``fit_transform`` and ``fit_predict`` route as themselves, as scikit-learn's ``Pipeline`` routes
    #: them (its errors name them); else as ``fit``, as the meta-estimators whose ``fit_transform`` calls ``fit``.
    _routes_each_fit = False

    def _weight_routes(self) -> list[tuple[str, Any, str | Mapping[str, str]]]:
        """``(name, component, method)``: each component the weights can go to, and its method that trains: one
        name for every method of the recipe that fits, or a mapping from each of them (``"fit"``,
        ``"fit_transform"``, ``"fit_predict"``) to the component's method it calls."""
        raise NotImplementedError

    def _operation_routes(self) -> list[tuple[str, Any, Mapping[str, str]]]:
        """``(name, component, {operation: method})``: the components that get the parameters of the composite's
        operations (``predict``, ``transform``…; see :mod:`wirework.compose._params`), named as their machines,
        each with the method of the component each operation calls. None here."""
        return []

    def _scores_itself(self) -> bool:
        """Whether the recipe's ``score`` weighs the rows itself (accuracy or R² of its predictions), so that its
        own request (``set_score_request``) says whether it gets the weights: ``True`` here. ``False``: a
        component's ``score`` gives it, which the routing reaches (see :meth:`_operation_routes`)."""
        return True

    def get_metadata_routing(self) -> MetadataRouter:
        """How scikit-learn's metadata routing reaches the components, as scikit-learn's meta-estimators say it.

        Each component is reached from ``fit`` (and ``fit_transform``,
        ``fit_predict``) by its training method; the recipe's own request
        covers ``score`` only, when it weighs the rows itself (a classifier's
        or regressor's accuracy or R²: see :meth:`_scores_itself`). The components that take the parameters of the
        operations (:meth:`_operation_routes`: a pipeline's steps) are
        reached from those operations by the methods they call, as
        scikit-learn's say.

        Returns
        -------
        MetadataRouter
        """
        router = MetadataRouter(owner=type(self).__name__)
        if self._scores_itself():
            own = MetadataRequest(owner=type(self).__name__)
            own.score = self._get_metadata_request().score
            router.add_self_request(own)
        operating = {name: (component, methods) for name, component, methods in self._operation_routes()}
        for name, component, method in self._weight_routes():
            mapping = MethodMapping()
            for caller in _TRAINING:
                mapping.add(caller=caller, callee=_callee(method, caller))
            for caller, callee in operating.pop(name, (None, {}))[1].items():
                mapping.add(caller=caller, callee=callee)
            router.add(**{name: component}, method_mapping=mapping)
        for name, (component, methods) in operating.items():  # a component the weights never reach
            mapping = MethodMapping()
            for caller, callee in methods.items():
                mapping.add(caller=caller, callee=callee)
            router.add(**{name: component}, method_mapping=mapping)
        return router

    def _fit_weights(
        self, sample_weight: Any, fit_params: dict[str, Any], caller: str = "fit"
    ) -> tuple[Any, tuple[str, ...] | None]:
        """Under metadata routing, the weights and the names of the components that requested them.

        A component given its weights under an alias gets them as
        ``sample_weight`` all the same; every component that gets weights
        gets the same ones (one weight vector per fit: the network's
        ``sample_weight`` source). Routing off: as ``Composite._fit_weights``.
        ``caller``: the recipe's method that fits (``fit_predict``, say).
        """
        if (sample_weight is None and not fit_params) or not get_config()["enable_metadata_routing"]:
            return super()._fit_weights(sample_weight, fit_params, caller)
        owner = type(self).__name__
        given = {**fit_params, **({} if sample_weight is None else {"sample_weight": sample_weight})}
        caller = caller if self._routes_each_fit else "fit"
        routed = routed_params(
            self, caller, given,
            "Request it on the component that should get it (set_fit_request(sample_weight=True)), or fit without it.",
        )
        names, weights, sources = [], None, {}
        for name, _, method in self._weight_routes():
            params = dict(routed[name][_callee(method, caller)])
            other = sorted(key for key in params if key != "sample_weight")
            if other:
                raise ArgumentError(
                    f"{owner}.fit: the metadata routed to {name!r} includes {other}, but a component of {owner} "
                    "gets only sample_weight= (one weight vector, as sample_weight). Request the weights as "
                    "set_fit_request(sample_weight=True) or under an alias on the component itself, not on "
                    "models nested inside it, and pass no other fit parameters."
                )
            if "sample_weight" in params:
                value = params["sample_weight"]
                key = next((k for k, v in given.items() if v is value), "sample_weight")
                if names and value is not weights:
                    raise ArgumentError(
                        f"{owner}.fit: its components would get different weights ({sources[names[0]]!r} for "
                        f"{names[0]!r}, {key!r} for {name!r}), but all components that train on weights get the "
                        "same ones. Pass one weight vector, requested under one name."
                    )
                names.append(name)
                weights, sources[name] = value, key
        if not names:
            return None, None
        return weights, tuple(names)


def _callee(method: str | Mapping[str, str], caller: str) -> str:
    """The component's method that ``caller``, a recipe's method that fits, calls (see ``_weight_routes``)."""
    return method if isinstance(method, str) else method[caller]


def routed_params(router: Any, caller: str, params: dict[str, Any], advice: str) -> Any:
    """scikit-learn's ``process_routing(router, caller, **params)``, its errors as wirework's: a parameter a
    component neither requests nor declines is an :class:`~wirework.errors.UnsetRequestError` (scikit-learn's
    ``UnsetMetadataPassedError`` too); one no component requests an :class:`~wirework.errors.ArgumentError`
    whose message ends with ``advice``."""
    try:
        return process_routing(router, caller, **params)
    except UnsetMetadataPassedError as error:
        raise UnsetRequestError(
            message=str(error), unrequested_params=error.unrequested_params, routed_params=error.routed_params
        ) from error
    except TypeError as error:
        raise ArgumentError(f"{error} {advice}") from error
