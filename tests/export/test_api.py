"""ww.to_onnx / ww.save_onnx / feed: inputs, outputs, files and refusals."""

from __future__ import annotations

import lightgbm
import numpy as np
import onnx
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_iris
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.svm import SVR
from sklearn.tree import DecisionTreeClassifier

import wirework as ww
from wirework.export.builder import GraphBuilder
from wirework.export.sklearn_other import _skl2onnx
from wirework.errors import ExportError
from wirework.export.api import feed, input_signature


@pytest.fixture(scope="module")
def iris_tree():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    return X, DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, names)


@pytest.fixture(scope="module")
def categorical_gbm():
    rng = np.random.default_rng(0)
    n = 600
    colour = pd.Categorical(rng.choice(["red", "green", "blue", "grey"], n))
    frame = pd.DataFrame({"size": rng.normal(size=n), "colour": colour, "weight": rng.normal(size=n)})
    y = frame["size"] * 2 + (frame["colour"] == "red") * 3.0 + rng.normal(scale=0.1, size=n)
    model = lightgbm.LGBMRegressor(n_estimators=20, num_leaves=7, min_child_samples=5, n_jobs=1, verbose=-1)
    return frame, model.fit(frame, y)


def test_a_classifier_exports_labels_and_probabilities(iris_tree):
    X, tree = iris_tree
    model = ww.to_onnx(tree)
    outputs = {o.name: o.type.tensor_type for o in model.graph.output}
    assert list(outputs) == ["predict", "predict_proba"]
    assert outputs["predict"].elem_type == onnx.TensorProto.STRING
    assert outputs["predict_proba"].elem_type == onnx.TensorProto.DOUBLE
    assert len(outputs["predict_proba"].shape.dim) == 2
    report = ww.onnx.check_parity(tree, model, X)
    assert report.exact and report.flips == 0
    assert ww.to_onnx(tree, methods=["predict_proba"]).graph.output[0].name == "predict_proba"


def test_the_input_signature_is_recorded(iris_tree):
    X, tree = iris_tree
    spec = input_signature(ww.to_onnx(tree, dtype="float32"))
    assert spec == {
        "layout": "matrix",
        "dtype": "float32",
        "columns": [{"name": f"x{i}", "categories": None} for i in range(4)],
    }
    assert feed(ww.to_onnx(tree, dtype="float32"), X)["X"].dtype == np.float32


def test_categorical_columns_as_codes_or_as_values(categorical_gbm):
    frame, model = categorical_gbm
    test = frame.head(50).copy()
    test["colour"] = pd.Categorical(
        ["purple", None] + list(test["colour"].astype(object)[2:]), categories=["red", "green", "blue", "grey", "purple"]
    )
    matrix = ww.to_onnx(model, frame)
    spec = input_signature(matrix)
    assert spec["columns"][1] == {"name": "colour", "categories": ["blue", "green", "grey", "red"]}
    fed = feed(matrix, test)["X"]
    assert fed[0, 1] == ww.onnx.UNKNOWN_CODE == -1 and np.isnan(fed[1, 1])  # an unseen value, a missing one
    assert ww.onnx.check_parity(model, matrix, test).exact

    columns = ww.to_onnx(model, frame, inputs="columns")
    assert [i.name for i in columns.graph.input] == ["size", "colour", "weight"]
    assert columns.graph.input[1].type.tensor_type.elem_type == onnx.TensorProto.STRING
    assert "LabelEncoder" in [n.op_type for n in columns.graph.node]
    assert ww.onnx.check_parity(model, columns, test).exact


def test_save_onnx_writes_the_file_atomically(tmp_path, monkeypatch, iris_tree):
    X, tree = iris_tree
    path = ww.save_onnx(tree, tmp_path / "tree.onnx")
    assert path.read_bytes() == ww.to_onnx(tree).SerializeToString()
    assert input_signature(onnx.load(str(path)))["dtype"] == "float64"
    with pytest.raises(ExportError):
        ww.save_onnx(tree, tmp_path / "half.onnx", dtype="float16")

    def fail_midway(self, data):
        with open(self, "wb") as handle:
            handle.write(data[:10])
        raise OSError("disk full")

    original = path.read_bytes()
    with monkeypatch.context() as patch:
        patch.setattr(type(path), "write_bytes", fail_midway)
        with pytest.raises(ww.StorageError, match=r"save_onnx could not write .*tree\.onnx': disk full\. A file") as info:
            ww.save_onnx(tree, path, dtype="float32")
    assert isinstance(info.value, OSError) and str(info.value.__cause__) == "disk full"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree.onnx"]  # nothing half-written
    assert path.read_bytes() == original  # and the finished file is kept


def test_save_onnx_refuses_a_directory_or_a_missing_one_before_exporting(tmp_path, monkeypatch, iris_tree):
    X, tree = iris_tree
    monkeypatch.setattr(ww.export.api, "to_onnx", lambda *a, **k: pytest.fail("exported before the path was checked"))
    with pytest.raises(ww.StorageError, match=r"is a directory\. Give a file path such as '.*model\.onnx'"):
        ww.save_onnx(tree, tmp_path)
    with pytest.raises(OSError, match=r"the directory '.*missing' does not exist\. Create it first"):
        ww.save_onnx(tree, tmp_path / "missing" / "tree.onnx")
    assert list(tmp_path.iterdir()) == []


def test_bad_requests_are_refused(iris_tree):
    X, tree = iris_tree
    with pytest.raises(ExportError, match="dtype must be 'float64' or 'float32'. Received: 'int8'"):
        ww.to_onnx(tree, dtype="int8")
    with pytest.raises(ExportError, match="inputs must be 'matrix' or 'columns'"):
        ww.to_onnx(tree, inputs="rows")
    with pytest.raises(ExportError, match="cannot export decision_function"):
        ww.to_onnx(tree, methods=["decision_function"])
    with pytest.raises(ExportError, match="No ONNX converter for builtins.object"):
        ww.to_onnx(object())
    with pytest.raises(ExportError, match="expects 4 columns. Received shape"):
        feed(ww.to_onnx(tree), X[:, :2])
    with pytest.raises(ExportError, match="no wirework input signature"):
        input_signature(onnx.ModelProto())
    with pytest.raises(ExportError, match="Expected an ONNX ModelProto written by ww.to_onnx.*Received: ndarray"):
        feed(X, X)  # the arguments swapped
    with pytest.raises(ExportError, match=r"methods must be a list of method names.*Received: 'predict'"):
        ww.to_onnx(tree, methods="predict")
    with pytest.raises(ExportError, match="X_sample has 2 columns, but DecisionTreeClassifier takes 4"):
        ww.to_onnx(tree, X_sample=X[:3, :2])
    pipe = ww.Pipeline([("tree", DecisionTreeClassifier(max_depth=2))]).fit(X, np.arange(len(X)) % 2)
    with pytest.raises(ExportError, match="X_sample has 2 columns, but Pipeline takes 4"):
        ww.to_onnx(pipe, X_sample=X[:3, :2])
    assert issubclass(ExportError, ValueError) and issubclass(ExportError, ww.WireworkError)


def test_other_scikit_learn_estimators_go_through_skl2onnx():
    X, y = load_diabetes(return_X_y=True)
    svr = SVR().fit(X, y)  # ours now (export/sklearn_kernels.py); skl2onnx's only runs in float32
    assert ww.onnx.check_parity(svr, ww.to_onnx(svr), X).outputs["predict"].max_rel <= 1e-13
    g = GraphBuilder("float64")  # the bridge itself refuses a conversion ONNX Runtime cannot run
    with pytest.raises(ExportError, match="ONNX Runtime cannot run.*SVMRegressor.*Try dtype='float32'"):
        _skl2onnx(svr, g, g.add_input("X", g.dtype, [None, X.shape[1]]))
    logistic = LogisticRegression(max_iter=2000).fit(*load_iris(return_X_y=True))
    Xi = load_iris().data
    report = ww.onnx.check_parity(logistic, ww.to_onnx(logistic), Xi)
    assert report.outputs["predict"].rows_differ == 0 and report.max_abs <= 1e-12
    ridge = Ridge().fit(X, y)
    assert ww.onnx.check_parity(ridge, ww.to_onnx(ridge, dtype="float32"), X).outputs["predict"].max_rel <= 1e-5


def test_a_composite_reading_categories_exports_them(categorical_gbm):
    frame, model = categorical_gbm
    pipe = ww.Pipeline([("gbm", model)]).fit(frame, model.predict(frame))
    for layout in ("matrix", "columns"):
        exported = ww.to_onnx(pipe, frame, inputs=layout)
        assert ww.onnx.check_parity(pipe, exported, frame).exact


@pytest.mark.parametrize("layout", ["matrix", "columns"])
def test_feed_takes_a_dataframes_columns_by_name(layout):
    # scikit-learn matches a DataFrame's columns by name: so does feed (it took them by position, and
    # reordered columns gave predictions 157 off), in any order, and refuses missing or unexpected ones
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import HistGradientBoostingRegressor

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, y)
    exported = ww.to_onnx(model, inputs=layout)
    assert input_signature(exported)["named"] is True
    shuffled = X.iloc[:50, ::-1]
    assert ww.onnx.check_parity(model, exported, X.iloc[:50]).exact
    fed = feed(exported, shuffled)
    assert all(np.array_equal(fed[k], v) for k, v in feed(exported, X.iloc[:50]).items())
    with pytest.raises(ExportError, match=r"the DataFrame lacks \['s6'\], has unexpected columns \['target'\]\. Give"):
        feed(exported, X.iloc[:5].rename(columns={"s6": "target"}))
    with pytest.raises(ExportError, match=r"the DataFrame repeats \['bmi'\]"):
        feed(exported, pd.concat([X.iloc[:5], X.iloc[:5, [2]]], axis=1))
    # columns without string names, or a model trained without names: by position, as scikit-learn takes them
    assert np.array_equal(feed(exported, X.iloc[:5].set_axis(range(10), axis=1))["X" if layout == "matrix" else "age"],
                          feed(exported, X.iloc[:5])["X" if layout == "matrix" else "age"])
    unnamed = ww.to_onnx(HistGradientBoostingRegressor(max_iter=5).fit(X.to_numpy(), y), inputs=layout)
    assert "named" not in input_signature(unnamed)
    by_position = feed(unnamed, X.iloc[:5, ::-1])
    assert all(np.array_equal(v, feed(unnamed, X.iloc[:5, ::-1].to_numpy())[k]) for k, v in by_position.items())


@pytest.mark.parametrize("layout", ["matrix", "columns"])
def test_a_sample_with_its_columns_in_another_order_names_the_inputs_as_the_model_reads_them(layout, categorical_gbm):
    # the inputs were named after X_sample's columns while the graph reads them in the model's order: with
    # the columns reversed the file's predictions were 118 off, silently; a sample with other columns is refused
    from sklearn.ensemble import HistGradientBoostingRegressor

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    frame, gbm = categorical_gbm
    for model, data in ((HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, y), X), (gbm, frame)):
        exported = ww.to_onnx(model, X_sample=data.iloc[:5, ::-1], inputs=layout)
        assert [c["name"] for c in input_signature(exported)["columns"]] == list(data.columns)
        assert ww.onnx.check_parity(model, exported, data).exact
    with pytest.raises(ExportError, match=r"the DataFrame lacks \['s6'\], has unexpected columns \['target'\]"):
        ww.to_onnx(model := HistGradientBoostingRegressor(max_iter=5).fit(X, y), X_sample=X.iloc[:5].rename(columns={"s6": "target"}))
    positional = ww.to_onnx(model, X_sample=X.iloc[:5].set_axis(range(10), axis=1))  # names no strings: by position
    assert [c["name"] for c in input_signature(positional)["columns"]] == list(X.columns)  # the model's names


@pytest.mark.parametrize("layout", ["matrix", "columns"])
def test_lightgbm_columns_whose_names_hold_spaces_are_matched_as_lightgbm_renamed_them(layout):
    # LightGBM trains on "age years" but records "age_years": the export refused the very frame the model was
    # trained on, as a sample ("lacks ['age_years'...]") and in feed(); both now match a space to the "_"
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X = X.rename(columns=lambda name: f"{name} value")
    model = lightgbm.LGBMRegressor(n_estimators=20, n_jobs=1, verbose=-1).fit(X, y)
    assert list(model.feature_names_in_[:2]) == ["age_value", "sex_value"]
    for sample in (X.iloc[:5], X.iloc[:5, ::-1], None):
        exported = ww.to_onnx(model, X_sample=sample, inputs=layout)
        assert [c["name"] for c in input_signature(exported)["columns"]] == list(model.feature_names_in_)
        assert ww.onnx.check_parity(model, exported, X).exact
        reordered = feed(exported, X.iloc[:5, ::-1])
        assert all(np.array_equal(v, feed(exported, X.iloc[:5])[k]) for k, v in reordered.items())
    assert all(np.array_equal(v, feed(exported, X.iloc[:5].set_axis(model.feature_names_in_, axis=1))[k])
               for k, v in feed(exported, X.iloc[:5]).items())  # the names LightGBM recorded are taken too
    with pytest.raises(ExportError, match=r"lacks \['sex_value'\], repeats \['age_value'\]"):  # "age value" and "age_value"
        feed(exported, X.iloc[:5].assign(age_value=X["age value"].iloc[:5]).drop(columns="sex value"))
    # a model that does not rename: a space is not an underscore
    tree = DecisionTreeClassifier(max_depth=2).fit(X.set_axis(model.feature_names_in_, axis=1), y > 140)
    with pytest.raises(ExportError, match=r"the DataFrame lacks \['age_value'"):
        feed(ww.to_onnx(tree), X.iloc[:5])


def test_feed_codes_a_category_columns_values_whatever_its_dtype():
    # a column trained as an integer categorical, fed as plain int64 (as at serving time): its values are
    # coded, not taken as codes (feed passed 10, 20, 30 as codes; 1.88 off)
    from sklearn.ensemble import HistGradientBoostingRegressor

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.normal(size=300), "e": pd.Categorical(rng.choice([10, 20, 30], 300))})
    y = frame["a"] + (frame["e"] == 20) * 3.0 + (frame["e"] == 30) * 1.0
    model = HistGradientBoostingRegressor(max_iter=10).fit(frame, y)
    plain = pd.DataFrame({"a": [0.1, 0.1, 0.1, 0.1], "e": [10, 20, 30, 40]})
    for layout in ("matrix", "columns"):
        exported = ww.to_onnx(model, inputs=layout)
        assert ww.onnx.check_parity(model, exported, plain).exact
    assert feed(ww.to_onnx(model), plain)["X"][:, 1].tolist() == [0, 1, 2, ww.onnx.UNKNOWN_CODE]


def test_bad_arguments_of_the_export_helpers_are_refused_clearly(tmp_path, iris_tree):
    # each was a raw AttributeError, TypeError or scikit-learn ValueError from inside
    X, tree = iris_tree
    exported = ww.to_onnx(tree)
    with pytest.raises(ExportError, match="check_parity compares an ONNX ModelProto .* Received: str 'tree.onnx'"):
        ww.onnx.check_parity(tree, "tree.onnx", X)
    for threads in ("a", 0, True):
        with pytest.raises(ExportError, match="threads must be an int >= 1"):
            ww.onnx.check_parity(tree, exported, X, threads=threads)
    with pytest.raises(ExportError, match="needs at least one row to compare on"):
        ww.onnx.check_parity(tree, exported, X[:0])
    assert ww.onnx.check_parity(tree, exported, X, threads=np.int64(2)).flips == 0
    with pytest.raises(ExportError, match="name must be a string .* Received: int 3"):
        ww.to_onnx(tree, name=3)
    for path in (None, 3):
        with pytest.raises(ww.ArgumentError, match="save_onnx needs a file path such as 'model.onnx'"):
            ww.save_onnx(tree, path)
    with pytest.raises(ExportError, match=r"save_onnx takes the options of to_onnx .* Received also: \['bogus'\]"):
        ww.save_onnx(tree, tmp_path / "tree.onnx", bogus=1)
    (tmp_path / "afile").write_text("not a directory")
    with pytest.raises(ww.StorageError, match=r"'.*afile' is a file, not a directory"):
        ww.save_onnx(tree, tmp_path / "afile" / "tree.onnx")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("layout", ["matrix", "columns"])
def test_feed_refuses_strings_in_a_numeric_column_even_strings_of_numbers(layout):
    # scikit-learn refuses them; feed turned '0.0617' into 0.0617 without a word
    from sklearn.datasets import load_diabetes
    from sklearn.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    exported = ww.to_onnx(DecisionTreeRegressor(max_depth=3).fit(X, y), inputs=layout)
    with pytest.raises(ExportError, match=r"Column 'bmi' \(.*\) cannot be fed to the model: it expects numbers there \(it holds strings, such as '0\.06"):
        feed(exported, X.head(3).assign(bmi=X["bmi"].head(3).astype(str)))
    numbers_as_objects = X.head(3).assign(bmi=X["bmi"].head(3).astype(object))  # numbers, held as objects
    assert all(np.array_equal(v, feed(exported, X.head(3))[k]) for k, v in feed(exported, numbers_as_objects).items())


def test_the_exp_option_is_checked_and_names_a_glibc_build(tmp_path):
    X, y = load_iris(return_X_y=True)
    model = lightgbm.LGBMClassifier(n_estimators=5, n_jobs=1, verbose=-1).fit(X, y == 1)
    for bad in ("glibc", None, 1):
        with pytest.raises(ExportError, match=r"exp must be one of 'onnx', 'libm', 'glibc-fma', 'glibc-sse2'\. "
                           rf"Received: {bad!r}"):
            ww.to_onnx(model, exp=bad)
    with pytest.raises(ExportError, match=r"exp='glibc-fma' reproduces the C library's float64 exp, but a float32 "
                       "export computes in float32"):
        ww.to_onnx(model, dtype="float32", exp="glibc-fma")
    sizes = {exp: len(ww.to_onnx(model, exp=exp).graph.node) for exp in ("onnx", "glibc-fma", "glibc-sse2")}
    assert sizes["onnx"] < sizes["glibc-sse2"] < sizes["glibc-fma"]
    path = ww.save_onnx(model, tmp_path / "model.onnx", exp="glibc-sse2")
    assert len(onnx.load(path).graph.node) == sizes["glibc-sse2"]
