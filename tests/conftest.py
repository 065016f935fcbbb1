import pytest
from _counting import Counting, Toy, WeightedCounting


@pytest.fixture(autouse=True)
def _clear_logs():
    Counting.events.clear()
    Toy.events.clear()
    WeightedCounting.weights.clear()
    yield
