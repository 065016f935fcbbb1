"""The progress bar: drawn on a terminal only, silenced by verbose=0."""

import io
import sys
import time

import numpy as np
import pytest
from _probes import ThreadProbe
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


@pytest.mark.parametrize("executor", ["threads", "processes"])
def test_a_flat_ensemble_reports_each_member_as_its_fit_ends(executor):
    """Members nothing waits for (a flat ensemble: Bagging, Average) were all reported once the last had ended;
    each is reported as its fit ends when someone watches."""
    X, y = ww.source(np.eye(6), name="X"), ww.source(np.arange(6.0), name="y")
    sleeps = (0.0, 0.0, 1.5, 1.5)  # on 2 workers: two quick fits, then two slow ones
    members = [ww.machine(ThreadProbe(sleep=s), X, y, name=f"member{k}") for k, s in enumerate(sleeps)]
    events = []
    ww.mean(*[m.predict(X) for m in members]).fit(
        executor=executor, n_jobs=2, progress=lambda event: events.append((time.perf_counter(), event))
    )
    assert [event["done"] for _, event in events] == [1, 2, 3, 4]
    assert {event["machine"] for _, event in events[:2]} == {"member0", "member1"}
    assert events[0][1]["running"] >= 1  # reported while the slow ones still run
    assert events[-1][0] - events[0][0] > 1.0  # not all at the end
