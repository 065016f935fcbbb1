"""Lists of (name, estimator) pairs: the names a recipe refuses, as scikit-learn's meta-estimators refuse them."""

import pytest
from sklearn.datasets import load_diabetes, load_iris
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

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
