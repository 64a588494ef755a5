"""Showing a graph in Jupyter: an SVG picture when Graphviz is there, the DOT text otherwise.

`jitgrad.autograd.graphviz(t)` gives an object Jupyter renders inline. The picture needs
both the `graphviz` Python package and Graphviz's `dot` program; without them the cell shows
the DOT source (the same text dump_backward_graph_path writes) with a one-line hint.
"""

from __future__ import annotations

import html
import shutil
from typing import TYPE_CHECKING, Iterable

from .graph_dot import backward_graph_dot, forward_graph_dot

if TYPE_CHECKING:
    from ..core.tensor import Tensor

HINT = ("(for a picture: pip install graphviz, and install Graphviz's `dot` program, e.g. "
        "apt install graphviz / brew install graphviz / conda install graphviz)")


def render_svg(source: str) -> str | None:
    """SVG text for DOT source, or None when the package or the `dot` program is missing."""
    try:
        import graphviz as gv
    except ImportError:
        return None
    if shutil.which("dot") is None:
        return None
    try:
        return gv.Source(source).pipe(format="svg", encoding="utf-8")
    except (gv.ExecutableNotFound, gv.CalledProcessError, OSError):
        return None


class GraphView:
    """A DOT graph that displays itself: `_repr_svg_` when it can, text otherwise."""

    def __init__(self, source: str, title: str = "backward graph") -> None:
        self.source = source
        self.title = title
        self._svg: str | None | bool = False       # False: not tried yet

    def svg(self) -> str | None:
        """The rendered picture (computed once), or None without Graphviz."""
        if self._svg is False:
            self._svg = render_svg(self.source)
        return self._svg  # type: ignore[return-value]

    def _repr_svg_(self) -> str | None:
        return self.svg()

    def _repr_html_(self) -> str | None:
        if self.svg() is not None:
            return None                              # the picture wins; no duplicate text
        return (f"<details open><summary>jitgrad {html.escape(self.title)} (DOT) "
                f"<small>{html.escape(HINT)}</small></summary>"
                f"<pre>{html.escape(self.source)}</pre></details>")

    def __repr__(self) -> str:
        return f"{self.source}// {HINT}\n"

    def __str__(self) -> str:
        return self.source


def graphviz(tensors: Tensor | Iterable[Tensor], forward: bool = False) -> GraphView:
    """Display the backward graph of `tensors` (or, with forward=True, the forward graph).

    Example (in a notebook cell):
        >>> import jitgrad as paddle
        >>> x = paddle.to_tensor([1., 2.], stop_gradient=False)
        >>> view = paddle.autograd.graphviz((x * x).sum())
        >>> print(view.source.splitlines()[1])
          n0 [label="SumGradNode", shape=box];
    """
    if forward:
        return GraphView(forward_graph_dot(tensors), "forward graph")
    return GraphView(backward_graph_dot(tensors), "backward graph")
