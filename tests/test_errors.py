import pickle

import pytest

import wirework as ww


@pytest.mark.parametrize("kind", [ww.MachineFitError, ww.MachineApplyError])
def test_machine_errors_take_the_builtin_of_their_cause_and_pickle_as_their_public_class(kind):
    error = kind.wrapping(KeyError("k"), "what happened", machine="m")
    assert isinstance(error, kind) and isinstance(error, KeyError) and not isinstance(error, ValueError)
    assert str(error) == "what happened" and error.machine == "m"  # not quoted as KeyError's str would
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is kind and str(restored) == "what happened"


def test_fit_and_apply_variants_of_one_builtin_are_distinct():
    fit = ww.MachineFitError.wrapping(ValueError("v"), "a")
    apply = ww.MachineApplyError.wrapping(ValueError("v"), "b")
    assert isinstance(fit, ValueError) and isinstance(apply, ValueError)
    assert not isinstance(fit, ww.MachineApplyError) and not isinstance(apply, ww.MachineFitError)


def test_a_cause_of_no_other_builtin_gives_the_plain_class():
    class Custom(Exception):
        pass

    assert type(ww.MachineApplyError.wrapping(Custom(), "c")) is ww.MachineApplyError


def test_unavailable_is_an_attribute_error_and_cluster_an_os_error():
    assert issubclass(ww.UnavailableError, ww.WireworkError) and issubclass(ww.UnavailableError, AttributeError)
    assert issubclass(ww.ClusterError, ww.WireworkError) and issubclass(ww.ClusterError, OSError)
    assert {"UnavailableError", "ClusterError"} <= set(ww.__all__)


def test_a_long_message_of_another_library_is_quoted_cut_and_kept_whole_as_the_cause():
    import numpy as np
    from sklearn.preprocessing import StandardScaler

    X = ww.source(np.arange(1200.0).reshape(600, 2))
    scaler = ww.machine(StandardScaler(), X)
    scaler.transform(X).fit()
    with pytest.raises(ww.MachineApplyError) as info:  # scikit-learn's message lists all 600 values
        scaler.transform(np.arange(600.0))()
    message = str(info.value)
    assert "ValueError: Expected 2D array, got 1D array instead" in message
    assert "characters; the whole message is this error's cause)" in message
    assert len(message) < 900 < len(str(info.value.__cause__))
    assert message.endswith("fix the data that reaches it (columns, missing values, categories) and call again.")


def test_a_short_message_is_quoted_whole():
    from wirework.errors import quoted

    assert quoted(ValueError("alpha must be > 0.")) == "ValueError: alpha must be > 0"
    long = ValueError("word " * 200)
    assert quoted(long).startswith("ValueError: word word") and "(1000 characters;" in quoted(long)


def test_a_node_apply_error_takes_the_builtin_of_its_cause_keeps_its_node_and_pickles_as_its_public_class():
    error = ww.NodeApplyError.wrapping(ZeroDivisionError("z"), "what happened", node="n")
    assert isinstance(error, ArithmeticError) and error.node == "n" and str(error) == "what happened"
    assert not isinstance(error, ww.MachineApplyError) and not isinstance(error, ww.MachineFitError)
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is ww.NodeApplyError and str(restored) == "what happened"
