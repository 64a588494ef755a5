"""Numba's disk cache under faults (vm/cache_guard.py): broken cache files and a read-only,
pre-filled NUMBA_CACHE_DIR.

Every run is a subprocess on a private copy of the package whose __pycache__ folders, HOME
and XDG_CACHE_HOME are blocked by plain files, so Numba can use no cache location but the
NUMBA_CACHE_DIR given here (and nothing touches the developer's caches).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.slow      # subprocesses (`-m 'not slow'` skips them)

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

BACKWARD = """
import json
import jitgrad as paddle
from jitgrad.vm import interpreter
x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
(paddle.exp(x) * x).sum().backward()
s = interpreter.run.stats
print(json.dumps({"grad": x.grad.tolist(), "hits": sum(s.cache_hits.values()),
                  "misses": sum(s.cache_misses.values())}))
"""

RELU = """
import json, os, tempfile
import numpy as np
from jitgrad.vm import forward
x = np.array([-2.0, -0.0, 0.5, np.nan, 3.0])
out = np.empty_like(x)
forward.relu(x, out)
s = forward.relu.stats
try:                                  # can this process write into the cache directory?
    tempfile.TemporaryFile(dir=os.environ["NUMBA_CACHE_DIR"]).close()
    writable = True
except OSError:
    writable = False
print(json.dumps({"out": repr(out.tolist()), "hits": sum(s.cache_hits.values()),
                  "misses": sum(s.cache_misses.values()), "writable": writable}))
"""
RELU_OUT = repr([0.0, 0.0, 0.5, float("nan"), 3.0])
GRAD = (np.exp([1.0, 2.0]) * (1 + np.array([1.0, 2.0]))).tolist()


def _site(root):
    """A copy of the package with its __pycache__ folders blocked; returns its sys.path dir."""
    site = root / "site"
    shutil.copytree(os.path.join(SRC, "jitgrad"), site / "jitgrad",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for folder, _, _ in os.walk(site / "jitgrad"):
        if "__init__.py" in os.listdir(folder):
            with open(os.path.join(folder, "__pycache__"), "w") as f:
                f.write("blocked")
    return site


def _env(site, cache_dir, root):
    blocker = root / "blocker"
    blocker.write_text("blocked")
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1",
           "NUMBA_CACHE_DIR": str(cache_dir), "HOME": str(blocker / "home"),
           "XDG_CACHE_HOME": str(blocker / "xdg"), "JITGRAD_VM": "numba",
           "JITGRAD_TIER": "0"}          # compile on the first backward (vm/__init__.py tiers)
    env.pop("JITGRAD_NO_CACHE", None)
    return env


def _run(script, env, prefix=(), cwd=None):
    """(parsed JSON line, stderr) of the script in a subprocess; fails on a non-zero exit."""
    run = subprocess.run([*prefix, sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=600, cwd=cwd)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1]), run.stderr


def _listing(folder):
    """Every file under folder with its size and mtime."""
    out = {}
    for d, _, files in os.walk(folder):
        for n in files:
            st = os.stat(os.path.join(d, n))
            out[os.path.relpath(os.path.join(d, n), folder)] = (st.st_size, st.st_mtime_ns)
    return out


def _file(cache_dir, pattern):
    (path,) = [os.path.join(d, n) for d, _, files in os.walk(cache_dir) for n in files
               if n.startswith(pattern[0]) and n.endswith(pattern[1])]
    return path


def _damage(path, how):
    data = open(path, "rb").read()
    rng = random.Random(0)
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "empty":
        data = b""
    elif how == "garbage":
        data = bytes(rng.randrange(256) for _ in range(len(data)))
    elif how == "damaged inside":     # pickle framing intact: LLVM bitcode, code, or abort
        mid = len(data) // 2
        data = data[:mid] + bytes(rng.randrange(256) for _ in range(64)) + data[mid + 64:]
    with open(path, "wb") as f:
        f.write(data)


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """(site, a cache dir filled by one backward and one forward.relu call)."""
    root = tmp_path_factory.mktemp("filled")
    site = _site(root)
    cache = root / "numba"
    env = _env(site, cache, root)
    first, err = _run(BACKWARD, env, cwd=root)
    assert first["grad"] == pytest.approx(GRAD, rel=1e-6) and first["misses"] == 1, err
    relu, _ = _run(RELU, env, cwd=root)
    assert relu["out"] == RELU_OUT and relu["misses"] == 1
    return site, cache


def _copy_cache(filled, tmp_path):
    site, cache = filled
    mine = tmp_path / "numba"
    shutil.copytree(cache, mine)
    return site, mine


FAULTS = [("index", "truncated"), ("index", "garbage"), ("index", "empty"),
          ("data", "truncated"), ("data", "garbage"), ("data", "empty"),
          ("data", "damaged inside")]
SUFFIX = {"index": ".nbi", "data": ".nbc"}


@pytest.mark.parametrize("which, how", [("index", "garbage"), ("data", "truncated")])
def test_a_broken_cache_file_of_the_interpreter_costs_one_recompile(filled, tmp_path,
                                                                     which, how):
    site, cache = _copy_cache(filled, tmp_path)
    env = _env(site, cache, tmp_path)
    _damage(_file(cache, ("interpreter.run-", SUFFIX[which])), how)
    others = {k: v for k, v in _listing(cache).items() if "interpreter.run-" not in k}
    out, err = _run(BACKWARD, env, cwd=tmp_path)
    assert out["grad"] == pytest.approx(GRAD, rel=1e-6)
    assert out["misses"] == 1 and out["hits"] == 0
    assert err.count("RuntimeWarning: jitgrad: could not load interpreter.run") == 1, err
    assert "recompiling" in err
    after = _listing(cache)
    assert all(after.get(k) == v for k, v in others.items())      # only its own file went
    again, err = _run(BACKWARD, env, cwd=tmp_path)                 # and the cache is whole
    assert again == {**out, "hits": 1, "misses": 0}
    assert "RuntimeWarning" not in err and "compiling" not in err


@pytest.mark.parametrize("which, how", FAULTS)
def test_every_kind_of_broken_file_is_discarded_and_rewritten(filled, tmp_path, which, how):
    site, cache = _copy_cache(filled, tmp_path)
    env = _env(site, cache, tmp_path)
    _damage(_file(cache, ("forward.relu-", SUFFIX[which])), how)
    out, err = _run(RELU, env, cwd=tmp_path)
    assert out["out"] == RELU_OUT and out["misses"] == 1
    assert err.count("RuntimeWarning: jitgrad: could not load forward.relu") == 1, err
    again, err = _run(RELU, env, cwd=tmp_path)
    assert again["out"] == RELU_OUT and (again["hits"], again["misses"]) == (1, 0)
    assert "RuntimeWarning" not in err


def _read_only_prefix():
    """argv prefix under which the child cannot write where permission bits forbid it; None
    if that cannot be arranged (root without setpriv: root ignores permission bits)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]


@pytest.fixture
def read_only(tmp_path):
    """make(folder): chmod -R a-w, undone at teardown so the tmp dir can be removed."""
    made = []

    def make(folder):
        for d, _, files in os.walk(folder):
            for n in files:
                p = os.path.join(d, n)
                os.chmod(p, os.stat(p).st_mode & ~0o222)
        for d, _, _ in sorted(os.walk(folder), key=lambda w: -len(w[0])):
            os.chmod(d, os.stat(d).st_mode & ~0o222)
        made.append(folder)

    yield make
    for folder in made:
        for d, _, files in os.walk(folder):
            os.chmod(d, os.stat(d).st_mode | stat.S_IWUSR)
            for n in files:
                p = os.path.join(d, n)
                os.chmod(p, os.stat(p).st_mode | stat.S_IWUSR)


def test_a_read_only_prefilled_cache_is_loaded_not_recompiled(filled, tmp_path, read_only):
    site, cache = _copy_cache(filled, tmp_path)
    env = _env(site, cache, tmp_path)
    prefix = _read_only_prefix()
    read_only(cache)
    before = _listing(cache)
    out, err = _run(BACKWARD, env, prefix=prefix or (), cwd=tmp_path)
    assert out["grad"] == pytest.approx(GRAD, rel=1e-6)
    assert (out["hits"], out["misses"]) == (1, 0), err              # loaded, not compiled
    assert "RuntimeWarning" not in err and "compiling" not in err
    assert _listing(cache) == before                               # nothing written
    relu, err = _run(RELU, env, prefix=prefix or (), cwd=tmp_path)
    assert relu["out"] == RELU_OUT and (relu["hits"], relu["misses"]) == (1, 0)
    if prefix is not None:
        assert not relu["writable"]        # the directory really was read-only to the child


@pytest.mark.parametrize("state", ["missing", "stale"])
def test_a_read_only_cache_without_our_entries_compiles_in_memory(tmp_path, read_only, state):
    prefix = _read_only_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv: permission bits do not bind")
    site = _site(tmp_path)
    cache = tmp_path / "numba"
    env = _env(site, cache, tmp_path)
    if state == "missing":            # a read-only cache filled for other code
        (cache / "elsewhere").mkdir(parents=True)
        (cache / "elsewhere" / "other.f-1.py311.nbi").write_bytes(b"not ours")
    else:                             # filled, then jitgrad's sources changed
        _run(RELU, env, cwd=tmp_path)
        with open(site / "jitgrad" / "vm" / "forward.py", "a") as f:
            f.write("\n# edited after the cache was filled\n")
    read_only(cache)
    before = _listing(cache)
    out, err = _run(RELU, env, prefix=prefix, cwd=tmp_path)
    assert out["out"] == RELU_OUT and (out["hits"], out["misses"]) == (0, 1)
    assert not out["writable"]
    assert err.count("RuntimeWarning: jitgrad: the read-only Numba cache") == 1, err
    assert str(cache) in err and "compiling in memory" in err
    assert _listing(cache) == before


def test_no_cache_env_writes_nothing(tmp_path):
    site = _site(tmp_path)
    cache = tmp_path / "numba"
    env = {**_env(site, cache, tmp_path), "JITGRAD_NO_CACHE": "1"}
    out, err = _run(RELU, env, cwd=tmp_path)
    assert out["out"] == RELU_OUT and (out["hits"], out["misses"]) == (0, 1)
    assert not cache.exists() or _listing(cache) == {}
    assert "RuntimeWarning" not in err


SAVE_FAILS = """
import os
from jitgrad.vm import forward
os.chmod(forward.relu.stats.cache_path, 0o555)     # writable at import, not when saving
""" + RELU


def test_a_cache_that_cannot_be_saved_to_is_a_warning_not_an_error(tmp_path):
    prefix = _read_only_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv: permission bits do not bind")
    site = _site(tmp_path)
    cache = tmp_path / "numba"
    env = _env(site, cache, tmp_path)
    try:
        out, err = _run(SAVE_FAILS, env, prefix=prefix, cwd=tmp_path)
    finally:
        for d, _, _ in os.walk(cache):
            os.chmod(d, 0o755)
    assert out["out"] == RELU_OUT and (out["hits"], out["misses"]) == (0, 1)
    assert err.count("RuntimeWarning: jitgrad: could not save to Numba's cache") == 1, err
