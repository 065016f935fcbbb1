"""Nodes: calling, arithmetic, laziness, inspection and the errors of bad input."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.preprocessing import StandardScaler

import wirework as ww

X_DATA, Y_DATA = load_diabetes(return_X_y=True)


def test_call_on_training_data_and_on_new_data():
    X = ww.source(X_DATA, name="X")
    y = ww.source(Y_DATA, name="y")
    yhat = ww.machine(Ridge(), X, y).predict(X)
    yhat.fit()
    reference = Ridge().fit(X_DATA, Y_DATA)
    assert np.array_equal(yhat(), reference.predict(X_DATA))
    assert np.array_equal(yhat(X_DATA[:5]), reference.predict(X_DATA[:5]))
    assert np.array_equal(yhat(X=X_DATA[:5]), reference.predict(X_DATA[:5]))
    assert yhat.fit() is yhat


def test_call_by_source_name_when_several_sources():
    a, b = ww.source(np.array([1.0, 2.0]), name="a"), ww.source(np.array([10.0, 20.0]), name="b")
    total = a + b * 2
    assert np.array_equal(total(), [21.0, 42.0])
    assert np.array_equal(total(a=np.array([0.0]), b=np.array([1.0])), [2.0])
    assert total.sources() == [a, b]


def test_arithmetic_with_numbers_and_numpy_scalars():
    X = ww.source(np.array([2.0, 4.0]), name="X")
    assert np.array_equal((X + 1)(), [3.0, 5.0])
    assert np.array_equal((1 - X)(), [-1.0, -3.0])
    assert np.array_equal((X / 2)(), [1.0, 2.0])
    assert np.array_equal((8 / X)(), [4.0, 2.0])
    assert np.array_equal((np.float64(3) * X)(), [6.0, 12.0])
    assert np.array_equal((-X)(), [-2.0, -4.0])
    assert repr(3 * X - 1) == "((3 * X) - 1)"


def test_selection_and_static_nodes_keep_pandas_kind():
    frame = pd.DataFrame({"a": [1, 2, 3], "b": [4, 5, 6]}, index=[10, 11, 12])
    X = ww.source(frame, name="X")
    column = X["b"]
    assert isinstance(column(), pd.Series) and list(column().index) == [10, 11, 12]
    restricted = ww.restrict(X, ww.folds(X, 3), 1)
    assert restricted().equals(frame.iloc[[1]])
    assert repr(restricted) == "restrict(X, folds(X, 3), 1)"
    assert repr(column) == "X['b']"


def test_node_wraps_any_function_with_constants():
    X = ww.source(np.array([1.0, 4.0]), name="X")
    clipped = ww.node(np.clip, X, 2.0, 3.0)
    assert np.array_equal(clipped(), [2.0, 3.0])
    assert repr(clipped) == "clip(X, 2.0, 3.0)"
    assert repr(ww.node(np.clip, X, a_min=2.0, a_max=None)) == "clip(X, a_min=2.0, a_max=None)"


def test_static_node_values_computed_once_per_call():
    counter = {"n": 0}

    def expensive(v):
        counter["n"] += 1
        return v * 2

    X = ww.source(np.array([1.0]), name="X")
    shared = ww.node(expensive, X)
    total = shared + shared * shared
    assert np.array_equal(total(), [6.0])
    assert counter["n"] == 1


def test_formula_numbers_machines_outermost_first_and_uses_names():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    std = ww.machine(StandardScaler(), y)
    tree = ww.machine(Ridge(), X, std.transform(y))
    assert repr(std.inverse_transform(tree.predict(X))) == "inverse_transform(m1, predict(m2, X))"
    named = ww.machine(Ridge(), X, y, name="ridge")
    assert repr(named.predict(X)) == "predict(ridge, X)"
    anonymous = ww.machine(Ridge(), X_DATA, Y_DATA)
    assert repr(anonymous.predict(anonymous.args[0])) == "predict(m1, s1)"


def test_machines_lists_training_dependencies_in_order():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    std = ww.machine(StandardScaler(), y)
    tree = ww.machine(Ridge(), X, std.transform(y))
    yhat = tree.predict(X)
    assert yhat.machines() == [std, tree]  # std is upstream only through a training edge
    assert yhat.sources() == [X]


@pytest.mark.parametrize(
    ("question", "pattern"),
    [(bool, "truth value"), (len, "length"), (list, "items to iterate over"), (np.asarray, "array value")],
)
def test_nodes_refuse_eager_questions(question, pattern):
    X = ww.source(np.ones(3), name="X")
    with pytest.raises(ww.LazyNodeError, match=f"lazy and has no {pattern}.*Call the node first"):
        question(X + 1)
    with pytest.raises(TypeError):
        question(X + 1)


@pytest.mark.parametrize(
    ("compare", "shown", "build"),
    [
        (lambda X: X < 0, r"X < 0", r"ww.node\(lambda x: x < 0, X\)"),
        (lambda X: 0 <= X, r"X >= 0", r"ww.node\(lambda x: x >= 0, X\)"),  # Python asks the node, reflected
        (lambda X: X > np.zeros(3), r"X > numpy.ndarray of shape \(3,\)", r"ww.node\(operator.gt, X, value\)"),
        (lambda X: np.zeros(3) >= X, r"X <= numpy.ndarray", r"ww.node\(operator.le, X, value\)"),
        (lambda X: X >= X + 1, r"X >= \(X \+ 1\)", r"ww.node\(lambda a, b: a >= b, X, \(X \+ 1\)\)"),
    ],
)
def test_ordering_comparisons_refuse_and_say_how_to_build_the_node(compare, shown, build):
    X = ww.source(np.array([-1.0, 0.0, 1.0]), name="X")
    with pytest.raises(ww.LazyNodeError, match=f"Comparisons of nodes build no node.*Received: {shown}.*{build}"):
        compare(X)
    with pytest.raises(TypeError):  # what Python raised before: code catching it still does
        sorted([X, X + 1])


def test_the_suggested_static_node_compares_and_equality_stays_identity():
    X = ww.source(np.array([-1.0, 0.0, 1.0]), name="X")
    assert np.array_equal(ww.node(lambda x: x < 0, X)(), [True, False, False])
    assert (X == X) is True and (X == 0) is False and (X != X + 1) is True  # identity: nodes are dict keys
    assert {X: "kept"}[X] == "kept" and X in [X + 1, X]


@pytest.mark.parametrize(
    ("apply", "shown", "build"),
    [
        (np.log, r"np\.log\(X\)", r"ww\.node\(np\.log, X\)"),
        (lambda X: np.maximum(X, 0), r"np\.maximum\(X, 0\)", r"ww\.node\(np\.maximum, X, 0\)"),
        (lambda X: np.ones(3) ** X, r"np\.power\(numpy\.ndarray of shape \(3,\), X\)", r"ww\.node\(np\.power, value, X\)"),
        (np.add.reduce, r"np\.add\.reduce\(X\)", r"ww\.node\(np\.add\.reduce, X\)"),
    ],
)
def test_numpy_functions_of_elements_on_a_node_say_to_build_a_static_node(apply, shown, build):
    """np.log(y), as a target transform would be written, said only "operand 'Source' does not support ufuncs
    (__array_ufunc__=None)"."""
    X = ww.source(np.array([1.0, 2.0, 3.0]), name="X")
    with pytest.raises(ww.LazyNodeError, match=f"cannot compute on a node: a node is lazy.*Received: {shown}\\. "
                       f"Build a static node that applies it when the network runs, {build}, or decorate"):
        apply(X)
    with pytest.raises(TypeError):  # what numpy raised before: code catching it still does
        apply(X)


def test_arithmetic_with_numpy_on_either_side_builds_the_same_nodes_as_before():
    X = ww.source(np.array([1.0, 2.0, 4.0]), name="X")
    ones, two = np.ones(3), np.float64(2.0)
    built = [ones + X, ones - X, two * X, ones / X, np.add(X, 1), X * two]
    assert [repr(n) for n in built] == [
        "(array<(3,)> + X)", "(array<(3,)> - X)", "(np.float64(2.0) * X)", "(array<(3,)> / X)", "(X + 1)",
        "(X * np.float64(2.0))",
    ]
    assert [n().tolist() for n in built] == [[2, 3, 5], [0, -1, -3], [2, 4, 8], [1, 0.5, 0.25], [2, 3, 5], [2, 4, 8]]
    assert (ones == X) is False and (ones != X) is True  # identity, as == and != of nodes



@pytest.mark.parametrize("frame", [False, True])
def test_arithmetic_with_pandas_on_the_left_builds_a_node(frame):
    # pandas' + took the node as an array, got numpy's node (array<(3,)> + X) and asked its length to make a
    # Series of it: a LazyNodeError, "no length ... of (array<(3,)> + X)"
    X = ww.source(np.array([1.0, 2.0, 4.0]), name="X")
    left = pd.DataFrame({"a": [10.0, 20.0, 40.0]}) if frame else pd.Series([10.0, 20.0, 40.0], index=[7, 8, 9])
    X = ww.source(np.array([[1.0], [2.0], [4.0]]), name="X") if frame else X
    built = [left + X, left - X, left * X, left / X]
    assert all(isinstance(n, ww.StaticNode) for n in built)
    shown = "DataFrame<(3, 1)>" if frame else "Series<(3,)>"
    assert repr(built[0]) == f"({shown} + X)" and repr(X - left) == f"(X - {shown})"
    for node, value in zip(built, [left + X(), left - X(), left * X(), left / X()]):
        pd.testing.assert_frame_equal(node(), value) if frame else pd.testing.assert_series_equal(node(), value)
    new = X() * 2
    np.testing.assert_array_equal(np.asarray(built[0](new)), np.asarray(left + new))  # new data
    assert (left == X) is False and (left != X) is True  # identity, as == and != of nodes
    with pytest.raises(ww.LazyNodeError, match=r"Comparisons of nodes build no node"):
        left < X  # noqa: B015

# -- bad input: one clear error each (acceptance 6) --------------------------


def test_untrained_predict():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    mach = ww.machine(Ridge(), X, y, name="ridge")
    with pytest.raises(ww.NotTrainedError, match=r"Machine 'ridge' \(Ridge\) has not been trained yet.*Call fit\(\)"):
        mach.predict(X)()
    with pytest.raises(AttributeError, match="has not been trained yet"):
        mach.fitted_model
    with pytest.raises(ValueError, match="has not been trained yet"):
        mach.fitted_model


def test_wrong_number_of_args_for_the_operation():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    mach = ww.machine(Ridge(), X, y)
    with pytest.raises(ww.GraphError, match=r"Expected exactly one node \(the input\) for predict\(\)\. Received 2"):
        mach.predict(X, y)
    with pytest.raises(ww.GraphError, match="Received 0"):
        mach.predict()


def test_wrong_number_of_training_arguments():
    with pytest.raises(ww.GraphError, match=r"Expected 1 training argument.*for Ridge\. Received 4"):
        ww.machine(Ridge(), X_DATA, Y_DATA, Y_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match="Received 0"):
        ww.machine(Ridge())


def test_model_without_the_requested_operation():
    mach = ww.machine(LinearRegression(), X_DATA, Y_DATA)
    with pytest.raises(ww.GraphError, match=r"LinearRegression has no transform\(\).*Operations it offers: predict"):
        mach.transform(X_DATA)


def test_two_sources_called_with_one_positional_array():
    a, b = ww.source(X_DATA, name="X"), ww.source(X_DATA, name="W")
    total = a + b
    with pytest.raises(ww.GraphError, match=r"This node has 2 sources \(X, W\).*node\(X=X_new, y=y_new\)"):
        total(X_DATA)


def test_calls_by_name_that_do_not_match_the_sources():
    a, b = ww.source(X_DATA, name="X"), ww.source(X_DATA, name="W")
    total = a + b
    with pytest.raises(ww.GraphError, match=r"Received values for \['Z'\], which are not sources.*Its sources: X, W"):
        total(X=X_DATA, W=X_DATA, Z=X_DATA)
    with pytest.raises(ww.GraphError, match=r"not for \['W'\]"):
        total(X=X_DATA)
    with pytest.raises(ww.GraphError, match="either one positional value or values by source name"):
        total(X_DATA, W=X_DATA)
    with pytest.raises(ww.GraphError, match="Expected one positional value.*Received 2"):
        a(X_DATA, X_DATA)
    twins = ww.source(X_DATA, name="X") + ww.source(X_DATA, name="X")
    with pytest.raises(ww.GraphError, match="both named 'X'"):
        twins(X=X_DATA)


def test_mismatched_row_counts_between_X_and_y():
    mach = ww.machine(Ridge(), X_DATA, Y_DATA[:100], name="ridge")
    with pytest.raises(ww.DataError, match=r"training arguments of Machine 'ridge' \(Ridge\) have different numbers of rows: X has 442, y has 100"):
        mach.fit()
    assert mach.state == 0


def test_non_node_non_data_arguments():
    with pytest.raises(ww.ArgumentError, match=r"Expected a node or data.*training argument y.*Received: str 'target'"):
        ww.machine(Ridge(), X_DATA, "target")
    with pytest.raises(TypeError, match="Received: NoneType None"):
        ww.machine(Ridge(), X_DATA, None)
    # a composite's network(X, y=None) fitted without y: it said only what it received
    with pytest.raises(ww.ArgumentError, match=r"training argument y of ww\.machine\(\) for Ridge\. Received: NoneType None\. "
                       r"In a composite's network\(X, y=None\), y is None when fit\(\) was called without it: fit with "
                       r"it, or build the machine without it \(ww\.machine\(model, X\) for a model that learns without"):
        ww.machine(Ridge(), X_DATA, None)
    with pytest.raises(ww.ArgumentError, match=r"training argument sample_weight of ww\.machine\(\) for Ridge\. .*"
                       r"build the machine without it\.$"):
        ww.machine(Ridge(), X_DATA, Y_DATA, None)
    with pytest.raises(ww.ArgumentError, match=r"Expected a model with a fit\(\) method.*Received: str 'ridge'"):
        ww.machine("ridge", X_DATA)
    with pytest.raises(ww.ArgumentError, match="Expected data.*for a source. Received: dict"):
        ww.source({"a": 1})
    with pytest.raises(ww.ArgumentError, match="Expected data.*to push through the network. Received: int 3"):
        ww.source(X_DATA, name="X")(3)
    with pytest.raises(ww.ArgumentError, match="Expected a callable for a static node"):
        ww.node("sum", ww.source(X_DATA))


def test_source_without_data():
    X = ww.source(name="X")
    with pytest.raises(ww.DataError, match="Source X holds no data"):
        (X + 1)()
    assert np.array_equal((X + 1)(np.array([1.0])), [2.0])


def _needs_three_rows(x):
    if len(x) < 3:
        raise ValueError("too few rows")
    return x


def test_a_node_function_failing_on_new_data_is_a_node_apply_error_naming_the_node():
    X = ww.source(X_DATA[:20], name="X")
    checked = ww.node(_needs_three_rows, X)
    message = (
        r"On new data, the node _needs_three_rows\(X\) raised ValueError: too few rows; it received "
        r"numpy.ndarray of shape \(2, 10\)\. Nothing was changed; fix the node's function or the data that reaches "
        r"it and call again\.$"
    )
    with pytest.raises(ww.NodeApplyError, match=message) as info:
        checked(X_DATA[:2])
    assert isinstance(info.value, ValueError) and info.value.node is checked
    assert type(info.value.__cause__) is ValueError and str(info.value.__cause__) == "too few rows"
    assert np.array_equal(checked(X_DATA[:3]), X_DATA[:3])  # nothing was changed


def test_a_node_function_failing_upstream_of_a_machine_names_the_node_and_what_was_computed():
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    checked = ww.node(_needs_three_rows, X)
    ridge = ww.machine(Ridge(), checked, y, name="ridge")
    yhat = ridge.predict(checked).fit()
    message = (
        r"Computing predict\(ridge, _needs_three_rows\(X\)\) on new data, the node _needs_three_rows\(X\) raised "
        r"ValueError: too few rows"
    )
    with pytest.raises(ww.NodeApplyError, match=message) as info:
        yhat(X_DATA[:2])
    assert isinstance(info.value, ValueError) and info.value.node is checked
    assert ridge.state == 1


def test_selection_and_arithmetic_failures_keep_their_builtin_kind():
    X = ww.source(X_DATA[:5], name="X")
    with pytest.raises(ww.NodeApplyError, match=r"On the training data, the node X\['price'\] raised IndexError"):
        X["price"]()
    with pytest.raises(ww.NodeApplyError) as info:
        (X + "a")(X_DATA[:1])
    assert isinstance(info.value, TypeError) and not isinstance(info.value, ValueError)


def test_wirework_errors_inside_a_call_are_not_wrapped_again():
    X = ww.source(name="X")
    with pytest.raises(ww.DataError, match="Source X holds no data") as info:
        ww.node(_needs_three_rows, X)()
    assert not isinstance(info.value, ww.NodeApplyError)


def test_a_shallow_copy_of_a_node_computes_the_same_and_is_its_own_node():
    import copy

    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    ridge = ww.machine(Ridge(), X, y, name="ridge")
    yhat = (ridge.predict(X) + 1).fit()
    expected = yhat(X_DATA[:3])
    for node in (yhat, yhat.parents[0], X):
        node()  # its structure is known (and kept) before the copy
    copied = copy.copy(yhat)
    assert copied is not yhat and copied.parents == yhat.parents and copied.sources() == [X]
    np.testing.assert_array_equal(copied(X_DATA[:3]), expected)
    np.testing.assert_array_equal(copy.copy(yhat.parents[0])(), ridge.predict(X)())
    data = copy.copy(X)
    assert data is not X and data.name == "X" and data() is X_DATA and data.sources() == [data]
    data.data = X_DATA[:2]  # its own data from now on
    assert X() is X_DATA


class Tagged(ww.graph.nodes.StaticNode):
    """A node class of a user's, without slots: its instances have a __dict__."""


def test_a_shallow_copy_of_a_node_without_slots_keeps_its_attributes():
    import copy

    tagged = Tagged(np.negative, (ww.source(X_DATA, name="X"),))
    tagged.tag = "mine"
    tagged()
    copied = copy.copy(tagged)
    assert type(copied) is Tagged and copied.tag == "mine"
    np.testing.assert_array_equal(copied(), -X_DATA)


def test_every_error_is_a_wirework_error():
    errors = (ww.GraphError, ww.NotTrainedError, ww.DataError, ww.ArgumentError, ww.LazyNodeError)
    for error in (*errors, ww.ParameterError, ww.MachineFitError, ww.MachineApplyError, ww.NodeApplyError, ww.ExportError):
        assert issubclass(error, ww.WireworkError)
    assert issubclass(ww.FrozenMachineWarning, ww.WireworkWarning)


def deep_network(depth: int):
    """A chain of ``depth`` nodes, a scaler machine every tenth, and a ridge after them, trained: its root."""
    X, y = ww.source(X_DATA, name="X"), ww.source(X_DATA[:, 0].copy(), name="y")
    node = X
    for i in range(depth):
        node = node + 1.0 if i % 10 else ww.machine(StandardScaler(), node).transform(node)
    return ww.machine(Ridge(), node, y, name="ridge").predict(node).fit(verbose=0)


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_deep_network_pickles_and_copies_without_reaching_the_recursion_limit(how):
    # pickle and deepcopy followed parents and training arguments recursively: RecursionError from ~300 nodes
    import copy
    import pickle
    import sys

    yhat = deep_network(max(3000, sys.getrecursionlimit() * 2))
    expected = yhat(X_DATA[:3] * 2)
    twin = pickle.loads(pickle.dumps(yhat)) if how == "pickle" else copy.deepcopy(yhat)
    np.testing.assert_array_equal(twin(X_DATA[:3] * 2), expected)
    np.testing.assert_array_equal(twin(), yhat())
    twin.fit(verbose=0)
    assert {m.report()["action"] for m in twin.machines()} == {"skipped"}  # trained as the original was
    assert len({id(m) for m in twin.machines()} & {id(m) for m in yhat.machines()}) == 0
    assert twin.sources()[0] is not yhat.sources()[0] and twin.sources()[0].name == "X"


def test_nodes_pickled_together_stay_shared_and_with_any_protocol():
    import pickle

    X = ww.source(X_DATA, name="X")
    scaled = ww.machine(StandardScaler(), X, name="scale").transform(X)
    first, second = (scaled * 2).fit(verbose=0), scaled + 1
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # protocols 0 and 1 refused nodes' slots
        a, b, machine = pickle.loads(pickle.dumps([first, second, scaled.machine], protocol=protocol))
        assert a.parents[0] is b.parents[0] and a.parents[0].machine is machine and machine.args[0] is a.sources()[0]
        np.testing.assert_array_equal(b(), scaled() + 1)
    assert pickle.dumps(first) == pickle.dumps(first)  # nothing left over from the last pickle changes the next


@ww.lift
def _halved(x):
    return x / 2


def _tripled(x):
    return x * 3


tripled = ww.lift(_tripled)  # lifted under another name: the original stays findable as itself


def test_networks_of_lifted_functions_pickle():
    """A static node keeps the function @lift wrapped, which pickle looked up by name and found the wrapper
    there: no network using ww.hcat, ww.mean, ww.restrict... could be pickled."""
    import pickle

    X = ww.source(X_DATA[:20], name="X")
    y = ww.source(Y_DATA[:20], name="y")
    both = ww.hcat(X, ww.mean(X, X), _halved(X), tripled(X))
    yhat = ww.machine(Ridge(), both, y).predict(both).fit(verbose=0)
    restored = pickle.loads(pickle.dumps(yhat))
    np.testing.assert_array_equal(restored(), yhat())
    np.testing.assert_array_equal(restored(X_DATA[20:25]), yhat(X_DATA[20:25]))
    assert repr(restored) == repr(yhat) and _halved.__name__ == "_halved" and _tripled.__qualname__ == "_tripled"


def test_a_pickled_trained_network_names_the_nodes_module_and_comes_back_trained():
    """Calling and pickling live in base classes of Node (_calling, _node_pickling); pickles still name
    wirework.graph.nodes (the node classes and _blank) and load back; nodes keep their slots (no __dict__)."""
    import pickle

    from sklearn.cluster import DBSCAN

    from wirework.graph.nodes import DynamicNode, FitPredictNode, Node, Source, StaticNode, TrainingOutputNode

    X_all, y_all = load_diabetes(return_X_y=True)
    X, y = ww.source(X_all[:80], name="X"), ww.source(y_all[:80], name="y")
    Z = ww.machine(StandardScaler(), X).transform(X)
    labels = ww.machine(DBSCAN(), Z).fit_predict(Z)
    yhat = ww.machine(Ridge(), Z, y).predict(Z)
    root = ww.node(np.add, 2 * yhat, labels)
    expected = root.fit()()
    data = pickle.dumps(root)
    assert b"wirework.graph.nodes" in data and b"_blank" in data
    assert b"_node_pickling" not in data and b"_calling" not in data
    # the classes live in one module per concept (_lazy, _sources, _dynamic, _static): pickles name them as before
    assert not any(b"wirework.graph." + part in data for part in (b"_lazy", b"_sources", b"_dynamic", b"_static"))
    for kind in (Node, Source, DynamicNode, TrainingOutputNode, StaticNode):
        old_layout = b"cwirework.graph.nodes\n" + kind.__name__.encode() + b"\np0\n."  # as wirework pickled it
        assert pickle.dumps(kind, protocol=0) == old_layout and pickle.loads(old_layout) is kind
    assert FitPredictNode is TrainingOutputNode and pickle.loads(b"cwirework.graph.nodes\nFitPredictNode\np0\n.") is TrainingOutputNode
    back = pickle.loads(data)
    kinds = {type(n) for n in back._ancestry()}
    assert {Source, DynamicNode, StaticNode, TrainingOutputNode} <= kinds
    assert not any(hasattr(n, "__dict__") for n in back._ancestry())
    assert all(m.state == 1 for m in back.machines())
    np.testing.assert_array_equal(back.fit()(), expected)
    np.testing.assert_array_equal(back.parents[0](X_all[80:90]), root.parents[0](X_all[80:90]))  # on new data
