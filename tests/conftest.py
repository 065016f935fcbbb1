import pytest
from _counting import Counting, Toy, WeightedCounting
from _probes import CrossFitted


@pytest.fixture(autouse=True)
def _clear_logs():
    Counting.events.clear()
    Toy.events.clear()
    WeightedCounting.weights.clear()
    CrossFitted.calls.clear()
    yield
