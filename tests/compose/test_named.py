"""Lists of (name, estimator) pairs: the names a recipe refuses, as scikit-learn's meta-estimators refuse them."""

import re

import pytest
from sklearn.datasets import load_diabetes, load_iris
from sklearn.decomposition import PCA
from sklearn.ensemble import StackingRegressor, VotingRegressor
from sklearn.linear_model import Lasso, LogisticRegression, Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils import estimator_html_repr

import wirework as ww

X_DATA, Y_DATA = load_diabetes(return_X_y=True)


@pytest.mark.parametrize(
    "recipe, name",
    [
        (lambda name: ww.Pipeline([(name, StandardScaler()), ("r", Ridge())]), "steps"),
        (lambda name: ww.Pipeline([("s", StandardScaler()), (name, Ridge())]), "n_jobs"),
        (lambda name: ww.Stack([(name, Ridge())], Ridge(), cv=3), "final_estimator"),
        (lambda name: ww.Stack([(name, Ridge())], Ridge(), cv=3), "cv"),
        (lambda name: ww.Average([("r", Ridge()), (name, Ridge())]), "weights"),
    ],
)
def test_a_name_that_is_a_parameter_of_the_recipe_is_refused_at_fit(recipe, name):
    with pytest.raises(ValueError, match=r"Estimator names conflict with constructor arguments: \['steps'\]"):
        Pipeline([("steps", StandardScaler()), ("r", Ridge())]).fit(X_DATA, Y_DATA)  # scikit-learn's refusal
    model = recipe(name)
    message = rf"{type(model).__name__}: estimator names conflict with constructor arguments: \['{name}'\]"
    with pytest.raises(ww.GraphError, match=message + r".*Rename them"):
        model.fit(X_DATA, Y_DATA)
    assert not hasattr(model, "network_")


@pytest.mark.parametrize(
    "recipe",
    [
        lambda: ww.Average([("lr", LogisticRegression(max_iter=1000)), ("x", "drop")]),
        lambda: ww.Stack([("lr", LogisticRegression(max_iter=1000)), ("x", "drop")], LogisticRegression()),
        lambda: ww.Pipeline([("x", "drop"), ("lr", LogisticRegression(max_iter=1000))]),
    ],
    ids=["Average", "Stack", "Pipeline"],
)
def test_drop_is_refused_with_what_to_do_instead(recipe):
    X, y = load_iris(return_X_y=True)
    model = recipe()
    message = rf"{type(model).__name__}: (estimators|steps) item 'x' is 'drop', which .* Leave the pair out of"
    with pytest.raises(ww.GraphError, match=message):
        model.fit(X, y)


def _diagram(estimator):
    """The labels of scikit-learn's HTML diagram of ``estimator``, in order: each box's class and each name shown."""
    html = estimator_html_repr(estimator)
    return re.findall(r"<label[^>]*>(?:<div><div>)?([^<]+)", html[html.index('<div class="sk-container"'):])


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (
            ww.Pipeline([("scale", StandardScaler()), ("skip", "passthrough"), ("pca", PCA(2)), ("ridge", Ridge())]),
            Pipeline([("scale", StandardScaler()), ("skip", "passthrough"), ("pca", PCA(2)), ("ridge", Ridge())]),
        ),
        (
            ww.Stack([("ridge", Ridge()), ("tree", DecisionTreeRegressor())], Lasso()),
            StackingRegressor([("ridge", Ridge()), ("tree", DecisionTreeRegressor())], Lasso()),
        ),
        (
            ww.Average([("ridge", Ridge()), ("reduced", ww.Pipeline([("pca", PCA(2)), ("lasso", Lasso())]))]),
            VotingRegressor([("ridge", Ridge()), ("reduced", Pipeline([("pca", PCA(2)), ("lasso", Lasso())]))]),
        ),
    ],
    ids=["Pipeline", "Stack", "Average"],
)
def test_the_html_diagram_shows_every_named_estimator_as_scikit_learn_s_peer(ours, theirs):
    drawn = _diagram(ours)
    assert drawn[0] == type(ours).__name__
    assert drawn[1:] == _diagram(theirs)[1:]


def test_a_pipeline_s_diagram_shows_its_target_transformer_beside_the_steps():
    drawn = _diagram(ww.Pipeline([("scale", StandardScaler()), ("ridge", Ridge())], target_transformer=MinMaxScaler()))
    assert drawn == ["Pipeline", "steps", "StandardScaler", "Ridge", "target_transformer: MinMaxScaler", "MinMaxScaler"]
