"""FitCache: hits without fitting, never a stale entry, disk sharing, eviction."""

import copy
import os
import pathlib
import pickle
import re
import subprocess
import sys
import time

import numpy as np
import pytest
import sklearn
from _counting import Counting, fits
from _probes import CrossFitted
from sklearn.base import clone
from sklearn.ensemble import ExtraTreesRegressor
from sklearn.linear_model import Ridge
from sklearn.preprocessing import FunctionTransformer, StandardScaler

import wirework as ww
from wirework.graph.cache import STALE_SECONDS

RNG = np.random.default_rng(0)
X_DATA = RNG.normal(size=(50, 3))
Y_DATA = RNG.normal(size=50)


def train(cache, X=X_DATA, y=Y_DATA, alpha=1.0):
    mach = ww.machine(Counting(Ridge(alpha=alpha), tag="ridge"), X, y)
    mach.fit(cache=cache)
    return mach


def test_hit_returns_the_fit_without_calling_fit():
    cache = ww.FitCache()
    first = train(cache)
    second = train(cache)
    assert fits() == ["ridge"]
    assert second.fitted_model is first.fitted_model
    assert "(fit found in the cache)" in second.report()["reason"]
    assert cache.stats()["hits"] == 1 and cache.stats()["misses"] == 1 and cache.stats()["entries"] == 1


@pytest.mark.parametrize("where", ["memory", "disk"])
def test_a_forced_fit_calls_the_model_and_replaces_the_cached_fit(tmp_path, where):
    """force=True took the cached fit (condition 2 ran no fit at all): it now fits, and its fit replaces the entry."""
    cache = ww.FitCache() if where == "memory" else ww.FitCache(tmp_path)
    random = Counting(ExtraTreesRegressor(n_estimators=3), tag="trees")  # no random_state: each fit differs

    def predictions(mach):
        return mach.fitted_model.predict(X_DATA * 1.7 + 0.3)  # off the training rows, which every tree fits

    first = ww.machine(random, X_DATA, Y_DATA).fit(cache=cache)
    forced = ww.machine(random, X_DATA, Y_DATA).fit(cache=cache, force=True)  # never trained, and forced
    assert fits() == ["trees", "trees"] and forced.report()["reason"] == "condition 1: never trained"
    assert not np.array_equal(predictions(forced), predictions(first))
    first.fit(cache=cache, force=True)
    assert fits() == ["trees"] * 3 and first.report()["reason"] == "condition 2: forced" and first.state == 2
    again = ww.machine(random, X_DATA, Y_DATA).fit(cache=cache)  # finds the last forced fit, not the earlier ones
    assert fits() == ["trees"] * 3 and again.report()["reason"].endswith("(fit found in the cache)")
    np.testing.assert_array_equal(predictions(again), predictions(first))
    assert len(cache) == 1 and (cache.hits, cache.misses) == (1, 1)  # a forced fit does not look the cache up
    if where == "memory":
        assert again.fitted_model is first.fitted_model
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    node = ww.machine(random, ww.machine(Counting(StandardScaler(), tag="scaler"), X).transform(X), y).predict(X)
    node.fit(cache=cache)
    node.fit(cache=cache, force=True)  # every machine upstream fits again
    assert fits()[3:] == ["scaler", "trees", "scaler", "trees"]


def test_one_changed_value_in_the_data_is_a_miss():
    cache = ww.FitCache()
    train(cache)
    changed = X_DATA.copy()
    changed[17, 2] += 1e-12
    train(cache, X=changed)
    train(cache, alpha=2.0)
    assert fits() == ["ridge"] * 3
    assert cache.misses == 3 and cache.hits == 0


def test_global_setting_and_context():
    cache = ww.FitCache()
    with ww.config_context(cache=cache):
        train(None)
        train(None)
    train(None)
    assert fits() == ["ridge", "ridge"]
    ww.set_config(cache=cache)
    try:
        train(None)
    finally:
        ww.set_config(cache=None)
    assert cache.hits == 2


def test_clones_and_copies_share_the_cache_but_pickles_do_not_carry_entries():
    cache = ww.FitCache()
    train(cache)
    assert copy.deepcopy(cache) is cache
    stack = ww.Pipeline([("ridge", Ridge())], cache=cache)
    assert clone(stack).cache is cache
    restored = pickle.loads(pickle.dumps(cache))
    assert len(restored) == 0 and restored.location is None


def test_disk_cache_is_shared_between_processes(tmp_path):
    cache = ww.FitCache(tmp_path / "fits")
    train(cache)
    script = (
        "import numpy as np, wirework as ww\n"
        "from sklearn.linear_model import Ridge\n"
        "rng = np.random.default_rng(0); X = rng.normal(size=(50, 3)); y = rng.normal(size=50)\n"
        f"cache = ww.FitCache({str(tmp_path / 'fits')!r})\n"
        "import sys; sys.path.insert(0, 'tests')\n"
        "from _counting import Counting\n"
        "m = ww.machine(Counting(Ridge(), tag='ridge'), X, y); m.fit(cache=cache)\n"
        "print(cache.hits, Counting.events)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "1 []"
    assert not list((tmp_path / "fits").glob("*/*.tmp"))


def test_max_bytes_evicts_least_recently_used(tmp_path):
    for cache in (ww.FitCache(max_bytes=1500), ww.FitCache(tmp_path, max_bytes=1500)):
        for alpha in (1.0, 2.0, 3.0):
            train(cache, alpha=alpha)
        assert 0 < cache.nbytes <= 1500 and len(cache) < 3
        train(cache, alpha=3.0)
        assert cache.hits == 1
        cache.clear()
        assert len(cache) == 0 and cache.hits == 0


@pytest.mark.parametrize("where", ["memory", "disk"])
def test_a_fit_larger_than_max_bytes_is_not_stored_and_evicts_nothing(tmp_path, where):
    bound = 2000 if where == "disk" else 1500  # an entry file has a header of ~200 bytes
    cache = ww.FitCache(tmp_path if where == "disk" else None, max_bytes=bound)
    for alpha in (1.0, 2.0):
        train(cache, alpha=alpha)
    kept = cache.nbytes
    big = ww.machine(FunctionTransformer(func=np.negative, kw_args={"pad": list(range(2000))}), X_DATA)
    with pytest.warns(ww.FitCacheWarning, match=rf"did not store a fitted FunctionTransformer: it takes \d+ bytes "
                      rf"pickled, more than max_bytes \({bound}\).*raise max_bytes"):
        big.fit(cache=cache)
    assert big.state == 1 and len(cache) == 2 and cache.nbytes == kept  # the others are kept
    train(cache, alpha=2.0)
    assert cache.hits == 1


def test_a_value_that_would_push_its_fit_past_max_bytes_is_not_kept():
    fitted = Ridge().fit(X_DATA, Y_DATA)
    cache = ww.FitCache(max_bytes=10**6)
    cache.put("k", fitted)
    cache.max_bytes = cache.nbytes + 100  # the fit fits, not with its 50 predictions (400 bytes)
    result = cache.applied("k", fitted, "predict", X_DATA, lambda: fitted.predict(X_DATA))
    np.testing.assert_array_equal(result, fitted.predict(X_DATA))
    assert cache.stats()["values"] == 0 and cache.get("k") is fitted  # computed, not kept: the fit stays
    cache.max_bytes += 400
    cache.applied("k", fitted, "predict", X_DATA, lambda: fitted.predict(X_DATA))
    assert cache.stats()["values"] == 1 and cache.get("k") is fitted


def test_a_disk_cache_evicts_the_least_recently_used_entry_even_within_one_clock_tick(tmp_path):
    for trial in range(5):  # the system stamps files with its last tick: all three would tie
        cache = ww.FitCache(tmp_path / str(trial), max_bytes=2000)  # two of these entries (~800 bytes) fit, not three
        first, second = train(cache, alpha=1.0), train(cache, alpha=2.0)
        assert cache.get(first._fit_key) is not None  # the first is now used more recently than the second
        third = train(cache, alpha=3.0)
        kept = {path.stem for path in (tmp_path / str(trial)).glob("*/*.pkl")}
        assert kept == {first._fit_key, third._fit_key} and second._fit_key not in kept, f"trial {trial}"


def test_a_disk_cache_whose_directory_was_removed_makes_it_again(tmp_path):
    import shutil

    cache = ww.FitCache(tmp_path / "fits")
    train(cache)
    shutil.rmtree(tmp_path / "fits")  # cleared by hand while the process runs
    second = train(cache, alpha=2.0)  # stored without a warning (warnings are errors here)
    assert len(cache) == 1 and cache.get(second._fit_key) is not None


def test_bad_settings():
    for bound in (0, -1):
        with pytest.raises(ww.ParameterError, match=rf"max_bytes to be a positive int or None. Received: {bound}\. "
                           "A bound of zero or less would store nothing") as info:
            ww.FitCache(max_bytes=bound)
        assert isinstance(info.value, ValueError)
    for bound, shown in (("1e6", "str '1e6'."), (2.5, "float 2.5."), (1e6, r"float 1000000.0; give int\(1000000.0\)."),
                         (True, "bool True.")):
        with pytest.raises(ww.ArgumentError, match=rf"max_bytes to be a positive int or None. Received: {shown}$"):
            ww.FitCache(max_bytes=bound)
    assert ww.FitCache(max_bytes=np.int64(10**6)).max_bytes == 10**6  # a numpy integer is an int
    cache = ww.FitCache(max_bytes=10**6)
    with pytest.raises(ww.ParameterError, match="max_bytes"):
        cache.max_bytes = 0  # set later: checked as well
    assert cache.max_bytes == 10**6
    with pytest.raises(ww.ArgumentError, match=r"location to be a directory path \(str or path-like\) or None. "
                       "Received: int 3"):
        ww.FitCache(location=3)
    with pytest.raises(ww.ParameterError, match="Received an empty path, which would be the current directory"):
        ww.FitCache(location="")
    with pytest.raises(ww.ArgumentError, match="Unknown setting"):
        ww.set_config(colour="red")
    with pytest.raises(ww.ArgumentError, match="cache to be a ww.FitCache or None. Received: str"):
        ww.set_config(cache="yes")
    with pytest.raises(ww.ArgumentError, match="cache to be a ww.FitCache or None"):
        ww.Pipeline([("r", Ridge())], cache="yes").fit(X_DATA, Y_DATA)


def test_unbounded_memory_cache_does_not_measure_sizes():
    cache = ww.FitCache()
    unpicklable = lambda: None  # noqa: E731 - storing it must not need pickling
    cache.put("k", unpicklable)
    assert cache.get("k") is unpicklable
    assert cache.nbytes is None and cache.stats()["bytes"] is None


def test_bound_set_later_measures_earlier_entries():
    cache = ww.FitCache()
    cache.put("a", list(range(1000)))
    cache.max_bytes = 10**6
    cache.put("b", [1.0])
    assert cache.nbytes is not None and cache.nbytes > 1000
    cache.max_bytes = 100
    cache.put("c", [2.0])
    assert cache.get("a") is None and cache.get("c") == [2.0]


def test_bounded_and_disk_caches_measure_sizes(tmp_path):
    for cache in (ww.FitCache(max_bytes=10**9), ww.FitCache(tmp_path)):
        train(cache, alpha=1.0)
        assert cache.stats()["bytes"] > 0


def predictions_network(cache, X=X_DATA):
    """A first machine's predictions on X train a second one: fit, return the first machine."""
    first = ww.machine(Counting(Ridge(), tag="first"), X_DATA, Y_DATA)
    second = ww.machine(Ridge(), ww.node(lambda v: v.reshape(-1, 1), first.predict(X)), Y_DATA)
    second.fit(cache=cache)
    return first


def predicts():
    return [tag for tag, what in Counting.events if what == "predict"]


def test_values_a_cached_fit_computes_in_training_are_shared():
    cache = ww.FitCache()
    a = predictions_network(cache)
    b = predictions_network(cache)  # another network: its first machine finds the fit and its predictions
    assert fits() == ["first"] and predicts() == ["first"]
    assert b.fitted_model is a.fitted_model
    assert cache.value_hits == 1 and cache.value_misses == 1 and cache.stats()["values"] == 1
    other_input = X_DATA.copy()
    other_input[3, 1] += 1e-12  # one changed cell of the input: computed again
    predictions_network(cache, X=other_input)
    assert predicts() == ["first", "first"] and cache.value_misses == 2


def test_values_are_kept_only_with_the_very_fitted_object(tmp_path):
    predictions_network(ww.FitCache(tmp_path))
    predictions_network(ww.FitCache(tmp_path))  # a disk cache returns a copy of the fit: its values are not kept
    assert fits() == ["first"] and predicts() == ["first", "first"]
    cache = ww.FitCache()
    first = predictions_network(cache)
    key = first._fit_key
    cache.put(key, Counting(Ridge(), tag="first").fit(X_DATA, Y_DATA))  # another object under the same key
    assert cache.stats()["values"] == 0
    predictions_network(cache)
    assert predicts().count("first") == 4  # the hit is the new object; its predictions are its own


def test_bounded_cache_counts_and_evicts_values_with_their_fit():
    cache = ww.FitCache(max_bytes=10**6)
    predictions_network(cache)
    assert cache.stats()["values"] == 1
    with_values = cache.nbytes
    assert with_values >= X_DATA.shape[0] * 8  # the kept predictions count
    cache.max_bytes = 1  # everything goes, values with their fits
    with pytest.warns(ww.FitCacheWarning, match=r"did not store a fitted list: it takes \d+ bytes pickled"):
        cache.put("other", [0.0])  # larger than the bound by itself: not stored
    assert len(cache) == 0 and cache.stats()["values"] == 0
    cache.clear()
    assert cache.stats()["value_hits"] == cache.stats()["value_misses"] == 0


def test_transformer_outputs_are_not_kept():
    cache = ww.FitCache()
    for _ in range(2):
        scaler = ww.machine(Counting(StandardScaler(), tag="scale"), X_DATA)
        ww.machine(Ridge(), scaler.transform(X_DATA), Y_DATA).fit(cache=cache)
    assert fits() == ["scale"] and [what for tag, what in Counting.events].count("transform") == 2
    assert cache.stats()["values"] == 0 and cache.value_misses == 0


def test_a_location_that_cannot_be_a_directory_is_refused(tmp_path):
    path = tmp_path / "entries"
    path.write_text("not a directory")
    with pytest.raises(ww.StorageError, match=r"FitCache location '.*entries' is a file\. Give a directory"):
        ww.FitCache(location=path)
    with pytest.raises(OSError, match=r"FitCache cannot use '.*entries/cache' as its directory") as info:
        ww.FitCache(location=path / "cache")  # under a file
    assert isinstance(info.value, ww.StorageError) and isinstance(info.value.__cause__, OSError)


@pytest.mark.skipif(os.geteuid() == 0 and not os.path.isdir("/proc/self"), reason="root writes in any directory")
def test_a_directory_this_process_cannot_write_in_is_refused(tmp_path):
    if os.geteuid() == 0:  # root writes in a directory whatever its mode, not in /proc/self
        location = pathlib.Path("/proc/self")
    else:
        location = tmp_path / "read-only"
        location.mkdir()
        location.chmod(0o555)
    with pytest.raises(ww.StorageError, match=rf"FitCache cannot use '{location}' as its directory: .*Give a "
                       "directory this process may create and write in") as info:
        ww.FitCache(location=location)
    assert isinstance(info.value, OSError) and isinstance(info.value.__cause__, OSError)


def test_a_pickled_disk_cache_shares_the_entries_and_never_fails_to_unpickle(tmp_path):
    cache = ww.FitCache(tmp_path / "fits", max_bytes=10**6)
    train(cache)
    restored = pickle.loads(pickle.dumps(cache))
    assert (restored.location, restored.max_bytes, restored.hits, len(restored)) == (tmp_path / "fits", 10**6, 0, 1)
    assert train(restored).report()["reason"].endswith("(fit found in the cache)")
    moved = ww.FitCache(tmp_path / "elsewhere")
    data = pickle.dumps(moved)
    (tmp_path / "elsewhere").rmdir()
    (tmp_path / "elsewhere").write_text("a file now")  # as on a host where the path cannot be a directory
    unusable = pickle.loads(data)  # no error while unpickling (a Dask worker, say)
    with pytest.warns(ww.FitCacheWarning, match="could not store a fitted Counting .*the fit is kept, but not cached"):
        mach = train(unusable)
    assert mach.state == 1 and fits() == ["ridge", "ridge"]


@pytest.mark.parametrize("where", ["memory", "bounded", "disk"])
def test_stats_agree_with_the_entries(tmp_path, where):
    cache = {"memory": ww.FitCache(), "bounded": ww.FitCache(max_bytes=10**6), "disk": ww.FitCache(tmp_path)}[where]
    for alpha in (1.0, 2.0, 1.0):
        predictions_network(cache, X=X_DATA * alpha)
    stats = cache.stats()
    assert (stats["hits"], stats["misses"]) == (3, 3)  # the first machine twice, the second on the third network
    assert stats["entries"] == len(cache) == 3 and stats["bytes"] == cache.nbytes
    if where == "disk":
        assert stats["bytes"] == sum(path.stat().st_size for path in tmp_path.glob("*/*.pkl"))
        assert stats["values"] == 0
    else:
        assert stats["values"] == 2 and (stats["bytes"] is None) == (where == "memory")


@pytest.mark.parametrize("bounded", [False, True])
def test_a_fit_the_cache_cannot_store_is_kept_with_a_warning(tmp_path, bounded):
    cache = ww.FitCache(max_bytes=10**6) if bounded else ww.FitCache(location=tmp_path)
    unpicklable = FunctionTransformer(func=lambda X: X * 2.0)  # a lambda does not pickle
    mach = ww.machine(unpicklable, X_DATA)
    with pytest.warns(ww.FitCacheWarning, match=r"could not store a fitted FunctionTransformer .*the fit is kept"):
        mach.fit(cache=cache)
    assert mach.state == 1 and np.array_equal(mach.transform(X_DATA)(), X_DATA * 2.0)
    assert len(cache) == 0 and list(tmp_path.rglob("*.tmp")) == []  # nothing half-written


def only_entry(location):
    (entry,) = location.glob("*/*.pkl")
    return entry


def test_an_entry_that_is_not_of_this_format_is_a_miss_removed_with_a_warning(tmp_path):
    cache = ww.FitCache(location=tmp_path)
    train(cache)
    entry = only_entry(tmp_path)
    entry.write_bytes(pickle.dumps(Counting(Ridge(), tag="impostor").fit(X_DATA, -Y_DATA)))  # a bare pickle
    Counting.events.clear()
    with pytest.warns(ww.FitCacheWarning, match=rf"entry {entry.name} is not an entry of this wirework's format.*"
                      r"it is removed, and the model fitted again and stored"):
        mach = train(cache)
    assert fits() == ["ridge"] and mach.state == 1 and mach.fitted_model.tag == "ridge"
    assert entry.read_bytes().startswith(b"wirework fit cache entry\n")  # replaced by the new fit
    assert train(cache).report()["reason"].endswith("(fit found in the cache)")


@pytest.mark.parametrize("damage", ["cut", "flip", "header", "version"])
def test_a_damaged_or_stale_entry_is_a_miss_removed_never_a_wrong_model(tmp_path, damage):
    """A byte changed in a coefficient still unpickles, and a model pickled by another scikit-learn may load:
    the header tells, before anything is unpickled."""
    cache = ww.FitCache(location=tmp_path)
    first = train(cache)
    right = first.fitted_model.estimator_.coef_
    entry = only_entry(tmp_path)
    data = entry.read_bytes()
    if damage == "cut":
        data = data[: len(data) // 2]
    elif damage == "flip":
        at = data.index(right.tobytes()) + 3
        data = data[:at] + bytes([data[at] ^ 0x40]) + data[at + 1 :]  # a coefficient, a little off
    elif damage == "header":
        data = data[:30] + b"~" * 10 + data[40:]
    else:  # written by another scikit-learn: the entry is whole
        data = data.replace(f'"sklearn":"{sklearn.__version__}"'.encode(), b'"sklearn":"0.0"', 1)
    entry.write_bytes(data)
    reason = {
        "cut": "is cut short",
        "flip": r"is corrupted \(its checksum does not match\)",
        "header": "has a header this wirework cannot read",
        "version": rf"was written by other code \(sklearn: 0.0; here: {re.escape(sklearn.__version__)}\)",
    }[damage]
    with pytest.warns(ww.FitCacheWarning, match=rf"entry {entry.name} {reason}.*; it is removed") as caught:
        assert cache.get(first._fit_key) is None
    assert len(caught) == 1 and not entry.exists() and cache.misses == 2
    mach = train(cache)
    np.testing.assert_array_equal(mach.fitted_model.estimator_.coef_, right)
    assert fits() == ["ridge", "ridge"] and entry.exists()


def test_a_foreign_file_in_the_directory_is_never_read_evicted_or_cleared(tmp_path):
    kept = {tmp_path / "data" / "model.pkl": b"the user's", tmp_path / "ab" / "notes.pkl": b"theirs too"}
    for path, content in kept.items():
        path.parent.mkdir()
        path.write_bytes(content)
    cache = ww.FitCache(location=tmp_path, max_bytes=2000)
    for alpha in (1.0, 2.0, 3.0, 4.0):
        train(cache, alpha=alpha)  # evicts
    assert len(cache) == 2 and cache.nbytes < 2000
    cache.clear()
    assert len(cache) == 0 and all(path.read_bytes() == content for path, content in kept.items())


def test_an_entry_of_other_code_is_a_miss_removed_never_a_model_of_another_layout(tmp_path):
    """An entry pickled with another version of a model's class (its module has no version: its source counts)."""
    module = tmp_path / "layout_model.py"

    def write_module(fitted_name):
        module.write_text(
            "import numpy as np\n"
            "from sklearn.base import BaseEstimator, RegressorMixin\n"
            "class Layout(RegressorMixin, BaseEstimator):\n"
            "    def fit(self, X, y):\n"
            f"        self.{fitted_name} = float(np.mean(y))\n"
            "        return self\n"
            "    def predict(self, X):\n"
            f"        return np.full(len(X), self.{fitted_name})\n"
        )

    script = (
        "import sys, warnings, numpy as np, wirework as ww\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from layout_model import Layout\n"
        "warnings.simplefilter('error')\n"  # as this test run: a FitCacheWarning ends the script
        "X, y = np.eye(4), np.arange(4.0)\n"
        f"cache = ww.FitCache({str(tmp_path / 'fits')!r})\n"
        "try:\n"
        "    mach = ww.machine(Layout(), X, y).fit(cache=cache, verbose=0)\n"
        "except ww.FitCacheWarning as warning:\n"
        "    print('warned:', warning)\n"
        "    warnings.simplefilter('ignore')\n"
        "    mach = ww.machine(Layout(), X, y).fit(cache=cache, verbose=0)\n"
        "print(mach.report()['reason'], mach.fitted_model.predict(X[:1]))\n"
    )

    def run():
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    write_module("mean_")
    assert run() == "condition 1: never trained [1.5]\n"
    assert run() == "condition 1: never trained (fit found in the cache) [1.5]\n"
    write_module("average_")  # the class now keeps another attribute: the old entry would fail in predict
    out = run()
    assert out.startswith("warned: FitCache entry") and "was written by other code (layout_model: source " in out
    assert out.endswith("condition 1: never trained [1.5]\n")
    assert run() == "condition 1: never trained (fit found in the cache) [1.5]\n"  # stored again, this layout


def test_temporary_files_of_writers_that_died_are_removed_and_those_of_live_writers_kept(tmp_path):
    """A process killed between writing an entry's temporary file and renaming it left the file for good."""
    cache = ww.FitCache(tmp_path)
    mach = train(cache)
    entry = only_entry(tmp_path)
    other = tmp_path / ("00" if entry.parent.name != "00" else "ff")
    other.mkdir()

    def left(folder, name, age):
        path = folder / name
        path.write_bytes(b"wirework fit cache entry\n{cut short")
        stamp = time.time() - age
        os.utime(path, (stamp, stamp))
        return path

    old = STALE_SECONDS + 60
    dead = left(entry.parent, f".{entry.stem}.k1ll3d_x.tmp", old)  # named as mkstemp names an entry's
    dead_elsewhere = left(other, f".{other.name}{'0' * 30}.abc_1234.tmp", old)
    dead_probe = left(tmp_path, ".wirework-probe-q7x_z2ab", old)
    writing = [left(entry.parent, f".{entry.stem}.wr1t1ng_.tmp", 5.0), left(other, f".{'1' * 32}.live_123.tmp", 5.0)]
    foreign = [left(entry.parent, "notes.tmp", old), left(tmp_path, "kept.txt", old)]  # not the cache's: never
    mach.fit(cache=cache, force=True)  # stores again: the folder it writes in is swept
    assert not dead.exists() and dead_elsewhere.exists() and dead_probe.exists()
    cache.clear()
    assert not dead_elsewhere.exists() and not dead_probe.exists() and len(cache) == 0
    assert all(path.exists() for path in writing + foreign)
    bounded = ww.FitCache(tmp_path, max_bytes=2000)
    for alpha in (1.0, 2.0):
        train(bounded, alpha=alpha)
    dead_elsewhere = left(other, dead_elsewhere.name, old)
    for alpha in (3.0, 4.0):  # past the bound: evicts, and the temporary files of dead writers go too
        train(bounded, alpha=alpha)
    assert not dead_elsewhere.exists() and all(path.exists() for path in writing + foreign)
    assert len(bounded) < 4


@pytest.mark.parametrize("how", ["made", "set", "pickled"])
def test_stale_after_sets_the_age_of_a_temporary_file_taken_for_a_dead_writers(tmp_path, how):
    """The age was the module constant STALE_SECONDS (an hour) for every cache."""
    if how == "made":
        cache = ww.FitCache(tmp_path, stale_after=30.0)
    elif how == "set":
        cache = ww.FitCache(tmp_path)
        cache.stale_after = 30  # an int is a number of seconds too
    else:
        cache = pickle.loads(pickle.dumps(ww.FitCache(tmp_path, stale_after=30.0)))
    assert cache.stale_after == 30.0 and "stale_after=30.0" in repr(cache)
    mach = train(cache)
    entry = only_entry(tmp_path)

    def left(name, age):
        path = entry.parent / f".{entry.stem}.{name}.tmp"  # named as mkstemp names an entry's
        path.write_bytes(b"wirework fit cache entry\n{cut short")
        stamp = time.time() - age
        os.utime(path, (stamp, stamp))
        return path

    live = left("wr1t1ng_", 5.0)  # a writer's, touched 5 s ago: writing still
    dead = left("k1ll3d_x", 60.0)  # untouched for a minute: younger than STALE_SECONDS, older than stale_after
    mach.fit(cache=cache, force=True)  # stores again: the folder it writes in is swept
    assert live.exists() and not dead.exists()
    dead = left("k1ll3d_y", 60.0)
    ww.FitCache(tmp_path).clear()  # another cache on the directory, with the default: an hour
    assert dead.exists()


def test_stale_after_keeps_the_default_and_bad_values_are_refused(tmp_path):
    assert ww.FitCache().stale_after == STALE_SECONDS == 3600.0 and "stale_after=" not in repr(ww.FitCache(tmp_path))
    old = ww.FitCache(tmp_path)
    old.__dict__.pop("_stale_after")
    state = {"location": tmp_path, "max_bytes": None}  # pickled before stale_after was a setting
    old.__setstate__(state)
    assert old.stale_after == STALE_SECONDS
    assert ww.FitCache(stale_after=float("inf")).stale_after == float("inf")  # never removed
    assert ww.FitCache(stale_after=np.float32(1.5)).stale_after == 1.5
    expected = r"Expected stale_after to be a positive number of seconds \(default 3600\.0; inf: never\)\. Received: "
    for wrong in (0, -60.0):
        with pytest.raises(ww.ParameterError, match=rf"{expected}{wrong!r}\. A writer's temporary file would be "
                           "removed while it is written; give more seconds than the slowest write") as info:
            ww.FitCache(tmp_path, stale_after=wrong)
        assert isinstance(info.value, ValueError)
    with pytest.raises(ww.ParameterError, match=rf"{expected}nan\. Give a number of seconds\.$"):
        ww.FitCache(stale_after=float("nan"))
    for wrong, shown in ((True, "bool True"), ("60", "str '60'"), (None, "NoneType None")):
        with pytest.raises(ww.ArgumentError, match=rf"{expected}{shown}\.$") as info:
            ww.FitCache(stale_after=wrong)
        assert isinstance(info.value, TypeError)
    cache = ww.FitCache(stale_after=10.0)
    with pytest.raises(ww.ParameterError, match="stale_after"):
        cache.stale_after = 0  # set later: checked as well
    assert cache.stale_after == 10.0


def test_a_writer_whose_temporary_file_was_taken_for_stale_keeps_its_fit_uncached(tmp_path, monkeypatch):
    """A writer stalled past STALE_SECONDS, whose file another process removed: its rename fails, nothing else."""
    real_replace = os.replace

    def swept_first(source, target):
        os.unlink(source)  # another process's sweep, just before the rename
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", swept_first)
    with pytest.warns(ww.FitCacheWarning, match=r"could not store a fitted Counting \(FileNotFoundError: .*kept, but not"):
        mach = train(ww.FitCache(tmp_path))
    monkeypatch.undo()
    assert mach.state == 1 and list(tmp_path.rglob("*.*")) == []


def test_entries_another_process_removes_meanwhile_are_skipped(tmp_path, monkeypatch):
    cache = ww.FitCache(location=tmp_path, max_bytes=10**6)
    train(cache)
    real_glob = type(tmp_path).glob
    gone = tmp_path / "ab" / "gone.pkl"  # listed, then removed before it is looked at
    monkeypatch.setattr(type(tmp_path), "glob", lambda self, pattern: [*real_glob(self, pattern), gone])
    assert len(cache) == 1 and cache.nbytes > 0
    train(cache, alpha=2.0)  # stores, then evicts by size: the missing file is no error
    assert len(cache) == 2


def encoded(cache, self_transform=True):
    """A CrossFitted encoder feeding a ridge, trained with ``cache``; returns the node the ridge trains on."""
    X, y = ww.source(X_DATA, name="X"), ww.source(Y_DATA, name="y")
    encoder = ww.machine(CrossFitted(), X, y)
    Z = encoder.transform(X if self_transform else ww.source(X_DATA.copy()))
    ww.machine(Ridge(), Z, y).predict(Z).fit(cache=cache)
    return Z


@pytest.mark.parametrize("where", ["memory", "disk"])
def test_a_fit_transform_output_is_kept_with_its_fit(tmp_path, where):
    first = encoded(ww.FitCache(tmp_path) if where == "disk" else (cache := ww.FitCache()))
    assert CrossFitted.calls == ["fit_transform"]
    second = encoded(ww.FitCache(tmp_path) if where == "disk" else cache)  # on disk: read by another cache object
    assert CrossFitted.calls == ["fit_transform"]  # neither fitted nor transformed again
    np.testing.assert_array_equal(second(), first())
    np.testing.assert_array_equal(second(), X_DATA - X_DATA.mean(axis=0) + 1000.0)


@pytest.mark.parametrize("bounded", [False, True])
def test_an_entry_stored_without_its_output_is_a_miss_for_a_machine_that_needs_it(bounded):
    cache = ww.FitCache(max_bytes=10**6 if bounded else None)
    encoded(cache, self_transform=False)  # trains by fit: no output stored
    encoded(cache)
    assert CrossFitted.calls == ["fit", "transform", "fit_transform"] and cache.hits == 0
    if bounded:
        assert cache.nbytes > X_DATA.nbytes  # the output counts
    encoded(cache, self_transform=False)  # the fit stored with an output serves a plain one too
    encoded(cache)
    assert CrossFitted.calls == ["fit", "transform", "fit_transform", "transform"]
    assert cache.hits == 4  # the encoder and the ridge, twice


@pytest.mark.parametrize("max_bytes", [None, 2000])
def test_processes_writing_and_reading_the_same_keys_at_once(tmp_path, max_bytes):
    """Three processes fit the same three ridges through one directory, at the same time (with a bound: evicting
    each other's entries too): every fit is right, nothing is read half-written, no warning."""
    import multiprocessing

    from _sharing import fit_through

    context = multiprocessing.get_context("forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")
    start, out = context.Barrier(3), context.Queue()
    rounds = 30
    workers = [
        context.Process(target=fit_through, args=(str(tmp_path), max_bytes, start, rounds, seed, out)) for seed in range(3)
    ]
    for worker in workers:
        worker.start()
    results = [out.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    for hits, misses, wrong, problems in results:
        assert problems == [] and wrong == 0 and hits + misses == rounds
    assert sum(hits for hits, *_ in results) > 0  # the processes did share fits
    assert list(tmp_path.rglob("*.tmp")) == []


def test_keys_of_models_with_arrays_callables_and_nested_estimators():
    """Equal content shares a fit; any difference, however deep in the parameters, is a miss."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    cache = ww.FitCache()
    labels = (Y_DATA > 0).astype(int)

    def key_of(model, X=X_DATA, y=Y_DATA):
        return ww.machine(model, *([X] if y is None else [X, y])).fit(cache=cache)._fit_key

    def double(x):
        return 2 * x

    def triple(x):
        return 3 * x

    weights = {0: 1.0, 1: 2.0}
    same = [
        (LogisticRegression(class_weight=weights), LogisticRegression(class_weight=dict(weights)), labels),
        (make_pipeline(FunctionTransformer(double), Ridge(alpha=2.0)), make_pipeline(FunctionTransformer(double), Ridge(alpha=2.0)), Y_DATA),
        (Counting(make_pipeline(StandardScaler(), Ridge())), Counting(make_pipeline(StandardScaler(), Ridge())), Y_DATA),
    ]
    for first, second, y in same:
        assert key_of(first, y=y) == key_of(second, y=y)
    distinct = [
        key_of(LogisticRegression(class_weight=weights), y=labels),
        key_of(LogisticRegression(class_weight={0: 1.0, 1: 2.5}), y=labels),
        key_of(make_pipeline(FunctionTransformer(double), Ridge(alpha=2.0))),
        key_of(make_pipeline(FunctionTransformer(triple), Ridge(alpha=2.0))),
        key_of(make_pipeline(FunctionTransformer(lambda x: 2 * x), Ridge(alpha=2.0))),
        key_of(make_pipeline(FunctionTransformer(lambda x: 3 * x), Ridge(alpha=2.0))),
        key_of(Counting(make_pipeline(StandardScaler(), Ridge()))),
        key_of(Counting(make_pipeline(StandardScaler(with_mean=False), Ridge()))),
        key_of(Counting(make_pipeline(StandardScaler(), Ridge(alpha=1)))),  # 1 is not 1.0
        key_of(FunctionTransformer(double, kw_args={"pad": np.arange(3.0)}), y=None),
        key_of(FunctionTransformer(double, kw_args={"pad": np.arange(3)}), y=None),  # another dtype
        key_of(FunctionTransformer(double, kw_args={"pad": np.arange(3.0).reshape(1, 3)}), y=None),  # another shape
    ]
    assert len(set(distinct)) == len(distinct)


def test_a_random_state_instance_is_never_a_stale_hit():
    """A machine trains a copy of its model (clone): its RandomState is not drawn from, so an untouched one gives
    the same fit (a hit is right); one drawn from since gives another (a miss)."""
    from sklearn.ensemble import RandomForestRegressor

    cache = ww.FitCache()
    state = np.random.RandomState(0)

    def forest():
        return ww.machine(RandomForestRegressor(n_estimators=3, max_features=1, random_state=state), X_DATA, Y_DATA)

    first = forest().fit(cache=cache)
    again = forest().fit(cache=cache)
    assert again.report()["reason"].endswith("(fit found in the cache)")
    uncached = forest().fit()  # what fitting it again would give
    np.testing.assert_array_equal(again.fitted_model.predict(X_DATA), uncached.fitted_model.predict(X_DATA))
    state.uniform()  # the state moved on: the next fit differs
    moved = forest().fit(cache=cache)
    assert "(fit found in the cache)" not in moved.report()["reason"] and cache.misses == 2
    assert not np.array_equal(moved.fitted_model.predict(X_DATA), first.fitted_model.predict(X_DATA))
    generator = np.random.default_rng(0)
    seeded = ww.machine(RandomForestRegressor(n_estimators=3, random_state=generator.integers(10**6)), X_DATA, Y_DATA)
    assert seeded.fit(cache=cache)._fit_key != moved._fit_key


def test_data_that_differs_only_in_dtype_labels_index_or_sparsity_never_collides():
    import pandas as pd
    import scipy.sparse as sp

    cache = ww.FitCache()
    frame = pd.DataFrame(np.round(X_DATA * 10).astype(np.int64), columns=["a", "b", "c"])
    variants = [
        frame,
        frame.astype(np.float64),  # same values, another dtype
        frame.astype(np.int32),
        frame.rename(columns={"c": "d"}),  # same values, other names
        frame[["b", "a", "c"]].set_axis(["a", "b", "c"], axis=1),  # columns swapped under the same names
        frame.set_axis(frame.index + 1),  # another index
        frame.set_axis(pd.Index(list(range(len(frame))))),  # the same labels, not a RangeIndex: a safe miss
        frame.to_numpy(),
        sp.csr_matrix(frame.to_numpy()),
        sp.csc_matrix(frame.to_numpy()),
        sp.csr_matrix(frame.to_numpy().astype(np.float64)),
    ]
    keys = [ww.machine(Ridge(), X, Y_DATA).fit(cache=cache)._fit_key for X in variants]
    assert len(set(keys)) == len(keys) and cache.hits == 0
    assert ww.machine(Ridge(), frame.copy(), Y_DATA).fit(cache=cache)._fit_key == keys[0]  # equal content: a hit
    assert ww.machine(Ridge(), sp.csr_matrix(frame.to_numpy()), Y_DATA).fit(cache=cache)._fit_key == keys[8]
    assert cache.hits == 2


@pytest.mark.parametrize("kind", ["array", "frame", "view"])
def test_an_in_memory_entry_does_not_change_when_the_callers_data_is_edited_in_place(kind):
    # KNeighborsRegressor keeps a reference to the data it trained on (scikit-learn's check does not copy a float
    # array). An in-memory cache kept that fitted object, so the caller editing its array in place afterwards
    # changed the entry: a later machine given data equal to the original found a model of the edited data.
    import pandas as pd
    from sklearn.neighbors import KNeighborsRegressor

    def data(values):
        if kind == "frame":
            return pd.DataFrame(values, columns=["a", "b", "c"])
        return values if kind == "array" else values[:, :]  # a view, as a selection node would give

    cache = ww.FitCache()
    mine = X_DATA.copy()
    ww.machine(KNeighborsRegressor(n_neighbors=3), data(mine), Y_DATA).fit(cache=cache)
    mine += 5.0  # edited in place (which the machine that trained is documented not to see)
    again = ww.machine(KNeighborsRegressor(n_neighbors=3), data(X_DATA.copy()), Y_DATA).fit(cache=cache)
    assert again.report()["reason"].endswith("(fit found in the cache)")
    query = data(X_DATA[:7] + 0.1)
    expected = KNeighborsRegressor(n_neighbors=3).fit(data(X_DATA.copy()), Y_DATA).predict(query)
    np.testing.assert_allclose(again.fitted_model.predict(query), expected)


@pytest.mark.parametrize("first_freq, then_freq", [("D", None), (None, "D")])
def test_data_whose_index_differs_only_in_its_freq_is_a_miss(first_freq, then_freq):
    # Equal DatetimeIndexes with freq="D" and freq=None had one key: the second machine got the first one's
    # fit_transform output from the cache, whose index carried the other freq (scikit-learn's carries the input's).
    import pandas as pd
    from sklearn.decomposition import PCA

    days = pd.date_range("2020-01-01", periods=len(X_DATA), freq="D")
    cache = ww.FitCache()

    def output(freq):
        X = ww.source(pd.DataFrame(X_DATA, index=pd.DatetimeIndex(days, freq=freq)))
        Z = ww.machine(PCA(2).set_output(transform="pandas"), X).transform(X)
        Z.fit(cache=cache)
        return Z()

    assert output(first_freq).index.freq == first_freq
    assert output(then_freq).index.freq == then_freq and cache.hits == 0
    assert output(then_freq).index.freq == then_freq and cache.hits == 1  # the same freq again: a hit


def test_a_fit_on_another_memory_layout_is_a_miss_and_equals_a_fit_now():
    # StandardScaler and Ridge fitted on a Fortran-ordered array differ in the last bit from their fits on the
    # C-ordered copy; tokens ignored the layout, so the cache served the fit of the other layout.
    from sklearn.pipeline import make_pipeline

    X = np.random.default_rng(3).normal(size=(400, 30))
    y = X @ np.linspace(-1.0, 1.0, 30)
    cache = ww.FitCache()
    make = lambda: make_pipeline(StandardScaler(), Ridge())  # noqa: E731
    ww.machine(make(), X, y).fit(cache=cache)
    fortran = ww.machine(make(), np.asfortranarray(X), y).fit(cache=cache)
    assert cache.hits == 0
    expected = make().fit(np.asfortranarray(X), y)
    assert fortran.fitted_model[0].mean_.tobytes() == expected[0].mean_.tobytes()
    assert fortran.fitted_model[-1].coef_.tobytes() == expected[-1].coef_.tobytes()
    assert ww.machine(make(), np.asfortranarray(X.copy()), y).fit(cache=cache).fitted_model is fortran.fitted_model


def test_a_function_defined_again_under_its_name_is_a_miss():
    # A notebook cell run again after an edit defines a function of the same module and name: the cache handed the
    # new FunctionTransformer the fitted copy of the old one, which computes with the old function.
    first, second = {}, {}
    exec("def scale(X):\n    return X * 2.0\n", first)
    exec("def scale(X):\n    return X * 3.0\n", second)
    cache = ww.FitCache()
    ww.machine(FunctionTransformer(first["scale"]), X_DATA).fit(cache=cache)
    again = ww.machine(FunctionTransformer(second["scale"]), X_DATA).fit(cache=cache)
    assert cache.hits == 0
    np.testing.assert_array_equal(again.fitted_model.transform(X_DATA), X_DATA * 3.0)
    same = {}
    exec("def scale(X):\n    return X * 3.0\n", same)  # the same code again: a hit
    assert ww.machine(FunctionTransformer(same["scale"]), X_DATA).fit(cache=cache).fitted_model is again.fitted_model


def nested_neighbours():
    """A KNeighborsTransformer (it keeps the array it trained on) in a ColumnTransformer (a slice of columns: a view
    of the caller's array) in a Pipeline: the data is five levels into the fitted model."""
    from sklearn.compose import ColumnTransformer
    from sklearn.neighbors import KNeighborsTransformer
    from sklearn.pipeline import Pipeline

    knn = KNeighborsTransformer(n_neighbors=3, mode="distance")
    return Pipeline([("ct", ColumnTransformer([("knn", knn, slice(0, 3))])), ("ridge", Ridge())])


def neighbours_composite():
    """A composite used as a model: its fitted k-neighbours model is held by a machine of its network."""
    from sklearn.neighbors import KNeighborsRegressor

    return ww.Pipeline([("knn", KNeighborsRegressor(n_neighbors=3))])


@pytest.mark.parametrize("make", [nested_neighbours, neighbours_composite])
def test_an_in_memory_entry_stays_as_trained_however_deep_its_model_keeps_the_callers_data(make):
    # holds_values looked four levels into a fitted model, and not into a composite's machines: a Pipeline whose
    # ColumnTransformer holds a KNeighborsTransformer, or a ww.Pipeline of k-neighbours, kept the caller's array
    # uncopied in the entry, and a later machine given data equal to the original predicted with the edited data.
    cache = ww.FitCache()
    mine = X_DATA.copy()
    ww.machine(make(), mine, Y_DATA).fit(cache=cache)
    mine += 5.0  # edited in place afterwards
    again = ww.machine(make(), X_DATA.copy(), Y_DATA).fit(cache=cache)
    assert again.report()["reason"].endswith("(fit found in the cache)")
    query = X_DATA[:7] + 0.1
    expected = make().fit(X_DATA.copy(), Y_DATA).predict(query)
    np.testing.assert_array_equal(again.fitted_model.predict(query), expected)


def test_an_in_memory_entry_of_a_model_that_keeps_the_list_it_trained_on_stays_as_trained():
    # A model trained on a list (of texts, say) that keeps it: the list was not looked for (only arrays were), so
    # the caller appending to it afterwards changed the entry.
    from sklearn.base import BaseEstimator

    class KeepsTexts(BaseEstimator):
        def fit(self, X, y=None):
            self.texts_ = X
            return self

        def predict(self, X):
            return np.full(len(X), len(self.texts_))

    cache = ww.FitCache()
    texts = ["a", "b", "c"]
    ww.machine(KeepsTexts(), texts).fit(cache=cache)
    texts.append("d")
    again = ww.machine(KeepsTexts(), ["a", "b", "c"]).fit(cache=cache)
    assert again.report()["reason"].endswith("(fit found in the cache)")
    assert again.fitted_model.texts_ == ["a", "b", "c"]


def test_an_in_memory_entry_of_a_model_that_keeps_no_reference_to_its_data_is_not_copied():
    cache = ww.FitCache()
    first = ww.machine(Ridge(), X_DATA, Y_DATA).fit(cache=cache)
    assert ww.machine(Ridge(), X_DATA.copy(), Y_DATA).fit(cache=cache).fitted_model is first.fitted_model


def test_a_kept_fit_transform_output_that_is_the_callers_data_is_kept_as_a_copy():
    # A Pipeline of "passthrough" trains by its own fit_transform, which gives its input back: the entry kept the
    # caller's array as the output a later machine's next step would train on.
    from sklearn.pipeline import Pipeline

    cache = ww.FitCache()
    mine = X_DATA.copy()
    X = ww.source(mine)
    ww.machine(Pipeline([("p", "passthrough")]), X).transform(X).fit(cache=cache)
    mine += 5.0
    X = ww.source(X_DATA.copy())
    again = ww.machine(Pipeline([("p", "passthrough")]), X)
    out = again.transform(X).fit(cache=cache)
    assert again.report()["reason"].endswith("(fit found in the cache)")
    np.testing.assert_array_equal(out(), X_DATA)


class _KeepsItsData(Ridge):
    """A Ridge that keeps a reference to its training data and refuses to be copied."""

    def fit(self, X, y):
        self.X_ = X
        return super().fit(X, y)

    def __deepcopy__(self, memo):
        raise TypeError("no copies of this model")


def test_a_fit_that_keeps_its_data_and_cannot_be_copied_is_kept_uncached_with_a_warning():
    cache = ww.FitCache()
    mine = X_DATA.copy()
    with pytest.warns(ww.FitCacheWarning, match=r"keeps its training data, and copying it .* raised TypeError: no "
                      r"copies of this model\. The fit is kept, but not cached"):
        mach = ww.machine(_KeepsItsData(), mine, Y_DATA).fit(cache=cache)
    assert mach.fitted_model.X_ is mine and len(cache) == 0 and mach.report()["action"] == "trained"


def _constant_class(value):
    """A model class named as every other this makes (as a class defined again in a notebook): tokens, which
    name classes by module and qualname, cannot tell them apart."""
    from sklearn.base import BaseEstimator, RegressorMixin

    class Constant(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            self.value_ = value
            return self

        def predict(self, X):
            return np.full(len(X), self.value_)

    return Constant


def test_a_fit_of_a_class_defined_again_under_the_same_name_is_never_handed_out():
    # An in-memory cache handed the fit of the old class (the old fit method's result) to a machine of the new
    # one, even to the machine whose condition 5 had just seen the type change. (A disk cache unpickles an entry
    # as the class its name gives now, and checks the digest of the class's source file first.)
    cache = ww.FitCache()
    old, new = _constant_class(1.0), _constant_class(2.0)
    mach = ww.machine(old(), X_DATA, Y_DATA)
    mach.fit(cache=cache)
    mach.model = new()
    mach.fit(cache=cache)
    assert mach.report()["reason"].startswith("condition 5")
    assert type(mach.fitted_model) is new and mach.fitted_model.value_ == 2.0
    again = ww.machine(new(), X_DATA, Y_DATA).fit(cache=cache)  # the new class's fit replaced the entry
    assert again.report()["reason"].endswith("(fit found in the cache)") and type(again.fitted_model) is new


def in_a_fresh_process(tmp_path, body):
    """Run ``body`` (lines of Python, with ``pickled`` the path of tmp_path/network.pkl) in a new interpreter;
    return what it printed last, as JSON."""
    import json

    script = (
        "import json, pickle, sys, warnings\n"
        "warnings.simplefilter('error')\n"
        f"sys.path.insert(0, {str(pathlib.Path(__file__).parents[1])!r})\n"
        "import wirework as ww\n"
        "from _counting import Counting\n"
        "from _probes import CrossFitted\n"
        "from _sharing import actions, resumable\n"
        f"pickled = {str(tmp_path / 'network.pkl')!r}\n" + body
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_network_pickled_with_a_disk_cache_and_fitted_again_in_a_fresh_process_trains_nothing(tmp_path):
    """An encoder that trains by fit_transform loses its output when pickled (condition 7): it retrained, and so
    did everything downstream (a fit from the cache, but a new state). Its own training in the cache, with the
    output, gives the output back: nothing trains."""
    from _sharing import actions, resumable

    cache = ww.FitCache(tmp_path / "fits")
    root = resumable()
    root.fit(cache=cache)
    expected = root().tolist()
    with open(tmp_path / "network.pkl", "wb") as out:
        pickle.dump((root, cache), out)
    CrossFitted.calls.clear()
    Counting.events.clear()
    found = in_a_fresh_process(tmp_path, (
        "root, cache = pickle.load(open(pickled, 'rb'))\n"
        "root.fit(cache=cache)\n"
        "fitted = [tag for tag, what in Counting.events if what == 'fit']\n"
        "print(json.dumps([actions(root), fitted, CrossFitted.calls, root().tolist(), cache.hits]))\n"
    ))
    assert found == [dict.fromkeys(["encoder", "first", "middle", "last"], "skipped"), [], [], expected, 1]
    memory = ww.FitCache()  # in this process, an in-memory cache holding the training does the same
    fresh = resumable()
    fresh.fit(cache=memory)
    again = pickle.loads(pickle.dumps(fresh))
    again.fit(cache=memory)
    assert set(actions(again).values()) == {"skipped"} and again().tolist() == expected


def test_a_pass_stopped_by_a_failure_resumes_from_the_failed_machine_in_a_fresh_process(tmp_path):
    """What trained before the failure is kept: in the pickled network, and in the disk cache for a network
    built again from scratch."""
    from _sharing import resumable

    import shutil

    cache = ww.FitCache(tmp_path / "fits")
    root = resumable(fail=True)
    with pytest.raises(ww.MachineFitError, match=r"Machine 'middle' \(Fragile\) failed to train"):
        root.fit(cache=cache)
    with open(tmp_path / "network.pkl", "wb") as out:
        pickle.dump((root, cache), out)
    shutil.copytree(tmp_path / "fits", tmp_path / "fits at the failure")
    pickled = in_a_fresh_process(tmp_path, (
        "root, cache = pickle.load(open(pickled, 'rb'))\n"
        "next(m for m in root.machines() if m.name == 'middle').model.fail = False\n"
        "root.fit(cache=cache)\n"
        "print(json.dumps([actions(root), [tag for tag, what in Counting.events if what == 'fit'], CrossFitted.calls]))\n"
    ))
    assert pickled == [{"encoder": "skipped", "first": "skipped", "middle": "trained", "last": "trained"}, ["last"], []]
    rebuilt = in_a_fresh_process(tmp_path, (
        f"cache = ww.FitCache({str(tmp_path / 'fits at the failure')!r})\n"
        "root = resumable(fail=False)\n"
        "root.fit(cache=cache)\n"
        "print(json.dumps([actions(root), [tag for tag, what in Counting.events if what == 'fit'], CrossFitted.calls]))\n"
    ))
    assert rebuilt[1:] == [["last"], []]  # the encoder and first from the cache: neither fitted again
    assert rebuilt[0]["middle"] == "trained" and "(fit found in the cache)" not in rebuilt[0]["middle"]
