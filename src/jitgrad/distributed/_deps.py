"""The one place jitgrad.distributed imports dask.distributed: on first use, never at
`import jitgrad`, so the core library keeps numpy/numba as its only dependencies."""

from __future__ import annotations

from types import ModuleType

INSTALL = 'pip install "jitgrad[distributed]"'


def require() -> ModuleType:
    """dask.distributed, or an ImportError that says how to install it."""
    try:
        import distributed
    except ImportError as e:
        raise ImportError(f"jitgrad.distributed runs on Dask, which is not installed: "
                          f"{INSTALL} (or pip install \"dask[distributed]\")") from e
    return distributed


def worker_address() -> str:
    """The address of the Dask worker running the current task."""
    return require().get_worker().address
