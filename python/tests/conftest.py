"""Fixtures of the Python package's tests: a session with TPC-H at a small
scale, and pyarrow tables."""

import pytest

import tenon


@pytest.fixture(scope="session")
def tpch():
    """A session with the TPC-H tables at scale 0.01 (shared: read-only)."""
    session = tenon.Session(threads=2)
    session.register_tpch(0.01)
    return session
