"""Tensor printing that matches Paddle's output character for character.

Users compare printed tensors with Paddle's docs and blog posts, so the layout (7-space data
indent, `1.` for integral floats, 8 decimals otherwise, left-justified columns with a sign
column when any item is negative, rows wrapped at 80 characters, `...` summaries) follows
Paddle's `to_string`.
"""

from __future__ import annotations

import numpy as np


class PrintOptions:
    precision = 8
    threshold = 1000
    edgeitems = 3
    sci_mode = False
    linewidth = 80


OPTIONS = PrintOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: int | None = None,
    edgeitems: int | None = None,
    sci_mode: bool | None = None,
    linewidth: int | None = None,
) -> None:
    """Change how tensors print (same arguments as `paddle.set_printoptions`)."""
    for name, value, kind in (
        ("precision", precision, int),
        ("threshold", threshold, int),
        ("edgeitems", edgeitems, int),
        ("sci_mode", sci_mode, bool),
        ("linewidth", linewidth, int),
    ):
        if value is None:
            continue
        if not isinstance(value, kind):
            raise TypeError(f"set_printoptions: {name} must be {kind.__name__}, got {value!r}")
        setattr(OPTIONS, name, value)


def _item_str(x: np.generic) -> str:
    if isinstance(x, np.floating):
        if OPTIONS.sci_mode:
            return f"{x:.{OPTIONS.precision}e}"
        if np.ceil(x) == x:         # inf prints as `inf.`, as in Paddle
            return f"{x:.0f}."
        return f"{x:.{OPTIONS.precision}f}"
    if isinstance(x, np.bool_):
        return "True" if x else "False"
    return str(x)


def _pad(x: np.generic, width: int, signed: bool) -> str:
    s = _item_str(x)
    if width <= len(s):
        return s
    if signed and not x < 0:
        return " " + s.ljust(width - 1)
    return s.ljust(width)


def _summary(a: np.ndarray) -> np.ndarray:
    """The items that will be shown, for measuring the column width."""
    e = OPTIONS.edgeitems
    if a.size == 0:
        return np.array([])
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:e], a[-e:]]) if a.shape[0] > 2 * e else a
    rows = list(a[:e]) + list(a[-e:]) if a.shape[0] > 2 * e else list(a)
    return np.stack([_summary(r) for r in rows])


def _format(a: np.ndarray, summarize: bool, indent: int, width: int, signed: bool) -> str:
    e = OPTIONS.edgeitems
    if a.ndim == 0:
        return _pad(a[()], width, signed)
    cut = summarize and a.shape[0] > 2 * e
    if a.ndim == 1:
        items = [_pad(x, width, signed) for x in (list(a[:e]) + list(a[-e:]) if cut else a)]
        if cut:
            items.insert(e, "...")
        # Paddle wraps a row at `linewidth`, continuing under the row's first item.
        per_line = max(1, (OPTIONS.linewidth - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = [
        _format(r, summarize, indent + 1, width, signed)
        for r in (list(a[:e]) + list(a[-e:]) if cut else a)
    ]
    if cut:
        parts.insert(e, "...")
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def format_data(a: np.ndarray, indent: int) -> str:
    summarize = a.ndim > 0 and a.size > OPTIONS.threshold
    shown = _summary(a)
    flat = shown.reshape(-1)
    width = max((len(_item_str(x)) for x in flat), default=0)
    signed = bool(a.dtype.kind in "fi" and flat.size and (flat < 0).any())
    return _format(a, summarize, indent, width, signed)


def tensor_to_string(data: np.ndarray, dtype_name: str, stop_gradient: bool,
                     prefix: str = "Tensor") -> str:
    indent = len(prefix) + 1
    return (
        f"{prefix}(shape={list(data.shape)}, dtype={dtype_name}, place=Place(cpu), "
        f"stop_gradient={stop_gradient},\n{' ' * indent}{format_data(data, indent)})"
    )
