"""The seed blog's and Paddle docstring's examples, run unchanged with `import jitgrad as paddle`."""

import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def test_docstring_two_matmuls_with_seeds():
    x = TT([[1, 2], [3, 4]], dtype="float32", stop_gradient=False)
    y = TT([[3, 2], [3, 4]], dtype="float32")
    g1 = TT([[1, 2], [2, 3]], dtype="float32")
    g2 = TT([[1, 1], [1, 1]], dtype="float32")
    z1 = paddle.matmul(x, y)
    z2 = paddle.matmul(x, y)
    paddle.autograd.backward([z1, z2], [g1, g2], True)
    assert x.grad.tolist() == [[12, 18], [17, 25]]
    x.clear_grad()
    paddle.autograd.backward([z1, z2], [g1, None], True)
    assert x.grad.tolist() == [[12, 18], [17, 25]]
    x.clear_grad()
    paddle.autograd.backward([z1, z2])
    assert x.grad.tolist() == [[10, 14], [10, 14]]


def test_scalar_matmul_seed_three_then_freed_graph():
    x = TT([1], dtype="float32", stop_gradient=False)
    y = TT([2], dtype="float32")
    z = paddle.matmul(x, y)
    assert z.shape == []
    paddle.autograd.backward(z, TT([3], dtype="float32"))
    assert x.grad.tolist() == [6.0]
    assert y.grad is None and z.grad is None
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        paddle.autograd.backward(z, TT([3], dtype="float32"))
    assert x.grad.tolist() == [6.0]


def test_scalar_matmul_retained_accumulates():
    x = TT([1], dtype="float32", stop_gradient=False)
    z = paddle.matmul(x, TT([2], dtype="float32"))
    paddle.autograd.backward(z, TT([3], dtype="float32"), retain_graph=True)
    assert x.grad.tolist() == [6.0]
    paddle.autograd.backward(z, TT([3], dtype="float32"), retain_graph=True)
    assert x.grad.tolist() == [12.0]


def test_one_matmul_with_seed():
    x = TT([[1, 2], [3, 4]], dtype="float32", stop_gradient=False)
    y = TT([[3, 2], [3, 4]], dtype="float32")
    z = paddle.matmul(x, y)
    paddle.autograd.backward(z, TT([[1, 2], [2, 3]], dtype="float32"), retain_graph=True)
    assert x.grad.tolist() == [[7, 11], [12, 18]]
    assert str(z) == ("Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n"
                      "       [[9. , 10.],\n        [21., 22.]])")


def test_two_matmuls_backwarded_separately():
    x = TT([[1, 2], [3, 4]], dtype="float32", stop_gradient=False)
    y = TT([[3, 2], [3, 4]], dtype="float32")
    z1, z2 = paddle.matmul(x, y), paddle.matmul(x, y)
    paddle.autograd.backward(z1, TT([[1, 2], [2, 3]], dtype="float32"))
    paddle.autograd.backward(z2, TT([[1, 1], [1, 1]], dtype="float32"))
    assert x.grad.tolist() == [[12, 18], [17, 25]]


@pytest.mark.parametrize("fn, grad", [
    (paddle.square, [2.0, 4.0]),
    (paddle.log, [1.0, 0.5]),
])
def test_square_and_log(fn, grad):
    x = TT([1, 2], dtype="float32", stop_gradient=False)
    paddle.autograd.backward(fn(x))
    assert x.grad.tolist() == grad


def test_exp_prints_like_the_blog():
    x = TT([1, 2], dtype="float32", stop_gradient=False)
    paddle.autograd.backward(paddle.exp(x))
    assert str(x.grad) == ("Tensor(shape=[2], dtype=float32, place=Place(cpu), "
                           "stop_gradient=False,\n       [2.71828175, 7.38905621])")


def test_log_grad_prints_like_the_blog():
    x = TT([1, 2], dtype="float32", stop_gradient=False)
    z = paddle.log(x)
    assert str(z).endswith("[0.        , 0.69314718])")
    paddle.autograd.backward(z)
    assert str(x.grad).endswith("[1.        , 0.50000000])")


def test_softmax_written_out_with_ones_seed_is_zero():
    x = TT([1, 2], dtype="float32", stop_gradient=False)
    z = paddle.exp(x) / paddle.sum(paddle.exp(x))
    assert str(z).endswith("[0.26894140, 0.73105860])")           # the blog's digits
    paddle.autograd.backward(z)
    assert str(x.grad).endswith("[0., 0.])")


def test_softmax_written_out_with_seed():
    x = TT([1, 2], dtype="float32", stop_gradient=False)
    z = paddle.exp(x) / paddle.sum(paddle.exp(x))
    paddle.autograd.backward(z, TT([1, 2], dtype="float32"))
    assert str(x.grad).endswith("[-0.19661194,  0.19661200])")
