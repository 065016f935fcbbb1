import pytest


@pytest.fixture(scope="session")
def dask_client():
    """A local Dask cluster of 2 worker processes, started for the tests and shut down after."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40  # any free port: 8787 may be taken
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
