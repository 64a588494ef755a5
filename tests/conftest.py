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
def fresh_structural_cache(monkeypatch):
    """An empty structural cache with the cache on, emptied again afterwards."""
    from jitgrad import structural
    monkeypatch.delenv("JITGRAD_NO_STRUCTURAL", raising=False)
    structural.clear()
    yield
    structural.clear()
