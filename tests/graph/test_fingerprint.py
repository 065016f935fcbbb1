"""Tests for wirework.graph.fingerprint (deterministic content tokens)."""

from __future__ import annotations

import collections
import copy
import dataclasses
import doctest
import functools
import json
import math
import os
import pathlib
import pickle
import subprocess
import sys
import textwrap
import threading
import timeit

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import BaggingRegressor, RandomForestRegressor
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import Lasso, Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

import wirework.graph.fingerprint as fingerprint
from wirework.graph.fingerprint import model_token, tokenize


def all_distinct(*objs: object) -> bool:
    tokens = [tokenize(obj) for obj in objs]
    return len(set(tokens)) == len(tokens)


# ---------------------------------------------------------------- basics


def test_token_is_32_hex_chars_and_repeatable() -> None:
    token = tokenize("abc", 1)
    assert len(token) == 32
    int(token, 16)
    assert tokenize("abc", 1) == token
    assert tokenize("abc", 1) != tokenize(1, "abc")


def test_docstring_examples_run() -> None:
    failed, attempted = doctest.testmod(fingerprint)
    assert attempted > 0
    assert failed == 0


def test_the_parameter_readers_moved_to_params_are_still_found_here() -> None:
    from wirework.graph import _params

    for name in ("attributes_getter", "param_names", "param_values", "shallow_params"):
        assert name in fingerprint.__all__
        assert getattr(fingerprint, name) is getattr(_params, name)


# ---------------------------------------------------------- rule 1: primitives


def test_primitives_are_type_tagged() -> None:
    assert all_distinct(1, 1.0, True, "1", b"1", bytearray(b"1"), 1 + 0j, None, 0, False)


def test_ints_of_any_size_and_sign_differ() -> None:
    assert all_distinct(-1, 255, 256, -256, 2**64, -(2**64), 2**100, 0)
    assert tokenize(2**100) == tokenize(2**100 + 0)


def test_all_nans_are_equal() -> None:
    neg_nan = -float("nan")
    inf_nan = float("inf") - float("inf")
    assert tokenize(float("nan")) == tokenize(neg_nan) == tokenize(inf_nan)
    assert tokenize(complex(float("nan"), 1)) == tokenize(complex(neg_nan, 1))
    assert tokenize(float("nan")) != tokenize(float("inf"))
    assert model_token(Ridge(alpha=float("nan"))) == model_token(Ridge(alpha=neg_nan))


def test_strings_bytes_and_concatenation_are_unambiguous() -> None:
    assert tokenize("ab", "c") != tokenize("a", "bc")
    assert tokenize(["ab", "c"]) != tokenize(["a", "bc"])
    assert tokenize("é") != tokenize("é".encode())
    assert tokenize("\ud800") == tokenize("\ud800")  # lone surrogate is fine


# ---------------------------------------------------------- rule 2: containers


def test_tuple_and_list_differ() -> None:
    assert tokenize((1, 2)) != tokenize([1, 2])
    assert tokenize([1, [2]]) != tokenize([1, (2,)])
    assert tokenize([[1], 2]) != tokenize([[1, 2]])


def test_dict_is_independent_of_insertion_order() -> None:
    a = {"x": 1, "y": [1, 2], "z": None}
    b = {"z": None, "y": [1, 2], "x": 1}
    assert tokenize(a) == tokenize(b)
    c = {1: "a", (2, 3): "b", 2.5: "c", None: "d"}
    d = {None: "d", 2.5: "c", (2, 3): "b", 1: "a"}
    assert tokenize(c) == tokenize(d)
    assert tokenize(a) != tokenize({**a, "x": 2})
    assert tokenize({1: "a"}) != tokenize({1.0: "a"})
    assert tokenize({"a": 1}) != tokenize([("a", 1)])


def test_sets_are_order_independent() -> None:
    words = [f"w{i}" for i in range(50)]
    assert tokenize(set(words)) == tokenize(set(reversed(words)))
    assert tokenize({1, "1", 2.0}) == tokenize({2.0, "1", 1})
    assert tokenize({1, 2}) != tokenize({1, 3})
    assert tokenize({1, 2}) != tokenize(frozenset({1, 2}))


def test_container_subclasses_carry_their_class() -> None:
    Point = collections.namedtuple("Point", "x y")
    assert tokenize(Point(1, 2)) == tokenize(Point(1, 2))
    assert tokenize(Point(1, 2)) != tokenize((1, 2))
    assert tokenize(collections.OrderedDict(a=1)) != tokenize({"a": 1})
    assert tokenize(collections.OrderedDict(a=1, b=2)) == tokenize(
        collections.OrderedDict(b=2, a=1)
    )


# ---------------------------------------------------------- rule 3: callables


def module_level_function(x: float) -> float:
    return x + 1


def make_adder(n: int):  # noqa: ANN201
    return lambda x: x + n


def test_classes_by_name() -> None:
    assert tokenize(Ridge) == tokenize(Ridge)
    assert tokenize(Ridge) != tokenize(Lasso)
    assert tokenize(Ridge) != tokenize(Ridge())
    assert tokenize(Ridge) != tokenize("sklearn.linear_model._ridge.Ridge")


def test_functions_and_builtins_by_name() -> None:
    assert tokenize(module_level_function) == tokenize(module_level_function)
    assert tokenize(math.sqrt) != tokenize(math.exp)
    assert tokenize(len) == tokenize(len)
    assert tokenize(np.log) != tokenize(np.exp)


def test_a_module_level_function_defined_again_under_its_name_is_another_function() -> None:
    first, second, again = {}, {}, {}
    for namespace, body in ((first, "x + 1"), (second, "x + 2"), (again, "x + 1")):
        exec(f"def f(x):\n    return {body}\n", namespace)
    assert tokenize(first["f"]) != tokenize(second["f"])
    assert tokenize(first["f"]) == tokenize(again["f"])
    assert model_token(FunctionTransformer(first["f"])) != model_token(FunctionTransformer(second["f"]))


def test_lambdas_and_local_functions_by_code() -> None:
    f = lambda x: x + 1  # noqa: E731
    g = lambda x: x + 2  # noqa: E731
    assert tokenize(f) == tokenize(f)
    assert tokenize(f) != tokenize(g)
    assert tokenize(lambda x: np.log(x)) != tokenize(lambda x: np.exp(x))
    assert tokenize(make_adder(1)) == tokenize(make_adder(1))
    assert tokenize(make_adder(1)) != tokenize(make_adder(2))


def test_self_recursive_local_function() -> None:
    def fact(n: int) -> int:
        return 1 if n <= 1 else n * fact(n - 1)

    assert tokenize(fact) == tokenize(fact)


def test_bound_methods_and_partials() -> None:
    r1, r2 = Ridge(alpha=1), Ridge(alpha=2)
    assert tokenize(r1.fit) == tokenize(Ridge(alpha=1).fit)
    assert tokenize(r1.fit) != tokenize(r2.fit)
    assert tokenize(r1.fit) != tokenize(r1.predict)
    p = functools.partial(round, ndigits=2)
    assert tokenize(p) == tokenize(functools.partial(round, ndigits=2))
    assert tokenize(p) != tokenize(functools.partial(round, ndigits=3))
    assert tokenize(functools.partial(max, 1)) != tokenize(functools.partial(max, 2))
    assert tokenize(functools.partial(max, 1)) != tokenize(functools.partial(min, 1))


# ---------------------------------------------------------- rule 4: numpy


def test_array_content_dtype_and_shape() -> None:
    x = np.arange(12.0).reshape(3, 4)
    assert tokenize(x) == tokenize(x.copy())
    assert tokenize(x[:, ::2].copy()) == tokenize(np.ascontiguousarray(x[:, ::2]))
    y = x.copy()
    y[2, 3] += 1e-12
    assert tokenize(x) != tokenize(y)
    assert tokenize(x) != tokenize(x.reshape(4, 3))
    assert tokenize(x) != tokenize(x.astype(np.float32))
    assert tokenize(np.arange(3, dtype=np.int32)) != tokenize(np.arange(3, dtype=np.int64))
    assert tokenize(x) != tokenize(x.tolist())


def test_an_array_not_c_contiguous_counts_by_its_layout_too() -> None:
    # A model computes in another order on another layout: StandardScaler's mean_ of a Fortran-ordered array (and
    # Ridge's coef_, PCA's components_ of a strided view) differ in the last bit from those of its C-ordered copy.
    # Tokens ignored the layout, so a fit cache served, and a composite refit kept, the fit of the other layout.
    x = np.random.default_rng(0).normal(size=(400, 30))
    assert StandardScaler().fit(np.asfortranarray(x)).mean_.tobytes() != StandardScaler().fit(x).mean_.tobytes()
    for small in (x, x[:5, :4].copy()):  # digested, and written byte by byte
        assert tokenize(np.asfortranarray(small)) != tokenize(small)
        assert tokenize(np.asfortranarray(small)) == tokenize(np.asfortranarray(small.copy()))
    assert tokenize(x[:, ::2]) != tokenize(x[:, ::2].copy())
    assert tokenize(x[:, ::2]) == tokenize(x.copy()[:, ::2])  # the same layout
    assert tokenize(x[:1, ::2]) == tokenize(np.hstack([x, x])[:1, :30:2])  # a dimension of one: its stride does not count
    assert tokenize(x.T) != tokenize(np.ascontiguousarray(x.T))
    assert tokenize(x[:, 3]) != tokenize(x[:, 3].copy())  # a column: strided
    # a frame's block: as pandas lays it out (a copy: columns contiguous), or as given (copy=False: rows)
    assert tokenize(pd.DataFrame(x)) == tokenize(pd.DataFrame(x.copy()))
    assert tokenize(pd.DataFrame(x)) != tokenize(pd.DataFrame(x, copy=False))
    structured = np.zeros(4, dtype=[("a", "i4"), ("b", "f8")])  # fields are views: hashed as their values
    assert tokenize(structured) == tokenize(structured.copy())


@pytest.mark.parametrize(
    "array",
    [
        np.random.default_rng(0).normal(size=(3000, 20)),  # C-contiguous and large: the digested fast path
        np.random.default_rng(1).normal(size=3000),
        np.arange(5000, dtype=np.int32),
        np.ones((70, 70), dtype=np.complex128),
        np.zeros((600, 2), dtype=np.float32),
        np.random.default_rng(2).normal(size=(100, 60)).T,  # not C-contiguous: the buffer is copied first
        np.arange(10.0),  # small: bytes written as they are, NaNs made canonical
        np.zeros((0, 3)),
        np.ones(1000, dtype=bool),
        np.array(["a", "bc"] * 3000),
    ],
    ids=lambda a: f"{a.dtype}{a.shape}{'C' if a.flags.c_contiguous else 'F'}",
)
def test_one_array_fast_path_writes_what_the_general_path_writes(array) -> None:
    from wirework.graph.fingerprint import _hexdigest

    general = _hexdigest(b"tokenize:", (array,))
    assert tokenize(array) == general
    assert tokenize(array) == general  # again, from the prefix kept for its dtype and shape
    if array.size and array.dtype.kind == "f":
        edited = array.copy()
        edited.flat[array.size // 2] += 1.0
        assert tokenize(edited) != general


def test_one_array_prefixes_are_bounded(monkeypatch) -> None:
    from wirework.graph import fingerprint

    monkeypatch.setattr(fingerprint, "_MAX_PREFIXES", 4)
    monkeypatch.setattr(fingerprint, "_DIGESTED_PREFIXES", {})
    tokens = {n: tokenize(np.ones(1000 + n)) for n in range(10)}
    assert len(fingerprint._DIGESTED_PREFIXES) <= 4
    assert all(tokenize(np.ones(1000 + n)) == token for n, token in tokens.items())
    assert len(set(tokens.values())) == 10


def test_array_nans_are_canonical() -> None:
    plain = np.array([1.0, np.nan])
    with np.errstate(invalid="ignore"):
        computed = np.array([1.0, 0.0]) * np.array([1.0, np.inf])  # often a negative NaN
    assert tokenize(plain) == tokenize(computed)
    assert tokenize(np.array([np.nan + 1j])) == tokenize(np.array([complex(-np.nan, 1)]))
    assert tokenize(plain.astype(np.float32)) == tokenize(computed.astype(np.float32))


def test_object_arrays_element_by_element() -> None:
    a = np.array([1, "1", None, [1, 2]], dtype=object)
    b = np.array([1, "1", None, [1, 2]], dtype=object)
    assert tokenize(a) == tokenize(b)
    b[3] = [1, 3]
    assert tokenize(a) != tokenize(b)
    assert tokenize(np.array([1, "1"], dtype=object)) != tokenize(np.array(["1", 1], dtype=object))
    s = np.array(["ab", "c"], dtype=object)
    assert tokenize(s) == tokenize(s.copy())
    assert tokenize(s) != tokenize(np.array(["a", "bc"], dtype=object))
    assert tokenize(s) != tokenize(np.array(["ab", "c"]))  # '<U2' differs from object


def test_object_array_containing_itself() -> None:
    a = np.empty(2, dtype=object)
    a[0], a[1] = a, 1
    assert tokenize(a) == tokenize(a)


def test_special_arrays() -> None:
    t = np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[ns]")
    assert tokenize(t) == tokenize(t.copy())
    assert tokenize(t) != tokenize(t.astype("datetime64[s]"))
    rec = np.zeros(3, dtype=np.dtype([("a", "u1"), ("b", "f8")], align=True))
    rec2 = np.empty_like(rec)  # padding bytes may hold garbage
    rec2["a"], rec2["b"] = 0, 0.0
    assert tokenize(rec) == tokenize(rec2)
    rec2["b"][1] = 1.0
    assert tokenize(rec) != tokenize(rec2)
    m = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    m2 = np.ma.masked_array([1.0, 99.0, 3.0], mask=[False, True, False])
    assert tokenize(m) == tokenize(m2)
    assert tokenize(m) != tokenize(np.ma.masked_array([1.0, 2.0, 3.0]))
    ld = np.array([1.5, 2.5], dtype=np.longdouble)
    assert tokenize(ld) == tokenize(ld.copy())
    assert tokenize(ld) != tokenize(ld + 1)


@pytest.mark.skipif(not hasattr(getattr(np, "dtypes", None), "StringDType"), reason="numpy < 2")
def test_numpy_string_dtype_arrays() -> None:
    def strings(*values: str) -> np.ndarray:
        return np.array(values, dtype=np.dtypes.StringDType())

    assert tokenize(strings("a", "bb")) == tokenize(strings("a", "bb"))
    assert tokenize(strings("a", "bb")) != tokenize(strings("a", "bc"))
    assert tokenize(strings("a", "bb")) != tokenize(strings("ab", "b"))


def test_numpy_scalars_by_dtype_and_value() -> None:
    assert tokenize(np.float64(1.0)) == tokenize(np.float64(1.0))
    assert all_distinct(np.float64(1), np.float32(1), np.int64(1), 1.0, 1, np.bool_(True), True)
    assert tokenize(np.float64(np.nan)) == tokenize(np.float64(-np.nan))
    assert tokenize(np.dtype("f8")) != tokenize(np.dtype("f4"))


# ---------------------------------------------------------- rule 5: pandas


def make_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "x": [1.0, 2.0, np.nan],
            "n": [1, 2, 3],
            "s": ["a", "b", None],
            "c": pd.Categorical(["u", "v", "u"]),
            "i": pd.array([1, None, 3], dtype="Int64"),
            "t": pd.date_range("2020-01-01", periods=3, tz="UTC"),
        },
        index=pd.Index([10, 20, 30], name="id"),
    )


def test_dataframe_equal_content() -> None:
    df = make_frame()
    assert tokenize(df) == tokenize(make_frame())
    assert tokenize(df) == tokenize(df.copy())
    assert tokenize(df) == tokenize(pd.concat([df.iloc[:2], df.iloc[2:]]))


@pytest.mark.parametrize(
    ("column", "row", "value"),
    [("x", 0, 1.5), ("n", 2, 4), ("s", 1, "B"), ("c", 0, "v"), ("i", 1, 2), ("s", 2, "z")],
)
def test_dataframe_one_cell_changes_token(column: str, row: int, value: object) -> None:
    df = make_frame()
    changed = make_frame()
    changed.loc[changed.index[row], column] = value
    assert tokenize(df) != tokenize(changed)


def test_dataframe_labels_dtypes_and_index() -> None:
    df = make_frame()
    assert tokenize(df) != tokenize(df.rename(columns={"x": "y"}))
    assert tokenize(df) != tokenize(df[list(reversed(df.columns))])
    assert tokenize(df) != tokenize(df.set_axis([10, 20, 31], axis=0))
    assert tokenize(df) != tokenize(df.rename_axis("other"))
    assert tokenize(df) != tokenize(df.astype({"n": "float64"}))
    assert tokenize(df) != tokenize(df.astype({"s": "string"}))
    assert tokenize(df) != tokenize(df.astype({"c": object}))


def test_homogeneous_frames() -> None:
    values = np.arange(12.0).reshape(4, 3)
    df = pd.DataFrame(values, columns=["a", "b", "c"])
    built = pd.DataFrame({"a": values[:, 0], "b": values[:, 1], "c": values[:, 2]})
    assert tokenize(df) == tokenize(built)
    other = df.copy()
    other.iloc[3, 2] = -1.0
    assert tokenize(df) != tokenize(other)
    assert tokenize(df) != tokenize(df.T)


def test_categories_count() -> None:
    a = pd.Series(pd.Categorical(["a", "b"], categories=["a", "b"]))
    b = pd.Series(pd.Categorical(["a", "b"], categories=["a", "b", "c"]))
    c = pd.Series(pd.Categorical(["a", "b"], categories=["a", "b"], ordered=True))
    assert tokenize(a) == tokenize(a.copy())
    assert all_distinct(a, b, c)


def test_series_and_indexes() -> None:
    s = pd.Series([1.0, 2.0], index=["p", "q"], name="s")
    assert tokenize(s) == tokenize(s.copy())
    assert tokenize(s) != tokenize(s.rename("t"))
    assert tokenize(s) != tokenize(s.set_axis(["p", "r"]))
    assert tokenize(s) != tokenize(s.astype("float32"))
    assert tokenize(pd.RangeIndex(5)) == tokenize(pd.RangeIndex(0, 5, 1))
    assert tokenize(pd.RangeIndex(5)) != tokenize(pd.RangeIndex(6))
    assert tokenize(pd.RangeIndex(5)) != tokenize(pd.RangeIndex(5, name="r"))
    mi = pd.MultiIndex.from_product([["a", "b"], [1, 2]], names=["k", "j"])
    assert tokenize(mi) == tokenize(mi.copy())
    assert tokenize(mi) != tokenize(mi.set_names(["k", "i"]))
    assert tokenize(mi) != tokenize(pd.MultiIndex.from_product([["a", "c"], [1, 2]]))


def test_datetime_and_timedelta_indexes_count_their_freq() -> None:
    # scikit-learn's pandas output carries the input's index, freq included: equal labels of another freq differ
    days = pd.date_range("2020-01-01", periods=5, freq="D")
    assert tokenize(days) == tokenize(pd.date_range("2020-01-01", periods=5, freq="D"))
    assert tokenize(days) != tokenize(pd.DatetimeIndex(days, freq=None))
    assert tokenize(pd.DatetimeIndex(days, freq=None)) == tokenize(pd.DatetimeIndex(list(days)))
    frame = pd.DataFrame({"a": range(5)}, index=days)
    assert tokenize(frame) != tokenize(frame.set_axis(pd.DatetimeIndex(days, freq=None)))
    assert tokenize(frame["a"]) != tokenize(frame["a"].set_axis(pd.DatetimeIndex(days, freq=None)))
    spans = pd.timedelta_range("1D", periods=5, freq="D")
    assert tokenize(spans) != tokenize(pd.TimedeltaIndex(spans, freq=None))
    # a PeriodIndex's freq is its dtype's
    assert tokenize(pd.period_range("2020-01", periods=3, freq="M")) != tokenize(
        pd.PeriodIndex(["2020-01-01", "2020-01-02", "2020-01-03"], freq="D")
    )


def test_rangeindex_is_cheap() -> None:
    big = pd.RangeIndex(10**12)
    assert min(timeit.repeat(lambda: tokenize(big), number=10, repeat=3)) / 10 < 1e-3


def test_extension_arrays_directly() -> None:
    a = pd.array([1, None, 3], dtype="Int64")
    assert tokenize(a) == tokenize(pd.array([1, None, 3], dtype="Int64"))
    assert tokenize(a) != tokenize(pd.array([1, 2, 3], dtype="Int64"))
    assert tokenize(a) != tokenize(pd.array([1, None, 3], dtype="Int32"))


# ---------------------------------------------------------- rule 6: sparse


def test_sparse_matrices() -> None:
    m = sp.random(20, 10, density=0.3, format="csr", random_state=0)
    assert tokenize(m) == tokenize(m.copy())
    changed = m.copy()
    changed.data[0] += 1
    assert tokenize(m) != tokenize(changed)
    assert tokenize(m) != tokenize(m.tocsc())
    assert tokenize(m) != tokenize(sp.csr_array(m))
    assert tokenize(m) != tokenize(m.toarray())
    coo = m.tocoo()
    assert tokenize(coo) == tokenize(coo.copy())
    assert tokenize(m.todok()) == tokenize(m.todok())
    assert tokenize(m.tolil()) != tokenize(changed.tolil())
    assert tokenize(sp.csr_matrix((3, 4))) != tokenize(sp.csr_matrix((4, 3)))


# ---------------------------------------------------------- rule 7: random states


def test_random_state() -> None:
    assert tokenize(np.random.RandomState(0)) == tokenize(np.random.RandomState(0))
    assert tokenize(np.random.RandomState(0)) != tokenize(np.random.RandomState(1))
    used = np.random.RandomState(0)
    before = tokenize(used)
    used.rand()
    assert tokenize(used) != before
    assert model_token(Ridge(random_state=np.random.RandomState(0))) != model_token(
        Ridge(random_state=used)
    )


def test_generator() -> None:
    assert tokenize(np.random.default_rng(0)) == tokenize(np.random.default_rng(0))
    assert tokenize(np.random.default_rng(0)) != tokenize(np.random.default_rng(1))
    rng = np.random.default_rng(0)
    before = tokenize(rng)
    rng.random()
    assert tokenize(rng) != before
    assert tokenize(np.random.PCG64(3)) == tokenize(np.random.PCG64(3))


# ---------------------------------------------------------- rule 8: estimators


def pipe(alpha: float) -> Pipeline:
    return Pipeline([("s", StandardScaler()), ("r", Ridge(alpha=alpha))])


def test_model_token_deep_hyperparameters() -> None:
    assert model_token(pipe(1)) == model_token(pipe(1))
    assert model_token(pipe(1)) != model_token(pipe(2))
    assert model_token(pipe(1)) != model_token(pipe(1.0))
    assert model_token(Ridge(alpha=1)) != model_token(Lasso(alpha=1))
    bag = BaggingRegressor(estimator=Ridge(alpha=1))
    assert model_token(bag) == model_token(BaggingRegressor(estimator=Ridge(alpha=1)))
    assert model_token(bag) != model_token(BaggingRegressor(estimator=Ridge(alpha=2)))
    ct = ColumnTransformer([("a", StandardScaler(), [0]), ("b", pipe(1), [1])])
    ct2 = ColumnTransformer([("a", StandardScaler(), [0]), ("b", pipe(3), [1])])
    assert model_token(ct) != model_token(ct2)
    ft = FunctionTransformer(func=lambda x: x * 2)
    assert model_token(ft) != model_token(FunctionTransformer(func=lambda x: x * 3))


def test_model_token_covers_set_output_at_any_depth() -> None:
    plain = model_token(pipe(1))
    configured = pipe(1).set_output(transform="pandas")  # a Pipeline configures its steps
    assert model_token(configured) != plain
    assert model_token(pipe(1).set_output(transform="pandas")) == model_token(configured)
    assert model_token(pipe(1).set_output(transform="default")) not in (plain, model_token(configured))
    scaler = StandardScaler().set_output(transform="pandas")
    del scaler._sklearn_output_config
    assert model_token(scaler) == model_token(StandardScaler())  # no configuration: the token of before


def test_model_token_ignores_fitted_state_and_is_domain_separated() -> None:
    x = np.arange(10.0).reshape(5, 2)
    fitted = Ridge().fit(x, np.arange(5.0))
    assert model_token(fitted) == model_token(Ridge())
    assert model_token(Ridge()) != tokenize(Ridge())
    assert tokenize(Ridge()) == tokenize(Ridge())
    assert tokenize(Ridge(alpha=1)) != tokenize(Ridge(alpha=2))


def test_a_frozen_model_counts_by_what_it_learned() -> None:
    # FrozenEstimator's fit does nothing and clone returns it: its model is used as trained. Its token covered the
    # wrapped model's hyperparameters only, so a FitCache gave one frozen Ridge's "fit" for another's.
    x, y = np.arange(20.0).reshape(10, 2), np.arange(10.0) ** 2
    first, second = Ridge().fit(x[:5], y[:5]), Ridge().fit(x[5:], y[5:])
    assert model_token(FrozenEstimator(first)) != model_token(FrozenEstimator(second))
    assert model_token(FrozenEstimator(first)) == model_token(FrozenEstimator(Ridge().fit(x[:5], y[:5])))
    assert model_token(FrozenEstimator(first)) != model_token(FrozenEstimator(Ridge()))
    frozen = FrozenEstimator(first)
    before = model_token(frozen)
    first.fit(x, y)  # trained again in place: another model
    assert model_token(frozen) != before


class BrokenParams:
    def __init__(self, value: int) -> None:
        self.value = value

    def get_params(self, deep: bool = True) -> dict[str, object]:
        raise RuntimeError("broken")


def test_estimator_with_failing_get_params_falls_back() -> None:
    assert model_token(BrokenParams(1)) == model_token(BrokenParams(1))
    assert model_token(BrokenParams(1)) != model_token(BrokenParams(2))


def test_estimator_parameter_cycle() -> None:
    outer = BaggingRegressor()
    outer.estimator = outer  # pathological, but must not recurse forever
    assert model_token(outer) == model_token(outer)


# ---------------------------------------------------------- rule 9: fallback


@dataclasses.dataclass
class Config:
    name: str
    values: list[int]


def test_picklable_objects_by_pickle() -> None:
    assert tokenize(Config("a", [1, 2])) == tokenize(Config("a", [1, 2]))
    assert tokenize(Config("a", [1, 2])) != tokenize(Config("a", [1, 3]))
    assert tokenize(slice(1, 2)) != tokenize(slice(1, 3))


class Unpicklable:
    def __reduce__(self) -> tuple[object, ...]:
        raise pickle.PicklingError("no")


def test_unpicklable_objects_by_identity() -> None:
    a, b = Unpicklable(), Unpicklable()
    assert tokenize(a) == tokenize(a)
    assert tokenize(a) != tokenize(b)
    lock = threading.Lock()
    assert tokenize(lock) == tokenize(lock)
    assert tokenize(lock) != tokenize(threading.Lock())


def test_identity_is_not_confused_by_id_reuse() -> None:
    seen: dict[int, str] = {}
    for _ in range(50):
        obj = Unpicklable()
        token = tokenize(obj)
        assert seen.get(id(obj)) != token
        seen[id(obj)] = token
        del obj


# ---------------------------------------------------------- recursion


def test_self_referencing_containers() -> None:
    a: list[object] = [1]
    a.append(a)
    assert tokenize(a) == tokenize(a)
    assert tokenize(a) == tokenize(copy.deepcopy(a))
    b: list[object] = [2]
    b.append(b)
    assert tokenize(a) != tokenize(b)
    d: dict[str, object] = {"k": 1}
    d["self"] = d
    assert tokenize(d) == tokenize(copy.deepcopy(d))
    assert tokenize([a, a]) == tokenize([a, a])
    outer: list[object] = [1, [2]]
    outer[1].append(outer)  # type: ignore[attr-defined]
    inner: list[object] = [1, [2]]
    inner[1].append(inner[1])  # type: ignore[attr-defined]
    assert tokenize(outer) != tokenize(inner)


def test_deep_nesting_raises_no_recursion_error() -> None:
    moderate: list[object] = []
    for _ in range(3 * fingerprint.MAX_DEPTH // 2):
        moderate = [moderate, 1]
    assert tokenize(moderate) == tokenize(copy.deepcopy(moderate))
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert tokenize(deep) == tokenize(deep)
    assert len(tokenize(deep)) == 32


# ---------------------------------------------------------- across processes

CROSS_PROCESS_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np, pandas as pd, scipy.sparse as sp
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from wirework.graph.fingerprint import model_token, tokenize

    def objects():
        rng = np.random.RandomState(42)
        frame = pd.DataFrame(
            {
                "x": rng.rand(50),
                "s": [f"s{i % 7}" for i in range(50)],
                "c": pd.Categorical([f"c{i % 3}" for i in range(50)]),
                "i": pd.array([None if i % 5 == 0 else i for i in range(50)], dtype="Int64"),
            }
        )
        return {
            "array": np.arange(1000.0).reshape(100, 10) ** 0.5,
            "frame": frame,
            "strings": {f"k{i}" for i in range(30)},
            "mixed": {1, "1", 2.5, (3, "x")},
            "sparse": sp.random(30, 20, density=0.2, format="coo", random_state=1),
            "rng": np.random.default_rng(5),
            "nested": {"b": [1, (2.0, None)], "a": {"z": b"bytes"}},
            "lambda": lambda x: x + 1,
            "class": Ridge,
        }

    def tokens():
        result = {name: tokenize(obj) for name, obj in objects().items()}
        result["model"] = model_token(
            Pipeline([("s", StandardScaler()), ("r", Ridge(alpha=0.5))])
        )
        return result

    if sys.argv[1:] == ["--print"]:
        print(json.dumps(tokens()))
    """
)


def test_tokens_are_stable_across_processes(tmp_path: pathlib.Path) -> None:
    script = tmp_path / "tokens_script.py"
    script.write_text(CROSS_PROCESS_SCRIPT)
    namespace: dict[str, object] = {"__name__": "__main__"}  # as in the child
    exec(compile(CROSS_PROCESS_SCRIPT, str(script), "exec", dont_inherit=True), namespace)
    warm = namespace["objects"]()["lambda"]  # type: ignore[operator]
    for i in range(1000):  # specialised bytecode must not change the token
        warm(i)
    expected = namespace["tokens"]()  # type: ignore[operator]
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        command = [sys.executable, str(script), "--print"]
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        assert json.loads(done.stdout) == expected


# ---------------------------------------------------------- properties

hashable_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.complex_numbers(allow_nan=True)
    | st.text()
    | st.binary()
)
hashables = st.recursive(
    hashable_leaves, lambda c: st.tuples(c, c) | st.frozensets(c, max_size=4), max_leaves=10
)
nested = st.recursive(
    hashable_leaves,
    lambda children: st.lists(children, max_size=5)
    | st.tuples(children, children)
    | st.dictionaries(hashables, children, max_size=5)
    | st.sets(hashables, max_size=5),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(nested)
def test_deepcopy_keeps_token(x: object) -> None:
    assert tokenize(x) == tokenize(copy.deepcopy(x))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(hashables, nested, max_size=8), st.randoms(use_true_random=False))
def test_dict_order_never_matters(d: dict[object, object], rnd: object) -> None:
    items = list(d.items())
    rnd.shuffle(items)  # type: ignore[attr-defined]
    assert tokenize(d) == tokenize(dict(items))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_changing_one_element_changes_token(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(["<f8", "<f4", "<i4", "|u1", "<c16", "|b1", "<M8[s]"]))
    arr = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3)))
    flat_index = data.draw(st.integers(0, arr.size - 1))
    new = data.draw(hnp.from_dtype(arr.dtype))
    old = arr.reshape(-1)[flat_index]
    both_nan = bool(np.isnan(old)) and bool(np.isnan(new))
    assume(not both_nan and not (old == new))
    changed = arr.copy()
    changed.reshape(-1)[flat_index] = new
    assert tokenize(arr) != tokenize(changed)
    assert tokenize(arr) == tokenize(arr.copy())


def test_model_token_covers_metadata_requests_at_any_depth() -> None:
    # set_fit_request(...) decides, under scikit-learn's metadata routing, which steps of a Pipeline get the
    # weights; clone keeps it. Tokens left it out, so a FitCache gave a Pipeline whose Ridge took the weights
    # for one whose Ridge declined them, and condition 6 missed a request changed in place.
    with sklearn.config_context(enable_metadata_routing=True):
        def routed(ridge_takes):
            scaler = StandardScaler().set_fit_request(sample_weight=True)
            return Pipeline([("s", scaler), ("r", Ridge().set_fit_request(sample_weight=ridge_takes))])

        assert model_token(routed(True)) == model_token(routed(True))
        assert len({model_token(routed(True)), model_token(routed(False)), model_token(routed(None))}) == 3
        model = routed(True)
        before = model_token(model)
        model.steps[1][1].set_fit_request(sample_weight=False)  # in place
        assert model_token(model) != before
        assert model_token(Ridge().set_fit_request(sample_weight="w")) != model_token(Ridge())
    assert model_token(pipe(1)) == model_token(pipe(1))  # no request set: the token of before
    scaler = StandardScaler()
    assert "_metadata_request" not in vars(scaler) and model_token(scaler) == model_token(StandardScaler())


def test_an_estimator_held_by_a_bound_method_or_partial_counts_by_what_it_learned() -> None:
    # A machine trains a clone of its model, and clone copies a bound method's object or a partial's arguments
    # with what they learned (copy.deepcopy): FunctionTransformer(other.predict) predicts with `other` as it was.
    # Their tokens covered its hyperparameters only, so `other` trained again on other data (in place) was no
    # change to condition 6 and a FitCache gave the fit made with the old `other`.
    x, y = np.arange(20.0).reshape(10, 2), np.arange(10.0) ** 2
    first, second = Ridge().fit(x, y), Ridge().fit(x, -y)
    assert tokenize(first.predict) != tokenize(second.predict)
    assert tokenize(first.predict) == tokenize(Ridge().fit(x, y).predict)
    assert tokenize(functools.partial(np.dot, first)) != tokenize(functools.partial(np.dot, second))
    assert tokenize(functools.partial(max, key=first)) != tokenize(functools.partial(max, key=second))
    transformer = FunctionTransformer(first.predict)
    before = model_token(transformer)
    first.fit(x, 2 * y)  # trained again in place
    assert model_token(transformer) != before
    # an estimator as a hyperparameter is cloned unfitted: what it learned does not count there
    assert model_token(BaggingRegressor(first)) == model_token(BaggingRegressor(Ridge()))
    assert model_token(FunctionTransformer(kw_args={"m": first})) == model_token(FunctionTransformer(kw_args={"m": Ridge()}))


# ---------------------------------------------------------- performance


def test_hashing_8mb_array_is_fast() -> None:
    x = np.random.default_rng(0).random(1_000_000)  # 8 MB of float64
    best = min(timeit.repeat(lambda: tokenize(x), number=3, repeat=5)) / 3
    assert best < 0.05


def test_hashing_random_forest_params_is_fast() -> None:
    forest = RandomForestRegressor()
    best = min(timeit.repeat(lambda: model_token(forest), number=100, repeat=5)) / 100
    assert best < 1e-3


def test_a_function_s_token_costs_about_as_much_as_its_name() -> None:
    # Each token of FunctionTransformer(check_array) walked check_array's bytecode, constants (a long docstring,
    # nested code) and names: ~250 times the cost of hashing its name. Its code is now encoded once.
    from sklearn.utils import check_array

    name = f"{check_array.__module__}.{check_array.__qualname__}"
    tokenize(check_array)

    def best(call):  # noqa: ANN001, ANN202
        return min(timeit.repeat(call, number=200, repeat=5))

    assert best(lambda: tokenize(check_array)) < 40 * best(lambda: tokenize(name))  # ~8 (its 13 defaults)


def test_a_function_s_code_is_encoded_once_and_its_token_follows_its_code_defaults_and_closure(monkeypatch) -> None:
    encoded = []
    real = fingerprint._feed_code
    monkeypatch.setattr(fingerprint, "_feed_code", lambda tk, h, code: (encoded.append(code.co_name), real(tk, h, code)))
    namespace, other = {}, {}
    source = "def make(n):\n    def f(x, scale=[1.0]):\n        return sum(map(lambda s: n * x * s, scale))\n    return f\n"
    exec(source, namespace)
    exec(source.replace("n * x", "n + x"), other)
    f = namespace["make"](2)
    first = tokenize(f)
    assert sorted(encoded) == ["<lambda>", "f"]  # its code and the code nested in it, once each
    assert tokenize(f) == first and tokenize(namespace["make"](2)) == first and len(encoded) == 2
    assert tokenize(other["make"](2)) != first  # another body, defined again under its name
    assert len(encoded) == 4
    f.__defaults__[0].append(2.0)  # a default changed in place
    assert tokenize(f) != first
    f.__defaults__ = ([1.0],)
    assert tokenize(f) == first
    f.__closure__[0].cell_contents = 3  # a closed-over value
    assert tokenize(f) != first
    f.__closure__[0].cell_contents = 2
    f.__code__ = other["make"](2).__code__  # another code in place
    assert tokenize(f) == tokenize(other["make"](2)) != first and len(encoded) == 4


def test_keys_equal_by_content_order_by_their_values() -> None:
    first, second = (float("nan"),), (float("nan"),)  # two keys, both holding a NaN: equal tokens
    assert first != second and tokenize(first) == tokenize(second)
    assert tokenize({first: 1, second: [2]}) == tokenize({second: [2], first: 1})
    assert tokenize({first: 1, second: [2]}) != tokenize({first: 1, second: [3]})
