"""jitgrad.vm.blas.gemm, called from @njit code on slices of one arena (as the VM does)."""
import itertools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

from jitgrad.vm import blas
from jitgrad.vm.blas import gemm

FLAGS = dict(error_model="numpy", fastmath={"reassoc", "contract", "nsz"}, boundscheck=False)
TOL = {np.float32: dict(rtol=2e-5, atol=2e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}
COMBOS = list(itertools.product([False, True], repeat=3))  # (ta, tb, acc)


@njit(**FLAGS)
def call_gemm(arena, oa, ob, oc, m, n, k, ta, tb, acc):
    gemm(arena[oa:oa + m * k], arena[ob:ob + k * n], arena[oc:oc + m * n], m, n, k, ta, tb, acc)


@njit(**FLAGS)
def call_loop(arena, oa, ob, oc, m, n, k, ta, tb, acc):
    blas._loop_gemm(arena[oa:oa + m * k], arena[ob:ob + k * n], arena[oc:oc + m * n],
                    m, n, k, ta, tb, acc)


def layout(m, n, k, gap=3):
    """Offsets of A, B, C in an arena, each after a gap (so all offsets are nonzero)."""
    oa = gap
    ob = oa + m * k + gap
    oc = ob + k * n + gap
    return oa, ob, oc, oc + m * n + gap


def check(fn, dtype, m, n, k, ta, tb, acc, seed=0):
    rng = np.random.default_rng(seed)
    oa, ob, oc, size = layout(m, n, k)
    arena = rng.standard_normal(size).astype(dtype)
    before = arena.copy()
    a = arena[oa:oa + m * k].astype(np.float64)
    b = arena[ob:ob + k * n].astype(np.float64)
    a = a.reshape(k, m).T if ta else a.reshape(m, k)
    b = b.reshape(n, k).T if tb else b.reshape(k, n)
    want = a @ b + (arena[oc:oc + m * n].reshape(m, n) if acc else 0)
    fn(arena, oa, ob, oc, m, n, k, ta, tb, acc)
    got = arena[oc:oc + m * n].reshape(m, n)
    scale = max(1.0, float(np.sqrt(k)))  # float32 dot products grow with k
    tol = {key: v * scale for key, v in TOL[dtype].items()}
    np.testing.assert_allclose(got, want, **tol, err_msg=str((m, n, k, ta, tb, acc)))
    outside = np.ones(size, bool)
    outside[oc:oc + m * n] = False
    np.testing.assert_array_equal(arena[outside], before[outside])  # only C is written


SHAPES = [(1, 1, 1), (1, 1, 9), (1, 6, 5), (6, 1, 5), (3, 5, 7), (5, 4, 1), (64, 64, 64),
          (33, 17, 70)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("ta,tb,acc", COMBOS)
def test_gemm_matches_numpy_on_arena_slices(dtype, m, n, k, ta, tb, acc):
    check(call_gemm, dtype, m, n, k, ta, tb, acc)


@pytest.mark.parametrize("m,n,k", [(3, 5, 7), (6, 2, 9), (2, 9, 3), (9, 9, 2), (4, 4, 4), (1, 2, 9), (20, 30, 40)])
@pytest.mark.parametrize("ta,tb,acc", COMBOS)
def test_loop_kernel_matches_numpy_on_matrices(m, n, k, ta, tb, acc):
    """The fallback kernel (used for all shapes when numpy's BLAS is missing)."""
    check(call_loop, np.float32, m, n, k, ta, tb, acc)


@pytest.mark.parametrize("m,n", [(1, 1), (4, 5)])
def test_assign_overwrites_nan_in_c(m, n):
    k = 3
    oa, ob, oc, size = layout(m, n, k)
    arena = np.ones(size, np.float32)
    arena[oc:oc + m * n] = np.nan
    call_gemm(arena, oa, ob, oc, m, n, k, False, False, False)
    np.testing.assert_array_equal(arena[oc:oc + m * n], np.full(m * n, 3, np.float32))


@pytest.mark.parametrize("acc", [False, True])
def test_k_zero_gives_zero_or_leaves_c_unchanged(acc):
    m, n = 3, 4
    oa, ob, oc, size = layout(m, n, 0)
    arena = np.arange(size, dtype=np.float32) + 1
    before = arena.copy()
    call_gemm(arena, oa, ob, oc, m, n, 0, False, False, acc)
    expect = before.copy()
    if not acc:
        expect[oc:oc + m * n] = 0
    np.testing.assert_array_equal(arena, expect)


@pytest.mark.parametrize("m,n", [(0, 5), (5, 0), (0, 0)])
def test_empty_output_is_a_noop(m, n):
    arena = np.arange(40, dtype=np.float32)
    call_gemm(arena, 1, 10, 20, m, n, 3, False, False, False)
    np.testing.assert_array_equal(arena, np.arange(40, dtype=np.float32))


def test_integer_flags_work_like_bools():
    m, n, k = 4, 3, 5
    oa, ob, oc, size = layout(m, n, k)
    arena = np.random.default_rng(1).standard_normal(size).astype(np.float32)
    ref = arena.copy()
    call_gemm(ref, oa, ob, oc, m, n, k, True, False, True)
    call_gemm(arena, oa, ob, oc, m, n, k, 1, 0, 1)
    np.testing.assert_array_equal(arena, ref)


def test_too_small_operand_raises_value_error():
    a = np.ones(5, np.float32)
    with pytest.raises(ValueError):
        call_gemm(a, 0, 0, 0, 2, 2, 3, False, False, False)  # needs 6 elements per operand


def test_blas_name_and_set_num_threads_agree():
    assert isinstance(blas.BLAS_NAME, str) and blas.BLAS_NAME
    # The thread setter is only bound together with numpy's BLAS.
    assert (blas._set_threads is None) == (blas.BLAS_NAME == "fallback")


CALLER = '''
import sys, numpy as np
from numba import njit
from jitgrad.vm.blas import gemm, set_num_threads, BLAS_NAME

@njit(cache=True, error_model='numpy', fastmath={'reassoc', 'contract', 'nsz'}, boundscheck=False)
def mm(arena, m, n, k, ta, tb, acc):
    gemm(arena[1:1 + m * k], arena[1 + m * k:1 + m * k + k * n], arena[-m * n:], m, n, k, ta, tb, acc)

if __name__ == "__main__":
    m, n, k = 33, 17, 9
    ar = np.random.default_rng(0).standard_normal(1 + m * k + k * n + m * n).astype(np.float32)
    a, b = ar[1:1 + m * k].reshape(m, k), ar[1 + m * k:1 + m * k + k * n].reshape(k, n)
    want = a.astype(np.float64) @ b
    mm(ar, m, n, k, False, False, False)
    assert np.allclose(ar[-m * n:].reshape(m, n), want, rtol=1e-4, atol=1e-4)
    assert set_num_threads(1) == (BLAS_NAME != "fallback")
    print(BLAS_NAME == "fallback", sum(mm.stats.cache_hits.values()), sum(mm.stats.cache_misses.values()))
'''


@pytest.mark.slow
def test_cached_caller_reloads_in_new_process_also_without_blas(tmp_path):
    """cache=True callers: process 2 loads from cache; a cache written with BLAS bound
    still runs (via the trampoline) in a process where BLAS is not bound."""
    (tmp_path / "caller.py").write_text(textwrap.dedent(CALLER))
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(blas.__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    env.pop("JITGRAD_BLAS", None)

    def run(**extra):
        out = subprocess.run([sys.executable, "caller.py"], cwd=tmp_path, env=dict(env, **extra),
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    first, second = run(), run()
    assert first[1:] == ["0", "1"]  # compiled (one cache miss) and written
    assert second == [first[0], "1", "0"]  # loaded from cache, not recompiled
    assert run(JITGRAD_BLAS="fallback") == ["True", "1", "0"]


def test_jitgrad_blas_chooses_the_library():
    from jitgrad.vm import blas_lib
    assert blas_lib.find("fallback") is None
    assert blas_lib.find("openblas").kind == "openblas"      # numpy's own, always there
    auto = blas_lib.find("")
    if auto.kind == "mkl":                                    # the `mkl` extra is installed
        assert blas_lib.find("mkl").kind == "mkl"
    else:                                                     # asked for, but not there
        with pytest.warns(RuntimeWarning, match="no MKL library was found"):
            assert blas_lib.find("mkl").kind == "openblas"
    with pytest.raises(ValueError, match="JITGRAD_BLAS='intel'"):
        blas_lib.find("intel")
    assert (blas_lib.FOUND.name if blas_lib.FOUND else "fallback") == blas.BLAS_NAME


def test_forward_matmul_calls_mkl_only_when_it_is_bound():
    from jitgrad.vm import blas_lib
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in ((80, 64), (64, 72)))
    got = blas_lib.forward_matmul(a, b)                       # 80*64*72 >= FORWARD_MIN
    if blas_lib.FOUND is None or blas_lib.FOUND.kind != "mkl":
        assert got is None                                    # numpy's dot is that BLAS
    else:
        np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-4)
        assert blas_lib.forward_matmul(a[:8], b) is None     # too small: numpy's call
        assert blas_lib.forward_matmul(np.asfortranarray(a), b) is None
