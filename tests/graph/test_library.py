"""Ready-made static operations: kinds preserved, the seed's fold rule, errors."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold
from sklearn.preprocessing import MinMaxScaler, StandardScaler

import wirework as ww


def test_folds_follow_the_seed_rule():
    assert [f.tolist() for f in ww.folds(np.zeros((10, 2)), 3)] == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]
    assert [f.tolist() for f in ww.folds(4, 2)] == [[0, 1], [2, 3]]


def test_folds_equal_kfold_when_n_divides_the_rows():
    ours = ww.folds(12, 4)
    theirs = [test for _, test in KFold(4).split(np.zeros(12))]
    assert all(np.array_equal(a, b) for a, b in zip(ours, theirs))


def test_shuffled_folds_partition_the_rows_reproducibly():
    a = ww.folds(20, 3, shuffle=True, random_state=1)
    b = ww.folds(20, 3, shuffle=True, random_state=1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert sorted(np.concatenate(a).tolist()) == list(range(20))
    assert [len(f) for f in a] == [6, 6, 8]
    assert not np.array_equal(a[0], np.arange(6))


@pytest.mark.parametrize("n", [1, 11, 2.0, True])
def test_folds_reject_bad_n(n):
    with pytest.raises(ww.DataError, match=r"2 <= n <= 10.*Received n="):
        ww.folds(10, n)


def test_restrict_and_corestrict_keep_kind_and_index():
    frame = pd.DataFrame({"a": range(6)}, index=list("abcdef"))
    f = ww.folds(frame, 3)
    assert ww.restrict(frame, f, 2).index.tolist() == ["e", "f"]
    assert ww.corestrict(frame, f, 0).index.tolist() == ["c", "d", "e", "f"]
    matrix = sp.csr_matrix(np.eye(6))
    assert sp.issparse(ww.restrict(matrix, f, 1)) and ww.restrict(matrix, f, 1).shape == (2, 6)
    assert ww.restrict([10, 11, 12, 13, 14, 15], f, 1) == [12, 13]


def test_corestrict_of_shuffled_folds_is_sorted_complement():
    f = ww.folds(9, 3, shuffle=True, random_state=0)
    rest = ww.corestrict(np.arange(9), f, 1)
    assert rest.tolist() == sorted(set(range(9)) - set(f[1].tolist()))


def test_restrict_rejects_bad_fold_index_and_folds():
    f = ww.folds(6, 3)
    with pytest.raises(ww.DataError, match=r"fold index 0 <= i < 3\. Received i=3"):
        ww.restrict(np.arange(6), f, 3)
    with pytest.raises(ww.DataError, match="needs the folds made by ww.folds"):
        ww.corestrict(np.arange(6), [np.arange(3)], 0)


def test_hcat_numpy_vectors_become_columns():
    out = ww.hcat(np.array([1.0, 2.0]), np.array([[3.0], [4.0]]))
    assert out.tolist() == [[1.0, 3.0], [2.0, 4.0]]


def test_hcat_with_pandas_aligns_by_position_and_keeps_the_first_index():
    left = pd.DataFrame({"a": [1, 2]}, index=[5, 6])
    right = pd.Series([3, 4], index=[0, 1], name="b")
    out = ww.hcat(left, right, np.array([7, 8]))
    assert isinstance(out, pd.DataFrame)
    assert out.index.tolist() == [5, 6] and out.columns.tolist() == ["a", "b", "x2"]
    assert out.to_numpy().tolist() == [[1, 3, 7], [2, 4, 8]]


def test_hcat_gives_a_name_that_several_tables_give_each_table_s_position_so_scikit_learn_takes_the_frame():
    """Two scalers' pandas output (``x0``, ``x1``…), or such a frame beside a 1-D prediction at position 1 (named
    ``x1``), joined into a frame with two columns of one name, which every scikit-learn model refused (narwhals'
    DuplicateError, inside a MachineFitError): the same network fitted with numpy output and failed with
    ``set_output(transform="pandas")``."""
    X = np.random.RandomState(0).rand(6, 3)
    with sklearn.config_context(transform_output="pandas"):
        scaled, ranged = StandardScaler().fit_transform(X), MinMaxScaler().fit_transform(X)
    joined = ww.hcat(scaled, np.arange(6.0))
    assert joined.columns.tolist() == ["x0", "x0_x1", "x2", "x1_x1"]
    assert joined.to_numpy().tolist() == np.column_stack([scaled, np.arange(6.0)]).tolist()
    both = ww.hcat(scaled, ranged, pd.Series(np.ones(6), name="p"), pd.Series(np.zeros(6), name="p"))
    assert both.columns.tolist() == [*(f"x0_x{k}" for k in range(3)), *(f"x1_x{k}" for k in range(3)), "x2_p", "x3_p"]
    y = X @ [1.0, 2.0, 3.0]
    assert Ridge().fit(both, y).predict(both).shape == (6,)  # no DuplicateError
    assert ww.hcat(scaled, pd.DataFrame({"a": np.ones(6)})).columns.tolist() == ["x0", "x1", "x2", "a"]  # unchanged


def test_hcat_sparse_gives_csr():
    out = ww.hcat(sp.csr_matrix(np.eye(2)), np.array([1.0, 2.0]))
    assert sp.issparse(out) and out.format == "csr" and out.toarray().tolist() == [[1, 0, 1], [0, 1, 2]]


def test_hcat_rejects_different_row_counts():
    with pytest.raises(ww.DataError, match=r"same number of rows\. Received rows \[2, 3\]"):
        ww.hcat(np.zeros(2), np.zeros(3))


def test_vcat_keeps_kind():
    assert ww.vcat(np.array([1, 2]), np.array([3])).tolist() == [1, 2, 3]
    series = ww.vcat(pd.Series([1], index=["a"]), pd.Series([2], index=["b"]))
    assert series.index.tolist() == ["a", "b"]
    assert ww.vcat(sp.csr_matrix(np.eye(2)), sp.csr_matrix(np.eye(2))).shape == (4, 2)


def test_vcat_rejects_mixed_kinds_and_dimensions():
    with pytest.raises(ww.DataError, match="one kind.*Received: pandas.Series, numpy.ndarray"):
        ww.vcat(pd.Series([1]), np.array([2]))
    with pytest.raises(ww.DataError, match=r"same number of dimensions\. Received shapes \[\(2,\), \(1, 2\)\]"):
        ww.vcat(np.zeros(2), np.zeros((1, 2)))
    with pytest.raises(ww.DataError, match=r"vcat\(\) needs at least one table"):
        ww.vcat()


def test_mean_of_values_or_of_a_list():
    assert ww.mean(np.array([1.0]), np.array([3.0])).tolist() == [2.0]
    assert ww.mean([np.array([1.0]), np.array([2.0]), np.array([6.0])]).tolist() == [3.0]
    assert ww.mean([1.0, 2.0], [3.0, 6.0]).tolist() == [2.0, 4.0]  # lists as arrays: + joined them, then / failed


def test_library_functions_build_nodes_when_given_nodes():
    X = ww.source(np.arange(6.0), name="X")
    f = ww.folds(X, 3)
    both = ww.vcat(ww.restrict(X, f, 0), ww.corestrict(X, f, 0))
    assert isinstance(both, ww.StaticNode)
    assert both().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert both(np.arange(3.0) * 10).tolist() == [0.0, 10.0, 20.0]
    assert repr(ww.mean(X, X * 2)) == "mean(X, (X * 2))"


@pytest.mark.parametrize("operation", [ww.restrict, ww.corestrict])
@pytest.mark.parametrize("rows", [5, 19, 25])
def test_restrict_refuses_folds_made_for_other_rows(operation, rows):
    folds = ww.folds(20, 3)
    with pytest.raises(ww.DataError, match=rf"{operation.__name__}\(\) got folds made for 20 rows; the data has {rows}\."):
        operation(np.zeros((rows, 2)), folds, 2)


def test_a_target_one_row_short_fails_its_machine_on_the_folds_of_x():
    X, y = ww.source(np.zeros((20, 3)), name="X"), ww.source(np.zeros(19), name="y")
    f = ww.folds(X, 3)
    mach = ww.machine(Ridge(), ww.restrict(X, f, 2), ww.restrict(y, f, 2))
    with pytest.raises(ww.DataError, match=r"folds made for 20 rows; the data has 19"):
        mach.fit()
    assert mach.report()["action"] == "failed" and mach.report()["reason"].startswith("its training values: DataError")


def test_vcat_refuses_tables_of_other_columns():
    with pytest.raises(ww.DataError, match=r"same columns\. Received shapes \[\(3, 2\), \(2, 7\)\]"):
        ww.vcat(np.zeros((3, 2)), np.zeros((2, 7)))
    with pytest.raises(ww.DataError, match=r"same columns\. Received shapes \[\(3, 2\), \(2, 7\)\]"):
        ww.vcat(sp.csr_matrix((3, 2)), sp.csr_matrix((2, 7)))
    with pytest.raises(ww.DataError, match=r"DataFrames with the same columns\. Received columns \[\['a'\], \['b'\]\]"):
        ww.vcat(pd.DataFrame({"a": [1]}), pd.DataFrame({"b": [2]}))  # pandas would fill both with NaN
    assert ww.vcat(pd.DataFrame({"a": [1], "b": [2]}), pd.DataFrame({"b": [4], "a": [3]})).to_numpy().tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("other", [np.zeros((4, 3)), pd.Series(np.zeros(4)), sp.csr_matrix((4, 3))])
def test_hcat_refuses_tables_that_are_not_1d_or_2d(other):
    """numpy refuses them; the pandas and sparse joins would flatten the 3-D one silently."""
    with pytest.raises(ww.DataError, match=r"hcat\(\) joins 1-D and 2-D tables\. Received shapes \[\(4, 2, 2\), \(4,"):
        ww.hcat(np.zeros((4, 2, 2)), other)


def test_mean_refuses_values_of_different_shapes():
    with pytest.raises(ww.DataError, match=r"mean\(\) needs values of one shape\. Received shapes \[\(3,\), \(4,\)\]"):
        ww.mean(np.zeros(3), np.zeros(4))
    with pytest.raises(ww.DataError, match=r"Received shapes \[\(3,\), \(3, 1\)\]"):
        ww.mean(np.zeros(3), np.zeros((3, 1)))  # numpy would broadcast them to (3, 3)


def test_mean_of_pandas_values_is_by_position_as_hcat_joins():
    # pandas' + aligns labels: predictions indexed otherwise (a model giving a Series with a default index beside
    # one keeping the caller's) averaged the wrong rows, or gave NaN
    caller = pd.Series([1.0, 2.0, 3.0], index=["c", "a", "b"], name="p")
    default = pd.Series([10.0, 20.0, 30.0])
    averaged = ww.mean(caller, default)
    assert averaged.index.tolist() == ["c", "a", "b"] and averaged.tolist() == [5.5, 11.0, 16.5]
    assert ww.mean(caller, caller.sort_index()).tolist() == ww.mean(caller, caller.sort_index().to_numpy()).tolist()
    left = pd.DataFrame({"p0": [1.0, 2.0], "p1": [3.0, 4.0]}, index=["x", "y"])
    right = pd.DataFrame({"q0": [5.0, 6.0], "q1": [7.0, 8.0]})
    both = ww.mean(left, right)
    assert both.index.tolist() == ["x", "y"] and both.columns.tolist() == ["p0", "p1"]
    assert both.to_numpy().tolist() == [[3.0, 5.0], [4.0, 6.0]]
    assert ww.mean(np.array([2.0, 4.0, 6.0]), caller).index.tolist() == ["c", "a", "b"]  # the first pandas value's



@pytest.mark.parametrize(
    ("kind", "left", "right"),
    [
        ("bool", [True, False, False], [True, True, False]),  # + of two bool arrays is their OR: [0.5, 0.5, 0]
        ("int8", [100, -100, 3], [100, -100, 4]),  # wraps: [-28, 28, 3.5]
        ("uint8", [200, 255, 1], [100, 255, 2]),
    ],
)
@pytest.mark.parametrize("container", ["numpy", "pandas", "frame", "sparse", "node"])
def test_mean_of_bools_and_small_integers_is_numpy_s(kind, left, right, container):
    # the mean of votes (a node's x > 0) or of int8 labels, as np.mean computes it: in float64
    expected = np.mean([np.array(left, dtype=kind), np.array(right, dtype=kind)], axis=0)
    wrap = {
        "numpy": lambda v: np.array(v, dtype=kind),
        "pandas": lambda v: pd.Series(np.array(v, dtype=kind)),
        "frame": lambda v: pd.DataFrame({"a": np.array(v, dtype=kind), "b": np.array(v, dtype=kind)}),
        "sparse": lambda v: sp.csr_matrix(np.array([v], dtype=kind)),
        "node": lambda v: ww.source(np.array(v, dtype=kind)),
    }[container]
    got = ww.mean(wrap(left), wrap(right))
    got = got() if container == "node" else got
    got = got.toarray()[0] if container == "sparse" else np.asarray(got)
    got = got[:, 1] if container == "frame" else got
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.float64
    assert ww.mean(np.array(left, dtype=kind)[0], np.array(right, dtype=kind)[0]) == expected[0]  # numpy scalars

def test_nodes_inside_a_list_are_refused_and_a_mean_of_a_list_of_nodes_is_a_node():
    # a list holding nodes was passed on uncomputed: vcat([X, X]) asked for the nodes' array values (a misleading
    # LazyNodeError) and ww.node(np.column_stack, [a, b]) failed only when called
    X_data = np.arange(6.0).reshape(3, 2)
    X, y = ww.source(X_data, name="X"), ww.source(np.array([1.0, 2.0, 4.0]), name="y")
    with pytest.raises(ww.ArgumentError, match=r"vcat: argument 1 is a list holding nodes \(X, X\); a node inside"):
        ww.vcat([X, X])
    with pytest.raises(ww.ArgumentError, match=r"column_stack: argument 1 is a tuple holding nodes \(X, y\)"):
        ww.node(np.column_stack, (X, y))
    with pytest.raises(ww.ArgumentError, match=r"concatenate: axis is a list"):
        ww.node(np.concatenate, X, axis=[X])
    # mean takes one list of predictions, nodes too (documented): a node computing the mean
    first = ww.machine(Ridge(alpha=1.0), X, y).predict(X)
    second = ww.machine(Ridge(alpha=2.0), X, y).predict(X)
    for both in (ww.mean([first, second]), ww.mean(first, second)):
        assert repr(both) == "mean(predict(m1, X), predict(m2, X))"
        both.fit(verbose=0)
        np.testing.assert_allclose(both(), (first() + second()) / 2)


@ww.lift
def doubled(x):
    """A lifted function of the test module: a network using it pickles by reference to it."""
    return x * 2


def test_a_trained_network_of_library_and_lifted_functions_pickles_and_predicts_alike():
    # pickle found each lifted function's node function (the function wrapped) under the name of the wrapper:
    # PicklingError "Can't pickle <function hcat>: it's not the same object as wirework.graph.library.hcat"
    import pickle

    from sklearn.linear_model import Ridge

    X_data = np.arange(24.0).reshape(12, 2)
    X, y = ww.source(X_data, name="X"), ww.source(X_data @ [1.0, -1.0], name="y")
    folds = ww.folds(X, 3)
    inside, outside = ww.restrict(X, folds, 0), ww.corestrict(X, folds, 0)
    ridge = ww.machine(Ridge(), ww.hcat(outside, doubled(outside)), ww.corestrict(y, folds, 0))
    yhat = ww.hcat(ridge.predict(ww.hcat(inside, doubled(inside))), ww.vcat(inside, inside)[:4])
    yhat.fit(verbose=0)
    restored = pickle.loads(pickle.dumps(yhat))
    np.testing.assert_array_equal(restored(), yhat())
    np.testing.assert_array_equal(restored(X_data + 1), yhat(X_data + 1))
    assert repr(restored) == repr(yhat) and restored.fit(verbose=0).machines()[0].report()["action"] == "skipped"
    assert doubled(3) == 6 and ww.hcat.__name__ == "hcat"  # the lifted functions behave as before
