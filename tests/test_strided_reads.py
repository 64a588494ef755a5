"""STRIDED: a transpose's and a slice's gradient read through strides and an offset, no
index table (compile/builder.strided_grid, vm/kernels._strided)."""

import itertools

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.compile import executor
from jitgrad.compile.builder import strided_grid

from backward_paths import PATHS, backward, leaf


def _read(grid, src):
    """What STRIDED reads from src for `grid` (the kernel's definition, in numpy)."""
    d = grid[0]
    sizes, strides, off = grid[1:1 + d], grid[1 + d:1 + 2 * d], grid[1 + 2 * d]
    idx = np.full(sizes, off)
    for j in range(d):
        shape = [1] * d
        shape[j] = sizes[j]
        idx = idx + (np.arange(sizes[j]) * strides[j]).reshape(shape)
    return src[idx.ravel()]


def test_strided_grid_describes_every_view_of_the_positions():
    rng = np.random.default_rng(0)
    flat = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    views = [flat.transpose(p) for p in itertools.permutations(range(4))]
    views += [flat[1:, ::2, 3], flat[:, ::-1, 1:3, ::-2], flat[None, 0, :, None], flat[1, 2, 3],
              flat[..., 4:5], flat.transpose(2, 0, 3, 1)[:, 1:, ::3]]
    for v in views:
        grid = strided_grid(v, flat)
        assert grid is not None and grid[0] <= 4
        np.testing.assert_array_equal(_read(grid, flat.ravel()), v.ravel())
    assert strided_grid(flat[[0, 1, 1]], flat) is None          # an index array's copy
    assert strided_grid(np.ascontiguousarray(flat.T), flat) is None
    assert strided_grid(flat[:0], flat) is None
    del rng


def test_adjacent_axes_that_step_as_one_merge():
    flat = np.arange(4 * 6 * 8).reshape(4, 6, 8)
    assert strided_grid(flat[1:3], flat) == [1, 96, 1, 48]      # two whole planes: one run
    assert strided_grid(flat.transpose(0, 2, 1), flat) == [3, 4, 8, 6, 48, 1, 8, 0]


@pytest.mark.parametrize("perm", [(1, 0), (0, 2, 1), (2, 0, 1), (0, 2, 1, 3), (3, 1, 0, 2),
                                  (4, 2, 0, 1, 3)])
def test_transpose_gradient_is_the_inverse_permutation_on_every_path(perm):
    shape = (2, 3, 4, 5, 6)[:len(perm)]
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal(shape).astype("float32")
    c = rng.standard_normal(tuple(shape[p] for p in perm)).astype("float32")
    for path in PATHS:
        x = leaf(x0)
        backward((paddle.transpose(x * 2.0, list(perm)) * paddle.to_tensor(c)).sum(), path)
        np.testing.assert_array_equal(x.grad.numpy(), 2 * c.transpose(np.argsort(perm)),
                                      err_msg=path)


def test_a_transposes_program_reads_with_strides_not_a_table():
    x = leaf(np.ones((8, 4, 16, 32), "float32"))
    y = (paddle.transpose(x, [0, 2, 1, 3]) * paddle.to_tensor(np.ones((8, 16, 4, 32),
                                                                       "float32"))).sum()
    prog = executor.program_for([y])
    text = prog.text()
    assert "STRIDED" in text and "GATHER" not in text
    assert prog.itab.size < 100                     # (a table would be 16384 entries)


def test_concat_gradient_slices_each_part_by_strides():
    rng = np.random.default_rng(2)
    a0, b0 = rng.standard_normal((3, 2, 5)), rng.standard_normal((3, 4, 5))
    c = rng.standard_normal((3, 6, 5))
    for path in PATHS:
        a, b = leaf(a0, "float64"), leaf(b0, "float64")
        backward((paddle.concat([a * 1.5, b * 1.5], axis=1) * paddle.to_tensor(c)).sum(), path)
        np.testing.assert_array_equal(a.grad.numpy(), 1.5 * c[:, :2], err_msg=path)
        np.testing.assert_array_equal(b.grad.numpy(), 1.5 * c[:, 2:], err_msg=path)


def test_accumulating_strided_rows_add_into_the_gradient():
    # x used twice through transposes: the second row adds (acc) into the first's output
    x0 = np.arange(12, dtype="float32").reshape(3, 4)
    c1 = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)
    c2 = np.linspace(2, 3, 12, dtype="float32").reshape(4, 3)
    for path in PATHS:
        x = leaf(x0)
        y = (x.T * paddle.to_tensor(c1)).sum() + (paddle.transpose(x, [1, 0]) *
                                                  paddle.to_tensor(c2)).sum()
        backward(y, path)
        np.testing.assert_array_equal(x.grad.numpy(), c1.T + c2.T, err_msg=path)


def test_matrix_transposes_in_linear_algebra_gradients_read_with_strides():
    # cholesky's and eigh's backward symmetrise with a batch of transposes (was a GATHER
    # table per element); the gradients stay those of the closed forms the other tests check
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 8, 8))          # (rows of 8: runs long enough for STRIDED)
    a = a @ a.transpose(0, 2, 1) + 8 * np.eye(8)
    c = paddle.to_tensor(rng.standard_normal((3, 8, 8)))
    for f in (paddle.linalg.cholesky, lambda m: paddle.linalg.eigh(m)[1]):
        x = leaf(a, "float64")
        text = executor.program_for([(f(x) * c).sum()]).text()
        assert "STRIDED" in text and "GATHER" not in text


def test_short_inner_runs_keep_a_gather_table():
    # avg_pool2d's gradient spreads each value over 2 x 2: inner runs of 2, where stepping
    # STRIDED's odometer per run was slower than GATHER's table (36 -> 66 us)
    x = leaf(np.ones((2, 3, 8, 8), "float32"))
    y = (paddle.nn.functional.avg_pool2d(x * 1.5, 2) * 2.0).sum()
    text = executor.program_for([y]).text()
    assert "GATHER" in text and "STRIDED" not in text
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3, 8, 8), 0.75, "float32"))
