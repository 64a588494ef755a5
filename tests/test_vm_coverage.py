"""Every opcode has a compiled kernel and a numpy reference (its record in vm/opcodes.py),
and they agree."""

from typing import NamedTuple

import numpy as np
import pytest

from jitgrad.vm.program import OP, OPCODES, WIDTH
from jitgrad.vm import execute

N = 6
# Per-opcode extra setup: itab contents (offset 0) for opcodes that read the int table.
ITAB = {
    "GATHER": [5, 0, 0, 3, 2, 1],
    "GATHER_MUL": [5, 0, 0, 3, 2, 1],
    "SCATTER": [5, 0, 0, 3, 2, 1],
    "GEMM": [2, 1, 3, 1, 0, 1, 1, 3, 3],          # 2 batches of (1x1) @ (1x3)^T-stored
    "SOFTMAX_BWD": [2, 3, 1, 0],                # (itab[p+3]: a is n elements)
    "LOGSOFTMAX_BWD": [3, 2, 1, 0],
    # 3 fused steps (op, b, c, k): MUL by b with K, TANH_BWD with b, MULDIV by b / a;
    # (the row's c field is unused)
    "CHAIN": [3, 0, OP["MUL"], 2 * N, 0, 1, OP["TANH_BWD"], 2 * N, 0, 0,
              OP["MULDIV"], 2 * N, N, 1],
    "CUMSUM": [2, 3, 1, 1],
    "ROWSUM": [3],                               # a = 3 rows of n, summed into out
    "LINSCAN": [1, 3, 2, 0],
    "MIDSUM": [2, 3],                            # out [2, 3] from a [2, 2, 3] (n = 6)
    # N C H W G R kh kw sh sw dh dw pt pl Ho Wo: a 2x3 image, 2x2 kernel, stride (1, 2),
    # one row and one column of padding, 16 column entries
    "COL2IM": [1, 1, 2, 3, 1, 4, 2, 2, 1, 2, 1, 1, 1, 1, 2, 2],
    # N C H W kh kw sh sw pt pl Ho Wo: 2x2 windows, stride 1, a padding row on top (its
    # gradient is dropped); the window offsets are b's values truncated (0 or 1)
    "POOL_BWD": [1, 1, 2, 3, 2, 2, 1, 1, 1, 0, 2, 2],
    "CHANSUM": [1, 3],                           # a = 1 x 6 x 3, summed over the 3s
    # R S L A Q: 2 statistics of 3 elements each, 3 channels along a row (Q = 0); c = the
    # 2 rstd then the 3 weights
    "NORM_BWD": [1, 2, 3, 3, 0],
    "EXPAND": [2, 1, 3, 0, 0, 1],                # a[0:3] twice (a leading broadcast)
    "EXPAND_MUL": [1, 3, 2, 0, 1, 0],            # a[0], a[1], a[2] twice each, times b
    "ROUND": [16],                               # to float16 (the values are in [0.5, 1.5))
    "STRIDED": [2, 3, 2, 1, 3, 0],               # a (2, 3) transposed: sizes 3, 2, strides 1, 3
    # 2 batches of a (1x3) b solved with a 3x3 A on the right, A's upper triangle transposed
    "TRSM": [2, 1, 3, 0, 1, 1, 0, 0, 3],
}
SPECIAL_N = {"SUM": N, "BCAST": N}


class Arrays(NamedTuple):
    """A one-row program's arrays, as vm.execute takes them."""
    code: np.ndarray
    arena: np.ndarray
    itab: np.ndarray
    consts: np.ndarray


def _program(name, acc, dtype):
    rng = np.random.default_rng(OP[name])
    arena = rng.uniform(0.5, 1.5, 4 * N).astype(dtype)
    code = np.zeros((1, WIDTH), np.int64)
    code[0] = [OP[name] << 1 | acc, 0, N, 2 * N, 3 * N, N, 0, 1]
    itab = np.array(ITAB.get(name, [0]), np.int64)
    consts = np.array([1.0, 0.75], dtype)
    return Arrays(code, arena, itab, consts)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("acc", [0, 1])
@pytest.mark.parametrize("name", list(OPCODES))
def test_compiled_kernel_matches_reference(name, acc, dtype):
    ref, jit = _program(name, acc, dtype), _program(name, acc, dtype)
    execute(*ref, vm="reference")
    execute(*jit, vm="numba")
    np.testing.assert_allclose(jit.arena, ref.arena, rtol=1e-6)


def test_every_opcode_changes_its_output():
    for name in OPCODES:
        p = _program(name, 0, np.float64)
        before = p.arena.copy()
        execute(*p, vm="reference")
        assert not np.array_equal(p.arena, before), f"{name} wrote nothing"


def test_unknown_opcode_raises():
    p = _program("AXPY", 0, np.float64)
    p.code[0, 0] = (len(OPCODES) + 5) << 1
    with pytest.raises(RuntimeError, match="no kernel"):
        execute(*p, vm="numba")
    with pytest.raises(NotImplementedError):
        execute(*p, vm="reference")


def test_every_opcode_record_is_consistent():
    """opcodes.py's flags agree with each other: the passes trust them."""
    from jitgrad.vm.opcodes import TABLE
    for o in TABLE:
        assert set(o.external) <= set(o.reads), o.name
        if o.step is not None:              # a CHAIN step reads v (a) and `step` of b, c
            assert o.elementwise and o.reads[:1] == (2,) and len(o.reads) == 1 + o.step, \
                o.name
        assert not (o.core and o.itab_offsets), o.name
        assert o.doc, o.name
        # exactly one numpy reference; a CHAIN step's is its elementwise value
        assert (o.value is None) != (o.ref is None), o.name
        assert o.step is None or o.value is not None, o.name


@pytest.mark.parametrize("name", ["SOFTMAX_BWD", "LOGSOFTMAX_BWD"])
@pytest.mark.parametrize("acc", [0, 1])
def test_row_kernels_with_a_scalar_gradient_are_the_broadcast_ones(name, acc):
    """itab[p+3] = 1: g is K * a[0] at every element (peephole.py's fuse_scalar_grads), the
    same values as the row over an array of K * a[0] (a BCAST row's), bit for bit, in both
    interpreters."""
    for vm in ("reference", "numba"):
        scalar, full = _program(name, acc, np.float32), _program(name, acc, np.float32)
        scalar.itab[3] = 1
        full.arena[N:2 * N] = full.consts[1] * full.arena[N]
        full.code[0, 7] = 0                             # (K = 1: the array is the gradient)
        execute(*scalar, vm=vm)
        execute(*full, vm=vm)
        assert scalar.arena[:N].tobytes() == full.arena[:N].tobytes()


@pytest.mark.parametrize("name", ["CUMSUM", "LINSCAN"])
@pytest.mark.parametrize("inner", [1, 2])
@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize("acc", [0, 1])
def test_scans_match_reference_along_the_last_axis_and_inner_ones(name, inner, reverse, acc):
    # (the kernels take a separate loop for inner == 1: a scan along the last axis)
    outer, length = 6 // (3 * inner) or 1, 3
    ref, jit = _program(name, acc, np.float32), _program(name, acc, np.float32)
    for p in (ref, jit):
        p.itab[:4] = [outer, length, inner, reverse]      # (both read this layout)
    execute(*ref, vm="reference")
    execute(*jit, vm="numba")
    np.testing.assert_array_equal(jit.arena, ref.arena)


@pytest.mark.parametrize("name", ["EXPAND", "EXPAND_MUL"])
@pytest.mark.parametrize("grid", [[5, 4, 2, 2, 0, 1], [3, 6, 1, 1, 0, 0], [4, 3, 3, 0, 3, 1],
                                  [2, 3, 20, 20, 0, 1], [3, 2, 17, 0, 0, 0]])
@pytest.mark.parametrize("acc", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_expand_rows_give_the_references_bits_for_short_and_long_runs(name, grid, acc, dtype):
    """EXPAND and EXPAND_MUL with K = 0.75 over grids of inner runs shorter than 16 (the
    kernel's direct loop) and longer (its views): (K * a) * b as the reference, bit for bit."""
    rng = np.random.default_rng(7)
    n = grid[0] * grid[1] * grid[2]
    start = (rng.standard_normal(4 * n) * 3.0).astype(dtype)
    programs = []
    for arena in (start, start.copy()):
        code = np.zeros((1, WIDTH), np.int64)
        code[0] = [OP[name] << 1 | acc, 0, n, 2 * n, 3 * n, n, 0, 1]
        programs.append(Arrays(code, arena, np.array(grid, np.int64),
                               np.array([1.0, 0.75], dtype)))
    execute(*programs[0], vm="reference")
    execute(*programs[1], vm="numba")
    assert programs[1].arena.tobytes() == programs[0].arena.tobytes()
