"""Kept values: what a network keeps (a machine's training output, a fit pass's values) no model that writes in
place can change, and what it hands a user is the user's to change. Real data (diabetes, digits) and
scikit-learn's own in-place estimators (``copy=False``) as the consumers."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.cluster import DBSCAN, HDBSCAN, KMeans, MiniBatchKMeans
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_diabetes, load_digits
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.ensemble import BaggingRegressor
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import Ridge
from sklearn.manifold import TSNE
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer, StandardScaler

import wirework as ww
from wirework.graph._params import param_values
from wirework.graph.kept import IN_PLACE_PARAMETERS, copied, holds_values, writes_in_place

X_DIABETES, Y_DIABETES = load_diabetes(return_X_y=True)
X_DIGITS = load_digits().data[:300]


def digit_documents() -> list[str]:
    """Each digit image as a text: the word ``p<j>`` once per unit of pixel ``j``'s ink (real counts)."""
    return [" ".join(f"p{j}" for j, ink in enumerate(row) for _ in range(int(ink))) for row in X_DIGITS]


def in_place_scaler(with_std: bool = True) -> StandardScaler:
    """A consumer that scales what it is given in place (``copy=False``), when it may."""
    return StandardScaler(copy=False, with_mean=False, with_std=with_std)


class Recording(BaseEstimator, TransformerMixin):
    """Scales by 2 (in place when ``copy=False``, as scikit-learn's); records the objects it was given."""

    given: list = []

    def __init__(self, copy: bool = True) -> None:
        self.copy = copy

    def fit(self, X, y=None):
        Recording.given.append(X)
        return self

    def transform(self, X):
        Recording.given.append(X)
        out = X if not self.copy else np.array(X)
        out *= 2.0
        return out


# -- which models write in place; copies -----------------------------------------------------------------------


def test_a_model_writes_in_place_when_a_copy_parameter_says_so():
    assert IN_PLACE_PARAMETERS == {"copy", "copy_X", "copy_x"}
    assert not writes_in_place(StandardScaler()) and writes_in_place(StandardScaler(copy=False))
    assert writes_in_place(Ridge(copy_X=False)) and not writes_in_place(Ridge())
    assert writes_in_place(KMeans(copy_x=False)) and not writes_in_place(KMeans())
    assert writes_in_place(HDBSCAN())  # copy="warn": False until scikit-learn 1.10
    assert not writes_in_place(HDBSCAN(copy=True))
    assert not writes_in_place(StandardScaler(copy=np.True_))
    assert not writes_in_place(TSNE()) and not writes_in_place(object())  # no such parameter; no get_params


def test_a_model_holding_one_that_writes_in_place_writes_in_place():
    assert writes_in_place(BaggingRegressor(Ridge(copy_X=False)))  # a plain meta-estimator: its values
    assert not writes_in_place(BaggingRegressor(Ridge()))
    assert writes_in_place(make_pipeline(MinMaxScaler(), Normalizer(copy=False), Ridge()))  # deep parameters
    assert not writes_in_place(make_pipeline(MinMaxScaler(), Normalizer(), Ridge()))
    columns = ColumnTransformer([("sc", StandardScaler(copy=False), [0, 1])])
    assert writes_in_place(columns) and writes_in_place(ww.Pipeline([("c", columns), ("r", Ridge())]))


def test_the_parameters_read_by_the_caller_are_used_as_they_are():
    model = StandardScaler()
    names, values = param_values(model)
    told = tuple(False if name == "copy" else value for name, value in zip(names, values))
    assert writes_in_place(model, (names, told), plain=True)  # what the caller read, not the model again
    assert not writes_in_place(model, (names, values), plain=True)


def test_copied_copies_tables_and_hands_other_values_as_they_are():
    fortran = np.asfortranarray(X_DIABETES)
    mine = copied(fortran)
    assert mine.flags.f_contiguous and not np.shares_memory(mine, fortran)
    np.testing.assert_array_equal(mine, fortran)
    matrix = sp.csr_matrix(X_DIGITS)
    mine = copied(matrix)
    assert type(mine) is type(matrix) and not np.shares_memory(mine.data, matrix.data)
    frame = pd.DataFrame(X_DIABETES[:20, :3], columns=["age", "sex", "bmi"])
    mine = copied(frame)
    mine.iloc[0, 0] = 99.0
    assert frame.iloc[0, 0] == X_DIABETES[0, 0]
    series = pd.Series(Y_DIABETES)
    mine = copied(series)
    mine.iloc[0] = 0.0
    assert series.iloc[0] == Y_DIABETES[0]
    for value in ([1, 2], (1.0,), 3.5, "text", None, {"a": 1}):
        assert copied(value) is value


# -- a machine's training output -------------------------------------------------------------------------------


def pca_then_in_place(with_std: bool = True):
    """PCA (trains by its own fit_transform: the machine keeps the output) -> an in-place scaler -> Ridge."""
    X, y = ww.source(X_DIABETES, name="X"), ww.source(Y_DIABETES, name="y")
    pca = ww.machine(PCA(3), X, name="pca")
    Z = pca.transform(X)
    scaler = ww.machine(in_place_scaler(with_std), Z, name="scaler")
    W = scaler.transform(Z)
    ridge = ww.machine(Ridge(), W, y, name="ridge")
    return ridge.predict(W), Z, pca, scaler


def expected_predictions(with_std: bool) -> np.ndarray:
    Z = PCA(3).fit_transform(X_DIABETES)
    W = StandardScaler(with_mean=False, with_std=with_std).fit_transform(Z)
    return Ridge().fit(W, Y_DIABETES).predict(W)


class _Keeps(BaseEstimator):
    """Keeps what ``fit`` is given, as ``kept``."""

    def __init__(self, pick=None):
        self.pick = pick

    def fit(self, X, y=None):
        self.kept_ = X if self.pick is None else self.pick(X)
        return self

    def predict(self, X):
        return np.zeros(len(X))


def test_holds_values_finds_the_training_data_or_its_memory_however_it_is_kept():
    X = np.arange(24.0).reshape(6, 4)
    frame = pd.DataFrame({"a": np.arange(6.0), "b": np.arange(6)})  # two dtypes: two blocks
    sparse = sp.csr_matrix(X)
    listed = [1.0, 2.0]
    held = [
        (_Keeps().fit(X), [X]),  # the very array
        (_Keeps(lambda x: x[::-1, 1:3]).fit(X), [X]),  # a strided view of part of it
        (_Keeps(lambda x: x.T).fit(X), [X[:, :2]]),  # the training value is a view, the kept array another
        (_Keeps(lambda x: x["b"].to_numpy()).fit(frame), [frame]),  # a column of a frame
        (_Keeps().fit(frame), [frame]),  # the frame itself
        (_Keeps(lambda x: x.data).fit(sparse), [sparse]),  # a sparse matrix's data
        (_Keeps(lambda x: {"rows": [(1, x[2])]}).fit(X), [X]),  # in a tuple in a list in a dict
        (make_pipeline(_Keeps()).fit(X), [X]),  # in a step of a Pipeline
        (BaggingRegressor(_Keeps(lambda x: X), n_estimators=2).fit(X, np.arange(6.0)), [X]),  # in fitted members
        (_Keeps(lambda x: [[[[[[x]]]]]]).fit(X), [X]),  # however deep
        (_Keeps(lambda x: {"kept": x[:, 1:]}).fit(X), [X]),  # a view, in a dict
        (make_pipeline(make_pipeline(make_pipeline(_Keeps()))).fit(X), [X]),  # in a step of a step of a step
        (_Keeps(lambda x: [x.tolist(), listed]).fit(X), [listed]),  # a list that is the value itself
        (_Keeps(lambda x: np.array([None, x], dtype=object)).fit(X), [X]),  # an element of an object array
    ]
    for fitted, values in held:
        assert holds_values(fitted, values), fitted
    apart = [
        (_Keeps(lambda x: x.copy()).fit(X), [X]),
        (_Keeps(lambda x: x[:, 2:]).fit(X), [X[:, :2].copy()]),
        (_Keeps(lambda x: x[:0]).fit(X), [X]),  # empty: no memory of it
        (Ridge().fit(X, np.arange(6.0)), [X, np.arange(6.0)]),
        (_Keeps().fit(X), ["a value", None]),
    ]
    for fitted, values in apart:
        assert not holds_values(fitted, values), fitted


def test_holds_values_looks_into_a_model_that_does_not_pickle_a_few_levels_deep():
    import threading

    X = np.arange(24.0).reshape(6, 4)
    lock = threading.Lock()  # does not pickle: the model's attributes are looked at instead, four levels deep
    assert holds_values(_Keeps(lambda x: [lock, [x]]).fit(X), [X])
    assert holds_values(_Keeps(lambda x: {"lock": lock, "kept": x[1:]}).fit(X), [X])
    assert not holds_values(_Keeps(lambda x: [lock, [[[[x]]]]]).fit(X), [X])
    assert not holds_values(_Keeps(lambda x: [lock, x.copy()]).fit(X), [X])


def test_the_first_pass_keeps_the_output_whole_though_an_in_place_model_takes_it():
    yhat, Z, pca, scaler = pca_then_in_place()
    yhat.fit()
    np.testing.assert_array_equal(pca._output[1], PCA(3).fit_transform(X_DIABETES))  # not scaled in place
    np.testing.assert_allclose(yhat(), expected_predictions(True), rtol=1e-10)
    assert scaler._writes == (scaler.fitted_model, True)


def test_a_refit_downstream_trains_on_the_output_as_it_was():
    yhat, Z, pca, scaler = pca_then_in_place(with_std=True)
    yhat.fit()
    scaler.model.with_std = False  # condition 6: the scaler trains again, on the kept output
    yhat.fit()
    assert pca.report()["action"] == "skipped" and scaler.report()["action"] == "updated"
    np.testing.assert_allclose(yhat(), expected_predictions(False), rtol=1e-10)  # 82 off when it was scaled


def test_only_a_model_that_writes_in_place_is_given_a_copy():
    X = ww.source(X_DIABETES, name="X")
    pca = ww.machine(PCA(3), X)
    Z = pca.transform(X)
    for told, same in ((True, True), (False, False)):
        Recording.given = []
        ww.machine(Recording(copy=told), Z).transform(Z).fit()()
        kept = pca._output[1]
        assert len(Recording.given) == 2  # fit, then transform in the node's call
        assert all((value is kept) is same for value in Recording.given)
        np.testing.assert_array_equal(kept, PCA(3).fit_transform(X_DIABETES))


def test_a_machine_copied_or_pickled_finds_out_again_whether_its_model_writes_in_place():
    yhat, Z, pca, scaler = pca_then_in_place()
    yhat.fit()
    twin = pickle.loads(pickle.dumps(yhat))
    machine = {m.name: m for m in twin.machines()}["scaler"]
    machine._writes = None  # as a machine pickled before it existed
    new = X_DIABETES[:5].copy()
    np.testing.assert_allclose(twin(new), yhat(X_DIABETES[:5]), rtol=1e-12)
    np.testing.assert_array_equal(new, X_DIABETES[:5])
    assert machine._writes == (machine.fitted_model, True)


def test_node_gives_the_caller_a_copy_of_the_output_it_may_change():
    X = ww.source(X_DIABETES, name="X")
    node = ww.machine(PCA(3), X).transform(X)
    node.fit()
    value = node()
    before = value.copy()
    value[:] = 5.0
    np.testing.assert_array_equal(node(), before)
    assert X() is X_DIABETES  # a source's own data: the caller's, as it is


def test_a_fit_predict_and_a_fit_transform_node_hand_out_copies():
    X = ww.source(X_DIGITS[:150], name="X")
    dbscan = ww.machine(DBSCAN(eps=25.0, min_samples=3), X)
    labels = dbscan.fit_predict(X).fit()
    tsne = ww.machine(TSNE(perplexity=10.0, random_state=0, max_iter=250), X)
    embedding = tsne.fit_transform(X).fit()
    for node, attribute in ((labels, dbscan.fitted_model.labels_), (embedding, tsne.fitted_model.embedding_)):
        value = node()
        before = value.copy()
        value[:] = 7
        np.testing.assert_array_equal(node(), before)
        np.testing.assert_array_equal(attribute, before)  # the model's own (fit_predict returned labels_ itself)


@pytest.mark.parametrize("where", ["memory", "disk"])
def test_an_output_and_values_taken_back_from_the_fit_cache_stay_whole(tmp_path, where):
    cache = ww.FitCache(tmp_path if where == "disk" else None)
    for round_ in range(2):
        yhat, Z, pca, scaler = pca_then_in_place()
        yhat.fit(cache=cache)
        if round_:  # the second network found the first one's fits
            assert "found in the cache" in pca.report()["reason"]
        np.testing.assert_array_equal(pca._output[1], PCA(3).fit_transform(X_DIABETES))
        np.testing.assert_allclose(yhat(), expected_predictions(True), rtol=1e-10)


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copied_network_trains_on_its_output_as_it_was(tmp_path, how):
    cache = ww.FitCache(tmp_path)
    yhat, Z, pca, scaler = pca_then_in_place()
    yhat.fit(cache=cache)
    twin = pickle.loads(pickle.dumps(yhat)) if how == "pickle" else copy.deepcopy(yhat)
    machines = {m.name: m for m in twin.machines()}
    assert machines["pca"]._output is None  # dropped
    machines["scaler"].model.with_std = False
    twin.fit(cache=cache)  # the output comes back from the disk cache
    assert "found in the cache" in machines["pca"].report()["reason"]
    np.testing.assert_allclose(twin(), expected_predictions(False), rtol=1e-10)
    twin_again = pickle.loads(pickle.dumps(yhat))
    twin_again.fit()  # no cache: it trains again (condition 7), by fit_transform
    kept = {m.name: m for m in twin_again.machines()}["pca"]._output[1]
    np.testing.assert_array_equal(kept, PCA(3).fit_transform(X_DIABETES))


def test_a_sparse_output_is_not_normalized_in_place():
    docs = ww.source(digit_documents(), name="docs")
    tfidf = ww.machine(TfidfVectorizer(), docs, name="tfidf")
    T = tfidf.transform(docs)
    normalizer = ww.machine(Normalizer(norm="l2", copy=False), T)
    N = normalizer.transform(T)
    kmeans = ww.machine(MiniBatchKMeans(4, n_init=1, random_state=0), N)
    clusters = kmeans.predict(N)
    svd = ww.machine(TruncatedSVD(5, random_state=0), T)
    clusters.fit()
    expected = TfidfVectorizer().fit_transform(digit_documents())
    np.testing.assert_array_equal(tfidf._output[1].toarray(), expected.toarray())  # not normalized in place
    normalizer.model.norm = "l1"
    clusters.fit()
    N_expected = Normalizer(norm="l1").fit_transform(expected)
    np.testing.assert_array_equal(
        clusters(), MiniBatchKMeans(4, n_init=1, random_state=0).fit(N_expected).predict(N_expected)
    )
    assert np.isfinite(svd.transform(T).fit()()).all()


def test_a_dataframe_output_is_not_scaled_in_place():
    frame = pd.DataFrame(X_DIABETES, columns=[f"x{j}" for j in range(10)])
    X, y = ww.source(frame, name="X"), ww.source(Y_DIABETES, name="y")
    pca = ww.machine(PCA(3).set_output(transform="pandas"), X)
    Z = pca.transform(X)
    scaler = ww.machine(in_place_scaler(True), Z)
    ridge = ww.machine(Ridge(), scaler.transform(Z), y)
    yhat = ridge.predict(scaler.transform(Z))
    yhat.fit()
    scaler.model.with_std = False
    yhat.fit()
    np.testing.assert_allclose(yhat(), expected_predictions(False), rtol=1e-10)
    value = Z()
    value.iloc[:, :] = 0.0
    np.testing.assert_allclose(Z().to_numpy(), PCA(3).fit_transform(X_DIABETES), rtol=1e-12)


# -- the values of a fit pass, and of a call on new data -------------------------------------------------------


@pytest.mark.parametrize("kind", ["dynamic", "static", "source"])
def test_a_pass_value_two_machines_share_is_not_changed_by_one_of_them(kind):
    X, y = ww.source(X_DIABETES.copy(), name="X"), ww.source(Y_DIABETES, name="y")
    if kind == "dynamic":  # a machine that trains by fit: a value of the pass, not an output kept
        Z = ww.machine(MinMaxScaler(), X).transform(X)
        Z_expected = MinMaxScaler().fit_transform(X_DIABETES)
    elif kind == "static":  # a static node's value
        Z = ww.node(np.add, X, 1.0)
        Z_expected = X_DIABETES + 1.0
    else:  # the source's data, which stays as the caller gave it
        Z, Z_expected = X, X_DIABETES
    scaler = ww.machine(in_place_scaler(True), Z)
    W = scaler.transform(Z)  # computed to train `second`: scaled Z in place when it could
    second = ww.machine(Ridge(), W, y)
    stacked = ww.hcat(Z, second.predict(W))
    last = ww.machine(Ridge(), stacked, y)  # trains after `second`, on Z as it was
    last.predict(stacked).fit()
    W_expected = StandardScaler(with_mean=False).fit_transform(Z_expected)
    features = np.column_stack([Z_expected, Ridge().fit(W_expected, Y_DIABETES).predict(W_expected)])
    np.testing.assert_allclose(last.fitted_model.coef_, Ridge().fit(features, Y_DIABETES).coef_, rtol=1e-10)
    np.testing.assert_array_equal(X.data, X_DIABETES)


def test_new_data_two_consumers_share_is_not_changed_by_one_that_writes_in_place():
    X = ww.source(X_DIABETES, name="X")
    scaled = ww.machine(in_place_scaler(True), X).transform(X)
    both = ww.hcat(scaled, X)  # a diamond: the call hands one value to both
    both.fit()
    new = X_DIABETES[:7].copy()
    value = both(new)
    np.testing.assert_array_equal(new, X_DIABETES[:7])  # the caller's data: not scaled where it lay
    expected = StandardScaler(with_mean=False).fit(X_DIABETES).transform(X_DIABETES[:7])
    np.testing.assert_allclose(value, np.column_stack([expected, X_DIABETES[:7]]), rtol=1e-12)
