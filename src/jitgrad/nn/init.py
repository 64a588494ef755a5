"""paddle.nn.init (Paddle 3.3.1): torch-style in-place initialisation of a tensor, each a
thin call of an initializer of nn/initializer.py on it. Like Paddle's, they return None."""

from __future__ import annotations

from ..core.tensor import Tensor
from ..ops import creation
from .initializer import (Constant, Dirac, KaimingNormal, KaimingUniform, Normal, Orthogonal,
                          TruncatedNormal, Uniform, XavierNormal, XavierUniform,
                          calculate_gain)

__all__ = ["calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_",
           "kaiming_uniform_", "normal_", "ones_", "orthogonal_", "trunc_normal_", "uniform_",
           "xavier_normal_", "xavier_uniform_", "zeros_"]


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu") -> None:
    KaimingUniform(negative_slope=a, nonlinearity=nonlinearity, mode=mode)(tensor)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu") -> None:
    KaimingNormal(negative_slope=a, nonlinearity=nonlinearity, mode=mode)(tensor)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, fan_in: float | None = None,
                    fan_out: float | None = None) -> None:
    XavierUniform(gain=gain, fan_in=fan_in, fan_out=fan_out)(tensor)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, fan_in: float | None = None,
                   fan_out: float | None = None) -> None:
    XavierNormal(gain=gain, fan_in=fan_in, fan_out=fan_out)(tensor)


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> None:
    Uniform(low=a, high=b)(tensor)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> None:
    Normal(mean=mean, std=std)(tensor)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0) -> None:
    TruncatedNormal(mean=mean, std=std, a=a, b=b)(tensor)


def constant_(tensor: Tensor, val: float) -> None:
    Constant(value=val)(tensor)


def ones_(tensor: Tensor) -> None:
    Constant(value=1.0)(tensor)


def zeros_(tensor: Tensor) -> None:
    Constant(value=0.0)(tensor)


def dirac_(tensor: Tensor, groups: int = 1) -> None:
    Dirac(groups=groups)(tensor)


def eye_(tensor: Tensor) -> None:
    """The identity matrix (ones on the main diagonal of a 2-D tensor, rectangular too)."""
    if tensor.ndim != 2:
        raise ValueError(f"eye_: only a 2-D tensor can be set to the identity, got "
                         f"{tensor.ndim} dims")
    tensor.set_value(creation.eye(tensor.shape[0], tensor.shape[1],
                                  dtype=tensor._data.dtype)._data)


def orthogonal_(tensor: Tensor, gain: float = 1) -> None:
    Orthogonal(gain=gain)(tensor)
