"""Settings: global, per-thread blocks, nesting, and restoring after errors."""

import threading

import pytest

import wirework as ww
from wirework.config import setting


def test_blocks_nest_restore_and_stay_in_their_thread():
    outer, inner = ww.FitCache(), ww.FitCache()
    seen_elsewhere = []
    assert setting("cache") is None
    with ww.config_context(cache=outer):
        assert setting("cache") is outer
        with ww.config_context(cache=inner):
            assert ww.get_config()["cache"] is inner
            worker = threading.Thread(target=lambda: seen_elsewhere.append(setting("cache")))
            worker.start()
            worker.join()
        assert setting("cache") is outer
        ww.set_config(cache=inner)  # inside a block: changes the block's settings only
        assert setting("cache") is inner
    assert setting("cache") is None and seen_elsewhere == [None]


def test_a_block_left_by_an_error_restores_the_settings():
    with pytest.raises(KeyError):
        with ww.config_context(cache=ww.FitCache()):
            raise KeyError("boom")
    assert setting("cache") is None


def test_global_settings_reach_every_thread():
    cache, seen = ww.FitCache(), []
    ww.set_config(cache=cache)
    try:
        worker = threading.Thread(target=lambda: seen.append(setting("cache")))
        worker.start()
        worker.join()
    finally:
        ww.set_config(cache=None)
    assert seen == [cache]
