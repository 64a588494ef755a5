"""transpose's and broadcast_to's argument checks (transpose remembers the perms it has
checked; broadcast_to checks the shapes itself): the same answers as the general checks; and
zero-size dims through the shape ops' own reshapes."""

import numpy as np
import pytest

import jitgrad as paddle


def test_transpose_accepts_negative_axes_and_gives_numpys_values_every_time():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = paddle.to_tensor(x, stop_gradient=False)
    for _ in range(3):                      # (the second and third from the remembered perm)
        for perm in ([2, 0, 1], (2, 0, 1), [-1, 0, -2]):
            y = paddle.transpose(t, perm)
            np.testing.assert_array_equal(y.numpy(), np.transpose(x, (2, 0, 1)))
            assert y._node.attrs["perm"] == (2, 0, 1)
    (paddle.transpose(t, [1, 2, 0]) * paddle.to_tensor(np.ones((3, 4, 2), np.float32))).sum(
        ).backward()
    np.testing.assert_array_equal(t.grad.numpy(), np.ones((2, 3, 4), np.float32))


@pytest.mark.parametrize("perm", [[0, 0, 1], [0, 1], [0, 1, 3], [0, 1, 2, 3]])
def test_transpose_rejects_what_is_not_a_permutation_even_after_good_perms(perm):
    t = paddle.to_tensor(np.zeros((2, 3, 4), np.float32))
    paddle.transpose(t, [0, 1, 2])
    for _ in range(2):
        with pytest.raises(ValueError, match="not a permutation of 3 axes"):
            paddle.transpose(t, perm)


def test_T_reverses_the_axes():
    x = np.arange(120, dtype=np.float64).reshape(2, 3, 4, 5)
    assert paddle.to_tensor(x).T.shape == [5, 4, 3, 2]
    np.testing.assert_array_equal(paddle.to_tensor(x).T.numpy(), x.T)
    np.testing.assert_array_equal(paddle.to_tensor(np.float32(3.0)).T.numpy(), np.float32(3.0))
    big = np.zeros((1,) * 9, np.float32)
    assert paddle.to_tensor(big).T.shape == [1] * 9


@pytest.mark.parametrize("src, dst", [((3,), (2, 3)), ((1, 3), (4, 3)), ((2, 1, 1), (2, 5, 6)),
                                      ((), (2, 2)), ((3,), (0, 3))])
def test_broadcast_to_gives_numpys_values(src, dst):
    x = np.arange(np.prod(src), dtype=np.float32).reshape(src)
    np.testing.assert_array_equal(paddle.broadcast_to(paddle.to_tensor(x), dst).numpy(),
                                  np.broadcast_to(x, dst))


@pytest.mark.parametrize("src, dst", [((5,), (1,)), ((3,), (4,)), ((2, 3), (3,)),
                                      ((1,), (-1,)), ((2, 3), (2, 1))])
def test_broadcast_to_rejects_shapes_it_cannot_reach(src, dst):
    with pytest.raises(ValueError, match="cannot broadcast shape"):
        paddle.broadcast_to(paddle.to_tensor(np.zeros(src, np.float32)), dst)


def test_reshape_to_an_edited_shape_resolves_as_a_list_does():
    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    s = x.shape                              # a Size (a list subclass)
    s.insert(1, 1)
    assert paddle.reshape(x, s).shape == [2, 1, 3]
    assert x.unsqueeze(1).shape == [2, 1, 3] and x.unsqueeze(-1).shape == [2, 3, 1]
    s[0] = -1
    assert paddle.reshape(x, s).shape == [2, 1, 3]
    s[2] = 4
    with pytest.raises(ValueError, match="cannot reshape"):
        paddle.reshape(x, s)


# ---- zero-size dims in the ops' own reshapes (Paddle 3.3.1, measured) ------------------------

def test_squeeze_unsqueeze_and_tile_keep_zero_size_dims():
    z = paddle.zeros
    assert paddle.unsqueeze(z([0, 3]), 0).shape == [1, 0, 3]
    assert paddle.unsqueeze(z([0, 5]), [0, 3]).shape == [1, 0, 5, 1]
    assert paddle.squeeze(z([1, 0, 3])).shape == [0, 3]
    assert paddle.tile(z([0, 3]), [2, 2]).shape == [0, 6]
    assert paddle.tile(z([2, 0, 3]), [2, 1, 2]).shape == [4, 0, 6]


@pytest.mark.parametrize("axis", [0, [0, 2]])
def test_a_reductions_gradient_over_a_zero_size_input_has_its_shape(axis):
    x = paddle.zeros([2, 0, 3])
    x.stop_gradient = False
    for f in (paddle.prod, paddle.sum):
        f(x, axis=axis).sum().backward()
        assert x.grad.shape == [2, 0, 3]
        x.clear_grad()


# each op on a [2, 0, 3] input: its output shape (Paddle 3.3.1) and a gradient of x's shape
ZERO_SIZE = {
    "einsum": (lambda x: paddle.einsum("abc,cd->abd", x, paddle.ones([3, 2], "float64")),
               [2, 0, 2]),
    "einsum_batched": (lambda x: paddle.einsum("abc,adc->abd", x, x), [2, 0, 0]),
    "unsqueeze_squeeze": (lambda x: paddle.squeeze(paddle.unsqueeze(x, 1), 1), [2, 0, 3]),
    "tile": (lambda x: paddle.tile(x, [1, 2, 2]), [2, 0, 6]),
    "flatten": (lambda x: paddle.flatten(x, 1), [2, 0]),
    "concat": (lambda x: paddle.concat([x, x], axis=1), [2, 0, 3]),
    "mean_axis": (lambda x: paddle.mean(x, axis=2), [2, 0]),
    "prod_axis": (lambda x: paddle.prod(x, axis=0), [0, 3]),
    "softmax": (lambda x: paddle.nn.functional.softmax(x, axis=2), [2, 0, 3]),
    "layer_norm": (lambda x: paddle.nn.functional.layer_norm(x, [3]), [2, 0, 3]),
    "matmul": (lambda x: paddle.matmul(x, paddle.ones([3, 4], "float64")), [2, 0, 4]),
    "group_norm": (lambda x: paddle.nn.functional.group_norm(x.transpose([1, 0, 2]), 2),
                   [0, 2, 3]),
}


@pytest.mark.parametrize("name", list(ZERO_SIZE))
def test_ops_on_a_zero_size_input_give_paddles_shape_and_a_gradient_of_its_shape(name):
    f, want = ZERO_SIZE[name]
    x = paddle.zeros([2, 0, 3], "float64")
    x.stop_gradient = False
    y = f(x)
    assert y.shape == want
    y.sum().backward()
    assert x.grad.shape == [2, 0, 3]


def test_rows_picked_by_an_index_array_save_the_positions_of_those_rows():
    from jitgrad.ops.shape import _flat_positions, _getitem_map
    x = paddle.to_tensor(np.ones((5, 3), "float32"), stop_gradient=False)
    (x * 2.0).sum().backward()                      # (Numba loaded: the compiled positions)
    a = np.zeros((5, 2, 3))
    for idx in ([0, 4, -1, 2, 2], [], [-5]):
        key = (np.array(idx, np.int64),)
        np.testing.assert_array_equal(_getitem_map(None, a, key)[0],
                                      _flat_positions(a.shape)[key].ravel())
