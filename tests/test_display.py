"""jitgrad.autograd.graphviz: what a notebook shows with and without Graphviz."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest

import jitgrad as paddle
from jitgrad.autograd import display
from jitgrad.autograd.graph_dot import backward_graph_dot, forward_graph_dot


def graph():
    x = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
    y = paddle.to_tensor([[3., 2.], [3., 4.]])
    return paddle.exp(paddle.matmul(x, y)).sum()


def test_exported_from_autograd_and_source_is_the_dump_dot():
    out = graph()
    view = paddle.autograd.graphviz(out)
    assert view.source == backward_graph_dot(out)
    assert str(view) == view.source
    assert paddle.autograd.graphviz([out], forward=True).source == forward_graph_dot(out)


def test_without_graphviz_shows_dot_text_with_a_hint(monkeypatch):
    monkeypatch.setattr(display, "render_svg", lambda source: None)
    view = paddle.autograd.graphviz(graph())
    assert view._repr_svg_() is None
    page = view._repr_html_()
    assert "MatmulGradNode" in page and "<pre>" in page and "pip install graphviz" in page
    assert '"' not in page.split("<pre>")[1].split("</pre>")[0]     # quotes are escaped
    text = repr(view)
    assert text.startswith("digraph G {") and "MatmulGradNode" in text
    assert text.rstrip().splitlines()[-1] == "// " + display.HINT    # one hint line, DOT comment


def test_with_graphviz_the_picture_replaces_the_text(monkeypatch):
    calls = []

    def fake(source: str) -> str:
        calls.append(source)
        return "<svg>picture</svg>"
    monkeypatch.setattr(display, "render_svg", fake)
    view = paddle.autograd.graphviz(graph())
    assert view._repr_svg_() == "<svg>picture</svg>"
    assert view._repr_html_() is None
    view._repr_svg_()
    assert calls == [view.source]                       # rendered once


def test_render_svg_returns_none_when_dot_is_missing(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert display.render_svg(backward_graph_dot(graph())) is None


def test_ipython_display_formatter_picks_one_representation(monkeypatch):
    formatters = pytest.importorskip("IPython.core.formatters")
    monkeypatch.setattr(display, "render_svg", lambda source: None)
    data, _ = formatters.DisplayFormatter().format(paddle.autograd.graphviz(graph()))
    assert "text/html" in data and "image/svg+xml" not in data
    monkeypatch.setattr(display, "render_svg", lambda source: "<svg></svg>")
    data, _ = formatters.DisplayFormatter().format(paddle.autograd.graphviz(graph()))
    assert "image/svg+xml" in data and "text/html" not in data


def test_real_graphviz_renders_an_svg_with_every_node():
    try:
        import graphviz  # noqa: F401
    except ImportError:
        pytest.skip("the graphviz package is not installed (optional)")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed (optional)")
    svg = paddle.autograd.graphviz(graph())._repr_svg_()
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for name in ("SumGradNode", "ExpGradNode", "MatmulGradNode", "GradNodeAccumulation"):
        assert name in texts
