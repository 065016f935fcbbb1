"""The demo command: the seed's networks train, match scikit-learn, and retrain only what changed."""

import re
import subprocess
import sys

import pytest

from wirework.cli.main import main


def test_demo_prints_predictions_parity_and_retraining(capsys):
    assert main(["demo", "--rows", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("max |wirework - scikit-learn|") == 3
    assert all(float(v) <= 1e-10 for v in re.findall(r"test rows: ([0-9.e+-]+)\n", out))
    assert "network: inverse_transform(std, predict(tree, X))" in out
    assert "after tree.model.max_depth = 5: retrained tree (updated)" in out
    assert "retrained tree1 (updated), tree2 (updated), tree3 (updated)" in out
    assert "after judge.model.fit_intercept = False: retrained judge (updated)\n" in out
    assert "trained: ridge_fold1 (trained)" in out and "machines: 9" in out


def test_python_dash_m_runs_the_command_line():
    done = subprocess.run([sys.executable, "-m", "wirework", "--help"], capture_output=True, text=True, check=True)
    assert "demo" in done.stdout
    failed = subprocess.run([sys.executable, "-m", "wirework", "nonsense"], capture_output=True, text=True)
    assert failed.returncode == 2 and "invalid choice" in failed.stderr


@pytest.mark.parametrize("bad", ["-3", "two"])
def test_rows_must_be_a_whole_number_of_at_least_zero(bad, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["demo", "--rows", bad])
    assert stop.value.code == 2 and "expected a whole number >= 0" in capsys.readouterr().err
