"""The demo command: the seed's networks train, match scikit-learn, and retrain only what changed."""

import re
import subprocess
import sys

import pytest

from wirework.cli.main import main


def test_demo_prints_predictions_parity_and_retraining(capsys):
    assert main(["demo", "--rows", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("max |wirework - scikit-learn") == 3
    assert "max |wirework - scikit-learn's trees averaged by hand| on 100 test rows" in out  # a loop, not a class
    assert "predictions on the first 3 training rows" in out  # the stack's 20 rows are among its training rows
    assert len(re.findall(r"rows: ([0-9.e+-]+)\n", out)) == 3
    assert all(float(v) <= 1e-10 for v in re.findall(r"rows: ([0-9.e+-]+)\n", out))
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


def test_more_rows_than_there_are_prints_those_there_are(capsys):
    assert main(["demo", "--rows", "99999999999999999999"]) == 0
    out = capsys.readouterr().out
    assert "predictions on the first 100 test rows" in out and "first 20 training rows" in out
    assert "99999999999999999999" not in out


def test_output_that_cannot_be_written_ends_without_a_traceback():
    # a reader that stops early (| head -1) gave a BrokenPipeError traceback; a full disk an OSError one
    reader = subprocess.Popen([sys.executable, "-m", "wirework", "demo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = reader.stdout.readline()
    reader.stdout.close()  # as head does after its line
    error = reader.stderr.read().decode()
    reader.stderr.close()
    assert first.startswith(b"load_diabetes:") and reader.wait() == 1 and "Traceback" not in error, error
    if sys.platform.startswith("linux"):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "wirework", "demo"], stdout=full, stderr=subprocess.PIPE, text=True)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert "wirework demo: could not write the output: [Errno 28] No space left on device" in done.stderr
