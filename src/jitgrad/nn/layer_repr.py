"""Paddle 3.3.1's `extra_repr` formats shared by several layers (convolutions, pools, the
`name` suffix), so `print(model)` reads as Paddle's."""

from __future__ import annotations

from typing import Any


def name_suffix(name: Any, first: bool = False) -> str:
    """', name=<name>' when a name was given ('name=<name>' when it is the only field)."""
    if not name:
        return ""
    return f"name={name}" if first else f", name={name}"


def to_list(value: Any, n: int) -> list:
    """Paddle's convert_to_list: an int repeated n times, else the values as a list."""
    if isinstance(value, int):
        return [value] * n
    return list(value)


def conv_repr(in_channels: int, out_channels: int, kernel_size: Any, nd: int, stride: Any,
              padding: Any, dilation: Any, groups: int, data_format: str,
              padding_mode: str = "zeros", output_padding: Any = 0) -> str:
    """Paddle's _ConvNd.extra_repr: kernel, stride and dilation as lists, padding as given,
    the non-default fields only (data_format always)."""
    stride, dilation = to_list(stride, nd), to_list(dilation, nd)
    s = f"{in_channels}, {out_channels}, kernel_size={to_list(kernel_size, nd)}"
    if stride != [1] * nd:
        s += f", stride={stride}"
    if padding != 0:
        s += f", padding={padding}"
    if padding_mode != "zeros":
        s += f", padding_mode={padding_mode}"
    if output_padding != 0:
        s += f", output_padding={output_padding}"
    if dilation != [1] * nd:
        s += f", dilation={dilation}"
    if groups != 1:
        s += f", groups={groups}"
    return s + f", data_format={data_format}"


def pool_repr(kernel_size: Any, stride: Any, padding: Any) -> str:
    """Paddle's MaxPoolND / AvgPoolND extra_repr: the arguments as given."""
    return f"kernel_size={kernel_size}, stride={stride}, padding={padding}"
