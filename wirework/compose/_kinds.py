"""scikit-learn's mixins as a composite reads them: the kind each declares, and their order in a class.

The kind of an estimator (:func:`_kind_of`, read from its one kind mixin when
it has exactly one, else from its tags), and the rules a composite class is
held to when it is created (``Composite.__init_subclass__``): the mixins that
must come before ``BaseEstimator`` in its MRO (:func:`_check_mixin_order`),
and those whose methods a composite keeps its own versions of. Moved here
from :mod:`wirework.compose.composite` and :mod:`wirework.compose.pipeline`,
which import these names again, so imports of the old paths still work.
"""

from __future__ import annotations

from typing import Any

from sklearn.base import (
    BaseEstimator,
    BiclusterMixin,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    DensityMixin,
    MetaEstimatorMixin,
    MultiOutputMixin,
    OneToOneFeatureMixin,
    OutlierMixin,
    RegressorMixin,
    TransformerMixin,
)
from sklearn.utils import get_tags
from sklearn.utils._set_output import _SetOutputMixin

from wirework.errors import ArgumentError

__all__: list[str] = []


#: scikit-learn's mixins that say what an estimator is, with the kind (``estimator_type``) each gives.
_KIND_MIXINS = ((ClassifierMixin, "classifier"), (RegressorMixin, "regressor"), (ClusterMixin, "clusterer"))

#: The kind each mixin gives (``estimator_type`` of the tags it sets); the last two are never read from the mixin.
_MIXIN_KINDS = (*_KIND_MIXINS, (OutlierMixin, None), (DensityMixin, None))
#: Per class: the kind its one kind mixin gives, or ``None`` when only its tags can tell.
_CLASS_KINDS: dict[type, str | None] = {}


def _kind_of(estimator: Any) -> str | None:
    """``estimator_type`` of ``estimator``'s tags: ``"classifier"``, ``"regressor"``, ``"clusterer"``…

    A class that inherits exactly one of scikit-learn's kind mixins, and it
    is the classifier, regressor or clusterer one, has the kind that mixin
    sets (true of every scikit-learn estimator, LightGBM's and XGBoost's), so
    its tags are not built: building them runs every ``__sklearn_tags__`` of
    the class's ancestry, a cost each refit would pay. Anything else (no
    mixin or several: meta-estimators, wrappers) is asked for its tags.
    """
    kind_class = type(estimator)
    if kind_class not in _CLASS_KINDS:
        kinds = [kind for mixin, kind in _MIXIN_KINDS if issubclass(kind_class, mixin)]
        _CLASS_KINDS[kind_class] = kinds[0] if len(kinds) == 1 else None
    kind = _CLASS_KINDS[kind_class]
    if kind is not None:
        return kind
    try:
        return get_tags(estimator).estimator_type
    except Exception:
        return None


#: scikit-learn's mixins that say what an estimator is (and ``set_output``'s): a composite class keeps its own
#: versions of the methods they define (see ``Composite.__init_subclass__``).
_KIND_MIXIN_CLASSES = (
    ClassifierMixin, RegressorMixin, TransformerMixin, _SetOutputMixin, ClusterMixin, OutlierMixin, DensityMixin
)

#: scikit-learn's mixins that must come before ``BaseEstimator`` in an estimator's MRO (the order its
#: ``check_mixin_order`` checks): their ``__sklearn_tags__`` run only there.
_BEFORE_BASE = (
    ClassifierMixin, RegressorMixin, ClusterMixin, TransformerMixin, BiclusterMixin, OneToOneFeatureMixin,
    ClassNamePrefixFeaturesOutMixin, DensityMixin, OutlierMixin, MetaEstimatorMixin, MultiOutputMixin,
)


def _check_mixin_order(cls: type, composite_class: type) -> None:
    """Raise unless each of scikit-learn's mixins ``cls`` derives from comes before ``BaseEstimator`` in its MRO
    (``cls``: a subclass of ``composite_class``, ``Composite``)."""
    mro = cls.__mro__
    late = [mixin for mixin in _BEFORE_BASE if mixin in mro and mro.index(mixin) > mro.index(BaseEstimator)]
    if not late:
        return
    names = " and ".join(mixin.__name__ for mixin in late)
    composite = next(base for base in cls.__bases__ if issubclass(base, composite_class))
    first = [base for base in cls.__bases__ if not issubclass(base, BaseEstimator) and issubclass(base, tuple(late))]
    order = ", ".join(base.__name__ for base in [*first, *(base for base in cls.__bases__ if base not in first)])
    raise ArgumentError(
        f"{cls.__name__} lists {names} after {composite.__name__}, so scikit-learn would not read what it declares: "
        f"in the MRO it comes after BaseEstimator ({composite.__name__} derives from it), whose tags ignore the "
        "classes after it. Put the mixin first, as scikit-learn's rule is (check_estimator's check_mixin_order): "
        f"class {cls.__name__}({order})."
    )
