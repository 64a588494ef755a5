"""Activations and softmax under Paddle's `paddle.nn.functional` names."""

from ..ops import log_softmax, relu, sigmoid, softmax, tanh

__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax"]
