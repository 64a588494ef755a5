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
