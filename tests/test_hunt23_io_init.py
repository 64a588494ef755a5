"""Hunt 23: paddle.io, paddle.save/load, nn.initializer and nn.utils against Paddle 3.3.1.

Each test pins one fix; the comment quotes what Paddle 3.3.1 gave (measured with
/work/peers/bin/python)."""

import numpy as np

import jitgrad as paddle
from jitgrad import io


def test_dataloader_batch_of_tensors_needing_grad_is_detached():
    # Paddle 3.3.1: every Tensor of a batch has stop_gradient=True (collated, converted by
    # batch_size=None or returned by a collate_fn), so a loss on it leaves the dataset alone.
    w = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
    stacked = list(io.DataLoader([w[0], w[1]], batch_size=2))[0]
    unbatched = list(io.DataLoader([w], batch_size=None))[0]
    collated = list(io.DataLoader([w, w], batch_size=2, collate_fn=lambda b: b[0]))[0]
    for batch in (stacked, unbatched, collated):
        assert batch.stop_gradient and batch is not w
        np.testing.assert_array_equal(batch.numpy(), [[1., 2.], [3., 4.]])


def test_create_parameter_with_attr_false_makes_no_parameter():
    # Paddle 3.3.1: paddle.create_parameter(..., attr=False) and Layer.create_parameter
    # return None (no parameter, as bias_attr=False); jitgrad returned a parameter.
    assert paddle.create_parameter([3], "float32", attr=False) is None

    class NoBias(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.b = self.create_parameter([3], attr=False, is_bias=True)

    layer = NoBias()
    assert layer.b is None and layer.parameters() == []


def test_calculate_gain_knows_the_conv_transpose_names():
    # Paddle 3.3.1's table has conv_transpose1d/2d/3d (gain 1) besides conv2d_transpose.
    gain = paddle.nn.initializer.calculate_gain
    assert [gain(n) for n in ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")] \
        == [1, 1, 1]

