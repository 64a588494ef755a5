"""Test the source tree this file sits in, even when another checkout is pip-installed."""

import os
import sys

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)
# and so do the Python subprocesses tests start (`python -c "import jitgrad ..."`)
os.environ["PYTHONPATH"] = os.pathsep.join(
    [SRC] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != SRC])


@pytest.fixture
def fresh_cache(monkeypatch):
    """An empty program cache (counters zeroed) with caching on; emptied again afterwards,
    and its size bound restored if the test changed it (set_cache_limit)."""
    import jitgrad
    from jitgrad.core import config
    monkeypatch.setattr(config.SETTINGS, "program_cache", True)
    limit = jitgrad.cache_info().max_bytes
    jitgrad.cache_clear()
    yield
    jitgrad.set_cache_limit(limit)
    jitgrad.cache_clear()
