"""Data and helpers shared by the tests of scikit-learn's non-tree converters (tests/export/test_sklearn_*.py)."""

import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes
from sklearn.ensemble import HistGradientBoostingRegressor

import wirework as ww

FRAME, TARGET = load_diabetes(return_X_y=True, as_frame=True)
SERUM = ["s1", "s2", "s3", "s4", "s5", "s6"]


def hgb():
    return HistGradientBoostingRegressor(max_iter=30, random_state=0)


def exact(model, X, **options):
    """The largest difference between the exported model's predictions and ``model.predict``."""
    return ww.onnx.check_parity(model, ww.to_onnx(model, **options), X).outputs["predict"].max_abs


def labelled():
    """Diabetes with three string columns made from its own values (one with missing entries)."""
    return pd.DataFrame(
        {
            "sex": np.where(FRAME.sex > 0, "male", "female").astype(object),
            "weight": pd.cut(FRAME.bmi, 4, labels=["low", "mid", "high", "very high"]).astype(object),
            "pressure": pd.cut(FRAME.bp, 3, labels=["a", "b", "c"]).astype(object).where(FRAME.index % 9 != 0, None),
            "s1": FRAME.s1,
            "s5": FRAME.s5,
        }
    )


def unknown_and_missing() -> pd.DataFrame:
    """Rows of ``labelled()`` whose "pressure" (a column with a learned missing category) is unseen, missing, known."""
    rows = labelled().iloc[:6].copy()
    rows["pressure"] = pd.Series(["z", None, "a", "never", None, "c"], index=rows.index, dtype=object)
    return rows


def categorical_frame() -> tuple[pd.DataFrame, pd.DataFrame]:
    """``labelled()`` with pandas categoricals (one with missing values) and missing numbers; and rows to serve
    it: unseen and missing categories, and a single row."""
    X = labelled()
    for column in ("sex", "weight", "pressure"):
        X[column] = X[column].astype("category")
    X.loc[X.index % 7 == 0, "s1"] = np.nan
    served = X.iloc[:6].copy()
    served["weight"] = pd.Categorical(["enormous", None, "low", "high", "mid", "low"])
    return X, served


def categories_passed_through(last):
    """A ``ColumnTransformer`` (pandas output) imputing the numbers and passing the categoricals through to
    ``last``, which reads them as categories (scikit-learn's way to feed a HistGradientBoosting's
    ``categorical_features="from_dtype"``)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer

    numbers = ColumnTransformer(
        [("numbers", SimpleImputer(), ["s1", "s5"])], remainder="passthrough", verbose_feature_names_out=False
    )
    return [("numbers", numbers.set_output(transform="pandas")), ("last", last)]
