"""Exception classes for bad arguments that Paddle reports through bare `assert`s.

jitgrad raises a typed error naming the argument (TypeError or ValueError), as Python code
should. Paddle 3.3.1 raises AssertionError for the same mistakes in `paddle.grad`,
`paddle.autograd.backward` and `Tensor.backward`, and code written for it (Paddle's own
tests among it) catches AssertionError. These classes are both: `except TypeError` and
`except AssertionError` each catch them, and neither vanishes under `python -O`.
"""

from __future__ import annotations


class ArgumentTypeError(TypeError, AssertionError):
    """An argument of the wrong type (Paddle: AssertionError)."""


class ArgumentValueError(ValueError, AssertionError):
    """An argument with a wrong value: empty, repeated, mismatched length (Paddle:
    AssertionError)."""


class NotSupportedError(NotImplementedError, AssertionError):
    """An option Paddle asserts it does not support either (only_inputs=False)."""


class OutputTypeError(TypeError, ValueError):
    """User code (a PyLayer's forward or backward) returned something of the wrong type:
    a TypeError by Python's convention, and the ValueError Paddle raises."""


class LayerNameError(ValueError, KeyError):
    """A Layer attribute name that cannot be used (empty, dotted, or taken by another kind
    of attribute): a ValueError, and the KeyError Paddle raises."""

    def __str__(self) -> str:          # (KeyError's would quote the message)
        return str(self.args[0]) if self.args else ""
