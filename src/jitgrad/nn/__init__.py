"""Paddle's `nn` namespace: `jitgrad.nn.functional` holds the activations and softmax."""

from . import functional

__all__ = ["functional"]
