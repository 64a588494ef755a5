"""Numba's disk cache: jitgrad keeps working (with a warning) when it cannot write one."""

import os
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow      # subprocesses (`-m 'not slow'` skips them)

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

SCRIPT = """
import jitgrad as paddle
x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
(paddle.exp(x) * x).sum().backward()
print(x.grad.tolist())
"""


def test_unwritable_cache_locations_fall_back_with_a_warning(tmp_path):
    # Root ignores permission bits, so block every cache location Numba tries with a plain
    # file where a directory would have to be: the package's __pycache__ folders,
    # NUMBA_CACHE_DIR and the user-wide cache under HOME / XDG_CACHE_HOME.
    pkg = tmp_path / "site"
    shutil.copytree(os.path.join(SRC, "jitgrad"), pkg / "jitgrad",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for folder in (pkg / "jitgrad", pkg / "jitgrad" / "vm", pkg / "jitgrad" / "ops"):
        (folder / "__pycache__").write_text("blocked")
    blocker = tmp_path / "blocker"
    blocker.write_text("blocked")
    env = {**os.environ, "PYTHONPATH": str(pkg), "PYTHONDONTWRITEBYTECODE": "1",
           "NUMBA_CACHE_DIR": str(blocker / "numba"), "HOME": str(blocker / "home"),
           "XDG_CACHE_HOME": str(blocker / "xdg"), "JITGRAD_VM": "numba",
           "JITGRAD_TIER": "0"}   # compile on the first backward (vm/__init__.py tiers)
    env.pop("JITGRAD_NO_CACHE", None)
    run = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[5.436563491821289, 22.16716766357422]"
    assert "cannot write Numba's compile cache" in run.stderr
