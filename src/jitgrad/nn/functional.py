"""Paddle's `paddle.nn.functional`: activations, losses, convolution, pooling, norms."""

from ..ops import log_softmax, relu, sigmoid, softmax, tanh
from ..ops.indexing import pad

__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "pad"]
