"""The progress bar: drawn on a terminal only, silenced by verbose=0."""

import io
import sys

import numpy as np
from sklearn.linear_model import Ridge

import wirework as ww
from wirework.execution import progress


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def terminal(monkeypatch):
    """Make stderr a terminal (inside the test body: pytest re-captures stderr between phases)."""
    screen = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the built-in text bar
    return screen


def network():
    X, y = ww.source(np.eye(5), name="X"), ww.source(np.arange(5.0), name="y")
    return ww.mean(*[ww.machine(Ridge(alpha=a), X, y, name=f"ridge{a}").predict(X) for a in (1, 2)])


def test_bar_on_a_terminal(monkeypatch):
    screen = terminal(monkeypatch)
    network().fit()
    text = screen.getvalue()
    assert "[wirework] 2/2 machines — ridge2 trained" in text and text.endswith("\n")


def test_verbose_zero_draws_nothing(monkeypatch):
    screen = terminal(monkeypatch)
    network().fit(verbose=0)
    assert screen.getvalue() == ""


def test_no_bar_when_not_a_terminal(monkeypatch):
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    network().fit()
    assert screen.getvalue() == ""
