"""scikit-learn's LocalOutlierFactor(novelty=True) exported: distances to every training row, TopK, densities.

The oracle is the native ``predict`` / ``decision_function`` / ``score_samples`` on the same rows, run by ONNX
Runtime on one thread: bit for bit, the trees' distances (squared differences added column by column) on any
CPU, the brute search's (``|x|^2 + -2 x.t + |t|^2`` from BLAS) where OpenBLAS runs its SkylakeX kernels;
labels exact even a float64 step from the boundary. Where training rows lie at equal distances from a row
the file and the native search may take different neighbours: the export warns, and only such rows differ.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _openblas import SKYLAKEX
from _outliers import OUTPUTS, assert_exports_bit_for_bit, assert_unknown_method_refused, boundary_rows, run_outputs
from scipy import sparse
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris, load_wine
from sklearn.neighbors import LocalOutlierFactor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import wirework as ww
from wirework.export.sklearn_neighbors import _convert_local_outlier_factor

pytest.importorskip("onnxruntime")

DATA = {"wine": load_wine, "diabetes": load_diabetes, "breast_cancer": load_breast_cancer}
SETTINGS = {
    "default": LocalOutlierFactor(novelty=True),
    "kd_tree": LocalOutlierFactor(novelty=True, algorithm="kd_tree", leaf_size=5),
    "ball_tree": LocalOutlierFactor(novelty=True, algorithm="ball_tree"),
    "brute": LocalOutlierFactor(novelty=True, algorithm="brute"),
    "few_neighbours": LocalOutlierFactor(novelty=True, n_neighbors=5, contamination=0.1),
    "manhattan": LocalOutlierFactor(novelty=True, p=1, contamination=0.2),
}


def _halves(name: str, scaled: bool) -> tuple[np.ndarray, np.ndarray]:
    """The even rows (to fit) and the odd rows (new rows) of a data set."""
    X, _ = DATA[name](return_X_y=True)
    X = StandardScaler().fit_transform(X) if scaled else X
    return np.ascontiguousarray(X[::2]), np.ascontiguousarray(X[1::2])


def _exact_here(model) -> bool:
    """Whether the file adds the distances as the native search does on this CPU: a tree search (no BLAS), or
    OpenBLAS running its SkylakeX kernels, whose order the file follows."""
    return SKYLAKEX or not _needs_blas(model)


def _needs_blas(model) -> bool:
    """Whether the native distances come from BLAS: a brute Euclidean search."""
    return model._fit_method == "brute" and model.effective_metric_ == "euclidean"


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("scaled", [True, False], ids=["scaled", "raw"])
@pytest.mark.parametrize("data", list(DATA))
def test_local_outlier_factor_is_bit_for_bit(data, scaled, setting):
    train, new = _halves(data, scaled)
    model = clone(SETTINGS[setting]).fit(train)
    if not _exact_here(model):  # another CPU's BLAS order: the same neighbours, distances a few ulps apart
        out = run_outputs(ww.to_onnx(model), new)
        np.testing.assert_allclose(out["score_samples"], model.score_samples(new), rtol=1e-9)
        return
    for rows in (train, new[:1], new[:3]):  # a training row is its own nearest neighbour
        assert ww.onnx.check_parity(model, ww.to_onnx(model), rows).exact
    out = assert_exports_bit_for_bit(model, new)
    np.testing.assert_array_equal(out["score_samples"], model.score_samples(new))


def test_the_search_follows_the_fitted_method():
    # breast cancer's 30 columns: "auto" searches by brute force, wine's 13 with a k-d tree
    assert LocalOutlierFactor(novelty=True).fit(_halves("breast_cancer", True)[0])._fit_method == "brute"
    assert LocalOutlierFactor(novelty=True).fit(_halves("wine", True)[0])._fit_method == "kd_tree"
    # the brute search's squared distances are not the squared differences added up: a file computing those
    # differed (the test above fails with them), as they differ here
    train, new = _halves("breast_cancer", True)
    model = LocalOutlierFactor(novelty=True, algorithm="brute").fit(train)
    distances, indices = model.kneighbors(new)
    direct = np.sqrt(((new[:, None, :] - train[indices]) ** 2).sum(axis=2))
    assert (direct != distances).mean() > 0.5


def _ties(model, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, natively: whether its k-th and (k+1)-th nearest training rows are at the same distance (the two
    searches may then take different neighbours), and whether two of its k are (they may sum in other orders)."""
    k = model.n_neighbors_
    distances, _ = model.kneighbors(rows, n_neighbors=k + 1)
    return distances[:, k - 1] == distances[:, k], (np.diff(distances[:, :k], axis=1) == 0).any(axis=1)


@pytest.mark.parametrize("data", list(DATA))
def test_rows_on_the_boundary_are_labelled_as_natively(data):
    # rows a float64 step apart on either side of where the label changes: most within 1e-12 of the boundary, a
    # decision of exactly 0 (an inlier) among them; the others on a jump of the score, where the k-th neighbour
    # changes (two training rows at about the same distance): bit for bit unless the two are at exactly the same
    # distance (breast cancer: 7 of 80 rows, of which 1 took the other neighbour and label)
    train, _ = _halves(data, scaled=True)
    model = LocalOutlierFactor(novelty=True, contamination=0.1).fit(train)
    rows = boundary_rows(model, train)
    decision = model.decision_function(rows)
    assert (np.abs(decision) < 1e-12).sum() >= 60 and (decision == 0).any()
    tied, _ = _ties(model, rows)
    assert (~tied).sum() >= 70
    out = run_outputs(ww.to_onnx(model), rows)
    if not _exact_here(model):  # another CPU's BLAS order: labels this close to the boundary may differ
        np.testing.assert_allclose(out["decision_function"][~tied], decision[~tied], rtol=0, atol=1e-9)
        return
    np.testing.assert_array_equal(out["decision_function"][~tied], decision[~tied])
    np.testing.assert_array_equal(out["predict"][~tied], model.predict(rows)[~tied])


@pytest.mark.parametrize("loader, algorithm", [(load_iris, "kd_tree"), (load_digits, "brute")], ids=["iris", "digits"])
def test_equal_distances_warn_and_only_rows_with_them_differ(loader, algorithm):
    # repeated rows (iris) and integer pixels (digits): among training rows at equal distances the file takes the
    # first, the native search others (and sorts them in any order); the export says so, and a row differs only
    # where two of its k + 1 nearest training rows are at the same distance
    X, _ = loader(return_X_y=True)
    train, new = np.ascontiguousarray(X[::2], dtype=float), np.ascontiguousarray(X[1::2], dtype=float)
    model = LocalOutlierFactor(novelty=True, algorithm=algorithm).fit(train)
    with pytest.warns(ww.PrecisionWarning, match=r"LocalOutlierFactor: \d+ of its \d+ training rows have their "
                                                  r"20th and 21th nearest training rows at the same distance"):
        exported = ww.to_onnx(model)
    for rows in (new, train):
        out, native = run_outputs(exported, rows)["score_samples"], model.score_samples(rows)
        tied, inner = _ties(model, rows)
        if not _exact_here(model):  # another CPU's BLAS order: rows without equal distances a few ulps apart
            np.testing.assert_allclose(out[~tied & ~inner], native[~tied & ~inner], rtol=1e-9)
            continue
        differ = out != native
        assert differ.any()
        assert not (differ & ~tied & ~inner).any()
        # equal distances within the k only: the same neighbours summed in another order (measured 6.6e-16)
        assert np.all(np.abs(out - native)[differ & ~tied] <= 1e-15 * np.abs(native[differ & ~tied]))
        if loader is load_digits:  # other neighbours: up to 0.023 off
            assert (np.abs(out - native)[differ & tied] > 1e-3).any()


def test_data_without_equal_distances_exports_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ww.to_onnx(LocalOutlierFactor(novelty=True).fit(_halves("wine", True)[0]))


def test_a_pipeline_ending_in_a_local_outlier_factor_exports_whole():
    X, _ = load_wine(return_X_y=True)
    for pipe in (ww.Pipeline([("scale", StandardScaler()), ("outliers", LocalOutlierFactor(novelty=True))]),
                 make_pipeline(StandardScaler(), LocalOutlierFactor(novelty=True, contamination=0.1))):
        pipe.fit(X)
        exported = ww.to_onnx(pipe)
        assert [o.name for o in exported.graph.output] == OUTPUTS
        assert ww.onnx.check_parity(pipe, exported, X).exact


NOVELTY = (r"A LocalOutlierFactor with novelty=False scores only its training rows .* Fit "
           r"LocalOutlierFactor\(novelty=True\) to score new rows, and export that")


def test_without_novelty_it_is_refused_saying_to_use_novelty():
    train, _ = _halves("wine", True)
    with pytest.raises(ww.ExportError, match=r"LocalOutlierFactor: cannot export any method; its converter exports "
                                             r"nothing\. " + NOVELTY):
        ww.to_onnx(LocalOutlierFactor().fit(train))
    with pytest.raises(ww.ExportError, match=r"Pipeline: cannot export any method; .* " + NOVELTY):
        ww.to_onnx(make_pipeline(StandardScaler(), LocalOutlierFactor()).fit(train))
    pipe = ww.Pipeline([("scale", StandardScaler()), ("outliers", LocalOutlierFactor())]).fit(train)
    with pytest.raises(ww.ExportError, match=r"The network has no exportable output; it offers \['fit_predict'\]\. "
                                             + NOVELTY):
        ww.to_onnx(pipe)


@pytest.mark.parametrize("params", [{"metric": "chebyshev"}, {"p": 3}, {"metric": "l2"},
                                    {"metric": "minkowski", "metric_params": {"w": np.ones(13)}}],
                         ids=["chebyshev", "p3", "l2", "weights"])
def test_other_metrics_are_refused(params):
    train, _ = _halves("wine", True)
    model = LocalOutlierFactor(novelty=True, **params).fit(train)
    with pytest.raises(ww.ExportError, match=r"A LocalOutlierFactor with metric=.* cannot be exported; the exported "
                                             r"distances are 'euclidean' \(the default, minkowski with p=2\) and "
                                             r"'manhattan' \(p=1\), without metric_params"):
        ww.to_onnx(model)
    assert issubclass(ww.ExportError, ValueError)


def test_what_the_file_cannot_compute_as_natively_is_refused():
    train, _ = _halves("wine", True)
    with pytest.raises(ww.ExportError, match=r"A LocalOutlierFactor fit on a sparse matrix cannot be exported: .* "
                                             r"Fit it on a dense array"):
        ww.to_onnx(LocalOutlierFactor(novelty=True).fit(sparse.csr_matrix(train)))
    model = LocalOutlierFactor(novelty=True).fit(train)
    with pytest.raises(ww.ExportError, match=r"A LocalOutlierFactor exports in float64 only \(fit on float64 rows, "
                                             r"export dtype float32\): .* export it with dtype='float64'"):
        ww.to_onnx(model, dtype="float32")
    with pytest.raises(ww.ExportError, match=r"fit on float32 rows, export dtype float64"):
        ww.to_onnx(LocalOutlierFactor(novelty=True).fit(train.astype(np.float32)))
    assert_unknown_method_refused(model, _convert_local_outlier_factor, "transform")
