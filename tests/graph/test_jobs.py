"""Jobs: how a model is trained (fit or fit_transform, a 1-D argument as a column) and copied."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _probes import CrossFitted
from sklearn.compose import ColumnTransformer
from sklearn.cross_decomposition import CCA, PLSSVD, PLSCanonical, PLSRegression
from sklearn.decomposition import NMF, PCA
from sklearn.linear_model import Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler, TargetEncoder

import wirework as ww
from wirework.graph.jobs import How, fresh_copy, from_column, run_job, trains_by_fit_transform


@pytest.mark.parametrize(
    ("kind", "unweighted", "weighted"),
    [
        (TargetEncoder, True, True),  # its own, taking **params
        (PCA, True, False),  # its own, without sample_weight: weights go to fit
        (NMF, True, False),
        (ColumnTransformer, True, True),
        (Pipeline, True, True),
        (ww.Pipeline, True, True),
        (StandardScaler, False, False),  # TransformerMixin's: fit, then transform
        (OneHotEncoder, False, False),
        (Ridge, False, False),  # none at all
        (CrossFitted, True, False),
        # fit, then transform(X, y): given y, the pair (x_scores, y_scores), where transform(X) is x_scores
        (PLSRegression, False, False),
        (PLSCanonical, False, False),
        (CCA, False, False),
        (PLSSVD, False, False),
    ],
)
def test_which_models_train_by_fit_transform(kind, unweighted, weighted):
    assert trains_by_fit_transform(kind, 2) is unweighted
    assert trains_by_fit_transform(kind, 3) is weighted


def test_run_job_returns_the_output_only_when_asked():
    X = np.arange(12.0).reshape(6, 2)
    fitted, output, seconds = run_job(CrossFitted(), [X], How(output="fit_transform"))
    np.testing.assert_array_equal(output, X - X.mean(axis=0) + 1000.0)
    assert fitted.mean_.shape == (2,) and seconds >= 0
    fitted, output, _ = run_job(CrossFitted(), [X], How())
    assert output is None and fitted.mean_.shape == (2,)
    fitted, output, _ = run_job(CrossFitted(), [X[:, 0]], How(column=True, output="fit_transform"))
    assert output.shape == (6, 1)  # the machine turns it back to 1-D


def test_fresh_copy_is_an_unfitted_clone_keeping_set_output():
    model = StandardScaler(with_mean=False).set_output(transform="pandas").fit(np.eye(3))
    copied = fresh_copy(model)
    assert copied is not model and copied.get_params() == model.get_params()
    assert not hasattr(copied, "scale_") and copied._sklearn_output_config == {"transform": "pandas"}


def test_a_sparse_column_comes_back_as_dense_values_of_the_right_length():
    column = sp.csr_matrix(np.array([[0.0], [1.0], [0.0], [2.0]]))
    flat = from_column(column, np.zeros(4))
    assert type(flat) is np.ndarray and flat.tolist() == [0.0, 1.0, 0.0, 2.0]
    like = pd.Series(np.zeros(4), index=[5, 6, 7, 8], name="t")
    series = from_column(column, like)
    assert series.index.tolist() == [5, 6, 7, 8] and series.name == "t" and series.tolist() == [0.0, 1.0, 0.0, 2.0]


@pytest.mark.parametrize("kind", [np.array, lambda v: pd.Series(v, index=range(10, 10 + len(v)), name="t")])
def test_a_one_hot_encoded_binary_vector_gives_its_one_column_in_one_dimension(kind):
    labels = kind(np.array(["a", "b", "a", "b", "b", "a"]))
    y = ww.source(labels, name="y")
    encoder = ww.machine(OneHotEncoder(drop="first"), y)  # sparse output, one column
    z = encoder.transform(y).fit()
    assert np.asarray(z()).tolist() == [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    assert isinstance(z(), type(labels)) and getattr(z(), "name", "t") == "t"
    assert np.asarray(z(kind(np.array(["b", "a"])))).tolist() == [1.0, 0.0]
