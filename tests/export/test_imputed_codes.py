"""A SimpleImputer filling string columns before an encoder, exported on the category codes."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, OrdinalEncoder, TargetEncoder
from sklearn.tree import DecisionTreeRegressor

from _sklearn_data import TARGET, labelled

import wirework as ww


def _gappy() -> pd.DataFrame:
    """Diabetes' string columns with gaps: "sex" with NaN and None (scikit-learn's imputer tells them apart in an
    object column), "weight" with NaN, "pressure" with "?" and None."""
    X = labelled()
    X["sex"] = X["sex"].astype(object)  # not pandas 3's str, whose missing values are all NaN
    X.loc[X.index % 7 == 0, "sex"] = np.nan
    X.loc[X.index % 13 == 0, "sex"] = None
    X.loc[X.index % 5 == 1, "weight"] = np.nan
    X.loc[X.index % 11 == 2, "pressure"] = "?"
    return X


def _new_rows() -> pd.DataFrame:
    """Rows with values never seen, NaN, None and the "?" marker."""
    rows = _gappy().iloc[:6].copy()
    rows["sex"] = pd.Series(["other", None, np.nan, "male", None, np.nan], index=rows.index, dtype=object)
    rows["weight"] = pd.Series([np.nan, "huge", "low", np.nan, "mid", "high"], index=rows.index, dtype=object)
    rows["pressure"] = pd.Series(["?", None, "z", "a", "?", "b"], index=rows.index, dtype=object)
    return rows


ENCODERS = {
    "one-hot ignore": OneHotEncoder(handle_unknown="ignore"),
    "one-hot infrequent": OneHotEncoder(handle_unknown="infrequent_if_exist", min_frequency=40),
    "one-hot if binary": OneHotEncoder(drop="if_binary", handle_unknown="ignore"),
    "ordinal": OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
    "target": TargetEncoder(cv=KFold(5, shuffle=True, random_state=0)),
}
STRATEGIES = {"most frequent": {"strategy": "most_frequent"}, "constant": {"strategy": "constant", "fill_value": "missing"}}


def _prepared(strategy: dict, encoder) -> ColumnTransformer:
    imputed = Pipeline([("impute", SimpleImputer(**strategy)), ("encode", encoder)])
    marked = Pipeline([("impute", SimpleImputer(missing_values="?", **strategy)), ("encode", encoder)])
    return ColumnTransformer(
        [("gaps", imputed, ["sex", "weight"]), ("marked", marked, ["pressure"])], remainder="passthrough"
    )


@pytest.mark.parametrize("layout", ["matrix", "columns"])
@pytest.mark.parametrize("encoder", list(ENCODERS))
@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_imputed_strings_are_encoded_exactly_as_scikit_learn(strategy, encoder, layout):
    X = _gappy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # unknown categories in the new rows, ignored natively
        prepared = _prepared(STRATEGIES[strategy], ENCODERS[encoder]).fit(X, TARGET)
        model = Pipeline([("prepare", prepared), ("tree", DecisionTreeRegressor(random_state=0))]).fit(X, TARGET)
        assert ww.onnx.check_parity(prepared, ww.to_onnx(prepared, X, inputs=layout), X).max_abs == 0.0
        exported = ww.to_onnx(model, X, inputs=layout)
        assert ww.onnx.check_parity(model, exported, X).max_abs == 0.0
        assert ww.onnx.check_parity(model, exported, _new_rows()).max_abs == 0.0
        assert ww.onnx.check_parity(prepared, ww.to_onnx(prepared, X, inputs=layout), _new_rows()).max_abs == 0.0


def test_the_input_numbers_a_column_as_the_encoder_then_the_fill_value_it_never_saw():
    X = _gappy()
    prepared = _prepared(STRATEGIES["constant"], OneHotEncoder(handle_unknown="ignore")).fit(X)
    columns = {c["name"]: c for c in ww.onnx.input_signature(ww.to_onnx(prepared, X))["columns"]}
    assert columns["sex"]["categories"] == ["female", "male", "missing"] and columns["sex"]["missing"] == ["None", "nan"]
    assert columns["pressure"]["categories"] == ["a", "b", "c", "missing", "?"]
    assert columns["pressure"]["missing"] == ["None"]  # passed on by the imputer of "?", learned by the encoder
    clean = X.dropna(subset=["weight"])  # no gap to fill when fitted: the encoder never saw "missing"
    prepared = _prepared(STRATEGIES["constant"], OneHotEncoder(handle_unknown="ignore")).fit(clean)
    columns = {c["name"]: c for c in ww.onnx.input_signature(ww.to_onnx(prepared, clean))["columns"]}
    assert columns["weight"]["categories"] == ["high", "low", "mid", "very high", "missing"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert ww.onnx.check_parity(prepared, ww.to_onnx(prepared, clean), _new_rows()).max_abs == 0.0


def test_an_imputer_read_by_an_encoder_in_a_network():
    X = _gappy()[["sex", "weight", "s1"]]
    network = ww.Pipeline(
        [
            ("impute", SimpleImputer(strategy="most_frequent")),
            ("encode", OneHotEncoder(handle_unknown="ignore", sparse_output=True)),
            ("tree", DecisionTreeRegressor(random_state=0)),
        ]
    ).fit(X, TARGET)
    for layout in ("matrix", "columns"):
        exported = ww.to_onnx(network, X, inputs=layout)
        assert ww.onnx.check_parity(network, exported, X).max_abs == 0.0
        assert ww.onnx.check_parity(network, exported, _new_rows()[["sex", "weight", "s1"]]).max_abs == 0.0


def test_an_imputer_of_strings_without_its_encoder_is_refused():
    X = _gappy()[["sex", "weight"]]
    alone = SimpleImputer(strategy="most_frequent").fit(X)
    with pytest.raises(ww.ExportError, match=r"fills values that are not numbers .*Export it with the encoder"):
        ww.to_onnx(alone, X, methods=["transform"])
    flagged = Pipeline([("impute", SimpleImputer(strategy="most_frequent", add_indicator=True)), ("encode", OneHotEncoder())])
    with pytest.raises(ww.ExportError, match=r"SimpleImputer\(add_indicator=True\) that fills strings cannot be exported"):
        ww.to_onnx(flagged.fit(X), X)
    between = Pipeline(
        [("impute", SimpleImputer(strategy="most_frequent")), ("same", FunctionTransformer()), ("encode", OneHotEncoder())]
    )
    with pytest.raises(ww.ExportError, match=r"fills column 'sex' with 'female', but the step after it does not read"):
        ww.to_onnx(between.fit(X), X)


def test_an_imputer_of_strings_read_by_two_models_of_a_network_is_refused():
    X = _gappy()[["sex", "weight"]]
    source = ww.source(X, name="X")
    imputed = ww.machine(SimpleImputer(strategy="most_frequent"), source).transform(source)
    onehot = ww.machine(OneHotEncoder(sparse_output=False), imputed).transform(imputed)
    ordinal = ww.machine(OrdinalEncoder(), imputed).transform(imputed)
    both = ww.hcat(onehot, ordinal)
    both.fit()
    with pytest.raises(ww.ExportError, match=r"SimpleImputer.transform\(\) fills .* it is read by OneHotEncoder.transform\(\), OrdinalEncoder"):
        ww.to_onnx(both, X)
