"""Tensor methods taking the torch-style arguments Paddle 3.3.1's methods take (x.size(),
x.transpose(0, 2), x.flatten(start_dim=1), x.gather(dim=, index=), x.view(2, 12) ...).

Every expected value below was printed by Paddle 3.3.1 for the same call on
x = arange(24).reshape(2, 3, 4) float32 (OMP_NUM_THREADS=1 /work/peers/bin/python); each of
these calls raised (or, new_zeros(2, 3), gave another result) in jitgrad before.
"""

import pickle

import numpy as np
import pytest

import jitgrad as paddle


def X():
    return paddle.to_tensor(np.arange(24, dtype="float32").reshape(2, 3, 4))


IDX = [[[0, 2], [1, 1], [2, 0]], [[3, 3], [0, 1], [1, 2]]]
T = [[[1.0, 13.0], [5.0, 17.0], [9.0, 21.0]]]       # [4, 3, 2] swapped 0 <-> 2: its [1]

# call -> (shape, a part of the values: `part` picks it) as Paddle 3.3.1 printed them
CALLS = {
    "x.flatten(start_dim=1)": ([2, 12], "v[0][:3]", [0.0, 1.0, 2.0]),
    "x.flatten(start_dim=0, end_dim=1)": ([6, 4], "v[5]", [20.0, 21.0, 22.0, 23.0]),
    "x.flatten(start_dim=1, stop_axis=2)": ([2, 12], "v[1][:2]", [12.0, 13.0]),
    "paddle.flatten(x, start_dim=1)": ([2, 12], "v[0][:2]", [0.0, 1.0]),
    "x.permute(dims=[2, 0, 1])": ([4, 2, 3], "v[1]", [[1.0, 5.0, 9.0], [13.0, 17.0, 21.0]]),
    "x.transpose(dim0=0, dim1=2)": ([4, 3, 2], "v[1]", T[0]),
    "x.transpose(0, 2)": ([4, 3, 2], "v[1]", T[0]),
    "x.transpose(-1, 0)": ([4, 3, 2], "v[1]", T[0]),
    "paddle.transpose(x, 0, 2)": ([4, 3, 2], "v[1]", T[0]),
    "paddle.transpose(x, dim0=0, dim1=2)": ([4, 3, 2], "v[1]", T[0]),
    "x.swapaxes(axis0=0, axis1=2)": ([4, 3, 2], "v[1]", T[0]),
    "x.swapdims(dim0=0, dim1=2)": ([4, 3, 2], "v[1]", T[0]),
    "x.roll(shifts=1, dims=0)": ([2, 3, 4], "v[0][0]", [12.0, 13.0, 14.0, 15.0]),
    "paddle.roll(x, 1, dims=0)": ([2, 3, 4], "v[0][0]", [12.0, 13.0, 14.0, 15.0]),
    # torch's gather (take_along_axis without broadcasting) when given as torch's
    "x.gather(dim=2, index=idx)": ([2, 3, 2], "v", [[[0.0, 2.0], [5.0, 5.0], [10.0, 8.0]],
                                                     [[15.0, 15.0], [16.0, 17.0], [21.0, 22.0]]]),
    "x.gather(2, idx)": ([2, 3, 2], "v[1]", [[15.0, 15.0], [16.0, 17.0], [21.0, 22.0]]),
    "paddle.gather(x, dim=2, index=idx)": ([2, 3, 2], "v[0][2]", [10.0, 8.0]),
    "x.gather(1, paddle.to_tensor([[[1, 0]]]))": ([1, 1, 2], "v", [[[4.0, 1.0]]]),
    "x.pow(exponent=2)": ([2, 3, 4], "v[0][1]", [16.0, 25.0, 36.0, 49.0]),
    "paddle.pow(x, exponent=2)": ([2, 3, 4], "v[0][0]", [0.0, 1.0, 4.0, 9.0]),
    "x.view(2, 12)": ([2, 12], "v[1][:2]", [12.0, 13.0]),
    "x.view(4, -1)": ([4, 6], "v[1]", [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]),
    "x.view(size=[4, 6])": ([4, 6], "v[3][5]", 23.0),
    "x.view(dtype='int32')": ([2, 3, 4], "v[0][0][:3]", [0, 1065353216, 1073741824]),
    "x.tile(dims=[2, 1, 1])": ([4, 3, 4], "v[2][0]", [0.0, 1.0, 2.0, 3.0]),
    "x.unfold(dimension=2, size=2, step=1)": ([2, 3, 3, 2], "v[0][0]",
                                              [[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]]),
    "x.new_zeros(2, 3)": ([2, 3], "v", [[0.0] * 3] * 2),
    "x.new_ones(2, 3)": ([2, 3], "v", [[1.0] * 3] * 2),
    "x.new_empty(2, 3)": ([2, 3], "len(v)", 2),
    "x.new_full(size=[2], fill_value=3.0)": ([2], "v", [3.0, 3.0]),
    "x.argmax(keepdims=True)": ([1, 1, 1], "v", [[[23]]]),
    "x.argmax(axis=1, keepdims=True)": ([2, 1, 4], "v", [[[2, 2, 2, 2]], [[2, 2, 2, 2]]]),
    "x.argmin(keepdims=True)": ([1, 1, 1], "v", [[[0]]]),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_torch_style_method_call_gives_paddles_result(call):
    shape, part, expected = CALLS[call]
    x, idx = X(), paddle.to_tensor(np.array(IDX))
    out = eval(call, {"paddle": paddle, "x": x, "idx": idx})
    assert out.shape == shape
    assert eval(part, {"v": out.numpy().tolist()}) == expected


def test_size_is_an_int_and_callable_as_paddles_tensorsize():
    x = X()
    # Paddle 3.3.1: x.size 24 (an int subclass), x.size() paddle.Size([2, 3, 4]),
    # x.size(1) 3, x.size(-1) 4, x.size(dim=1) 3, x.size(-3) 2
    assert x.size == 24 and isinstance(x.size, int) and x.size + 1 == 25
    assert x.size() == [2, 3, 4] and repr(x.size()) == "paddle.Size([2, 3, 4])"
    assert (x.size(1), x.size(-1), x.size(dim=1), x.size(-3)) == (3, 4, 3, 2)
    assert type(x.size + 1) is int and hash(x.size) == hash(24)
    assert range(x.size)[-1] == 23 and np.zeros(x.size).shape == (24,)


def test_size_keeps_the_shape_not_the_tensor():
    s = X().size
    assert pickle.loads(pickle.dumps(s)) == 24
    assert type(pickle.loads(pickle.dumps(s))) is int


@pytest.mark.parametrize("dim, error", [(3, IndexError), (-4, IndexError), ("a", TypeError)])
def test_size_of_a_dim_it_has_not_raises(dim, error):
    # Paddle 3.3.1: x.size(3) IndexError, x.size('a') TypeError
    with pytest.raises(error, match="size"):
        X().size(dim)


def test_stride_of_one_dim():
    x = X()
    # Paddle 3.3.1: x.stride() [12, 4, 1], x.stride(1) 4, x.stride(dim=1) 4
    assert x.stride() == [12, 4, 1]
    assert (x.stride(1), x.stride(dim=1), x.stride(-1)) == (4, 4, 1)


def test_transpose_by_two_ints_swaps_them_and_keeps_the_gradient():
    x = X()
    x.stop_gradient = False
    y = x.transpose(0, 2)
    (y * paddle.to_tensor(np.arange(24, dtype="float32").reshape(4, 3, 2))).sum().backward()
    # dL/dx[i, j, k] = w[k, j, i] = 6 k + 2 j + i
    assert x.grad.numpy()[1, 2].tolist() == [6.0 * k + 2 * 2 + 1 for k in range(4)]


def test_torch_gather_gradient_goes_to_the_gathered_elements():
    x = X()
    x.stop_gradient = False
    x.gather(dim=2, index=paddle.to_tensor(np.array(IDX))).sum().backward()
    # counts of each (i, j, k) in IDX along axis 2
    assert x.grad.numpy()[0].tolist() == [[1, 0, 1, 0], [0, 2, 0, 0], [1, 0, 1, 0]]
    assert x.grad.numpy()[1].tolist() == [[0, 0, 0, 2], [1, 1, 0, 0], [0, 1, 1, 0]]


@pytest.mark.parametrize("call", ["x.transpose(0)", "x.transpose()", "x.transpose(0, 5)",
                                  "x.permute(2, 0, 1, dims=[2, 0, 1])", "x.view(4, 'a', 2)",
                                  "x.view([4, 6], size=[4, 6])", "x.swapaxes(axis0=0)",
                                  "x.roll(1, dims=0, axis=0)"])
def test_a_malformed_torch_style_call_raises(call):
    with pytest.raises((TypeError, ValueError)):
        eval(call, {"x": X()})


def test_the_old_paddle_forms_still_run():
    x = X()
    assert x.transpose([2, 0, 1]).shape == [4, 2, 3]
    assert x.view([4, 6]).shape == [4, 6] and x.view(-1).shape == [24]
    assert x.gather(paddle.to_tensor([1, 0]), 1).numpy()[0, 0].tolist() == [4.0, 5.0, 6.0, 7.0]
    assert x.new_zeros([2, 3]).shape == [2, 3] and x.new_full([2], 3.0).numpy().tolist() == [3, 3]
    assert x.flatten(1).shape == [2, 12] and x.swapaxes(0, 2).shape == [4, 3, 2]


@pytest.mark.parametrize("name, expected", [
    # Paddle 3.3.1: x.exp(out=paddle.zeros([1])) [2, 3, 4], its [0, 0]
    ("exp", [1.0, 2.7182817459106445, 7.389056205749512, 20.08553695678711]),
    ("floor", [0.0, 1.0, 2.0, 3.0]), ("sign", [0.0, 1.0, 1.0, 1.0]),
    ("sqrt", [0.0, 1.0, 1.4142135381698608, 1.7320507764816284]),
])
def test_a_method_writes_its_result_into_out(name, expected):
    x, o = X(), paddle.zeros([1])
    assert getattr(x, name)(out=o) is o
    assert o.shape == [2, 3, 4] and o.numpy()[0, 0].tolist() == expected


def test_gather_and_clip_methods_write_into_out():
    x, o = X(), paddle.zeros([1])
    assert x.gather(paddle.to_tensor([1]), 1, out=o) is o     # Paddle: [2, 1, 4], [4..7]
    assert o.shape == [2, 1, 4] and o.numpy()[0, 0].tolist() == [4.0, 5.0, 6.0, 7.0]
    assert x.clip(2.0, 3.0, out=o) is o and o.numpy()[0, 0].tolist() == [2.0, 2.0, 2.0, 3.0]


@pytest.mark.parametrize("call, shape, first", [
    # Paddle 3.3.1 writes o (its method returns another tensor of the same values)
    ("x.argmax(out=o)", [], 23), ("x.argmin(out=o)", [], 0),
    ("x.roll(1, out=o)", [2, 3, 4], 23.0), ("x.diagonal(out=o)", [4, 2], 0.0),
    ("x.expand_as(x, out=o)", [2, 3, 4], 0.0),
])
def test_out_on_methods_whose_paddle_signature_does_not_show_it(call, shape, first):
    o = paddle.zeros([1])
    eval(call, {"x": X(), "o": o})
    assert o.shape == shape and o.numpy().ravel()[0].item() == first


def test_softmax_without_an_axis_takes_torchs_legacy_dim_as_paddle():
    # Paddle 3.3.1's paddle.softmax / x.softmax (paddle.compat's): dim None is 0 for a
    # 0-, 1- or 3-D tensor, else 1; F.softmax keeps axis -1. Printed there:
    x = X()
    np.testing.assert_allclose(x.softmax().numpy()[:, 0, 0], [6.144174e-06, 9.999938e-01],
                               rtol=1e-6)
    np.testing.assert_allclose(paddle.softmax(x).numpy()[:, 0, 0], [6.144174e-06, 9.999938e-01],
                               rtol=1e-6)
    y = paddle.to_tensor([[2.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    np.testing.assert_allclose(y.softmax().numpy()[0], [0.5761169, 0.21194157, 0.21194157],
                               rtol=1e-6)       # 2-D: along dim 1
    np.testing.assert_allclose(paddle.nn.functional.softmax(x).numpy()[0, 0],
                               [0.0320586, 0.08714432, 0.23688284, 0.6439143], rtol=1e-6)
    np.testing.assert_allclose(paddle.nn.Softmax()(x).numpy()[0, 0],
                               [0.0320586, 0.08714432, 0.23688284, 0.6439143], rtol=1e-6)
    x4 = paddle.to_tensor(np.arange(16, dtype="float32").reshape(2, 2, 2, 2))
    assert x4.softmax().numpy().sum(axis=1).tolist() == np.ones((2, 2, 2)).tolist()


def test_median_given_dim_is_torchs_values_and_indices():
    # Paddle 3.3.1: x.median(dim=1) [[2.0, 1.0], [2, 3]] (mode 'min': the lower middle and
    # its index), keepdim=True [[[2.0], [1.0]], [[2], [3]]], mode='avg' [2.5, 2.5]
    x = paddle.to_tensor([[3.0, 1.0, 2.0, 5.0], [4.0, 4.0, 0.0, 1.0]])
    values, indices = x.median(dim=1)
    assert values.numpy().tolist() == [2.0, 1.0] and indices.numpy().tolist() == [2, 3]
    values, indices = paddle.median(x, dim=1, keepdim=True)
    assert values.numpy().tolist() == [[2.0], [1.0]] and indices.numpy().tolist() == [[2], [3]]
    assert x.median(dim=1, mode="avg").numpy().tolist() == [2.5, 2.5]
    assert x.median(1).numpy().tolist() == [2.5, 2.5]


SCATTER_X = np.arange(12, dtype="float32").reshape(3, 4)
SRC_ROWS = [[0.0, -1.0, 2.0, 3.0], [4.0, 5.0, -1.0, 7.0], [-1.0, 9.0, 10.0, -1.0]]
SEVENS = [[0.0, 7.0, 2.0, 3.0], [7.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 7.0]]


@pytest.mark.parametrize("call, expected", [
    # torch's scatter (put_along_axis without broadcasting), printed by Paddle 3.3.1
    ("x.scatter(0, idx, src)", SRC_ROWS), ("x.scatter(dim=0, index=idx, src=src)", SRC_ROWS),
    ("x.scatter(0, idx, value=5.0)", [[0.0, 5.0, 2.0, 3.0], [4.0, 5.0, 5.0, 7.0],
                                      [5.0, 9.0, 10.0, 5.0]]),
    ("paddle.scatter(x, 0, idx, src, reduce='add')", [[0.0, 0.0, 2.0, 3.0], [4.0, 5.0, 5.0, 7.0],
                                                      [7.0, 9.0, 10.0, 10.0]]),
    ("x.scatter(1, paddle.to_tensor([[1], [0], [3]]), 7.0)", SEVENS),
    ("x.scatter(dim=1, index=paddle.to_tensor([[1], [0], [3]]), value=7.0)", SEVENS),
])
def test_scatter_in_torchs_form_is_torchs_scatter(call, expected):
    e = {"paddle": paddle, "x": paddle.to_tensor(SCATTER_X),
         "idx": paddle.to_tensor(np.array([[2, 0, 1, 2]])),
         "src": paddle.to_tensor(-np.ones((3, 4), "float32"))}
    assert eval(call, e).numpy().tolist() == expected


def test_paddles_own_scatter_still_replaces_rows():
    x = paddle.to_tensor(SCATTER_X)
    out = x.scatter(paddle.to_tensor([1]), paddle.to_tensor([[9.0, 9.0, 9.0, 9.0]]))
    assert out.numpy()[1].tolist() == [9.0] * 4 and out.numpy()[0].tolist() == [0, 1, 2, 3]
