"""DOT text of the backward and forward graphs: structure, labels, determinism, validity."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.autograd.graph_dot import backward_graph_dot, forward_graph_dot

_ID = r'[A-Za-z_][A-Za-z0-9_]*'
_STR = r'"(?:[^"\\]|\\.)*"'
_ATTRS = rf'\[\s*{_ID}\s*=\s*(?:{_STR}|{_ID})(?:\s*,\s*{_ID}\s*=\s*(?:{_STR}|{_ID}))*\s*\]'
_NODE = re.compile(rf'^\s*({_ID})\s*{_ATTRS}\s*;\s*$')
_EDGE = re.compile(rf'^\s*({_ID})\s*->\s*({_ID})\s*{_ATTRS}\s*;\s*$')
_LABEL = re.compile(rf'label=({_STR})')


def parse_dot(text: str) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """A strict parser for the subset we emit: {id: label} and [(src, dst, label)].

    Any line that is not a node or edge statement inside `digraph G { ... }` fails the test,
    and so does an edge naming an undeclared node or a node declared twice.
    """
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == "digraph G {", lines[0]
    assert lines[-1] == "} // end G", lines[-1]
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str, str]] = []
    for line in lines[1:-1]:
        label = _LABEL.search(line)
        assert label is not None, line
        text_label = re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1),
                            label.group(1)[1:-1])
        if m := _EDGE.match(line):
            edges.append((m.group(1), m.group(2), text_label))
        elif m := _NODE.match(line):
            assert m.group(1) not in nodes, f"node {m.group(1)} declared twice"
            nodes[m.group(1)] = text_label
        else:
            raise AssertionError(f"not a DOT statement: {line!r}")
    for src, dst, _ in edges:
        assert src in nodes and dst in nodes, (src, dst)
    return nodes, edges


def labels_of(nodes: dict[str, str]) -> list[str]:
    return sorted(nodes.values())


def seed_matmul():
    x = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
    y = paddle.to_tensor([[3., 2.], [3., 4.]])
    return x, y, paddle.matmul(x, y)


def test_matmul_backward_graph_has_paddles_nodes_and_edge_labels():
    x, y, z = seed_matmul()
    nodes, edges = parse_dot(backward_graph_dot(z))
    assert labels_of(nodes) == ["GradNodeAccumulation", "MatmulGradNode"]
    # y is a constant: no edge to it; the one edge carries x's gradient
    assert len(edges) == 1
    src, dst, label = edges[0]
    assert nodes[src] == "MatmulGradNode" and nodes[dst] == "GradNodeAccumulation"
    assert label == "Place(cpu)\nfloat32[2, 2]"


def test_shared_leaf_gets_one_accumulation_node_and_every_path_is_an_edge():
    x = paddle.to_tensor([1., 2., 3.], dtype="float64", stop_gradient=False)
    w = paddle.to_tensor([0.5, 0.5, 0.5], dtype="float64", stop_gradient=False)
    h = x * x                           # two edges from Multiply to x's accumulation
    out = (h + paddle.exp(x) * w).sum()
    nodes, edges = parse_dot(backward_graph_dot(out))
    assert labels_of(nodes) == sorted(["SumGradNode", "AddGradNode", "MultiplyGradNode",
                                       "MultiplyGradNode", "ExpGradNode",
                                       "GradNodeAccumulation", "GradNodeAccumulation"])
    acc = [k for k, v in nodes.items() if v == "GradNodeAccumulation"]
    into = {a: sum(1 for _, d, _ in edges if d == a) for a in acc}
    assert sorted(into.values()) == [1, 3]     # w: from its multiply; x: twice from x*x, exp
    # edges: sum->add, add->mul(x*x), add->mul(e*w), mul->x twice, mul->exp, mul->w, exp->x
    assert len(edges) == 8
    assert {lab for _, _, lab in edges} == {"Place(cpu)\nfloat64[3]"}   # sum reads a [3]


def test_backward_graph_is_deterministic_and_ids_do_not_leak_addresses():
    def build():
        x = paddle.to_tensor(np.arange(6.).reshape(2, 3), stop_gradient=False)
        return paddle.nn.functional.softmax(x * 2.0, axis=-1).sum()
    a, b = backward_graph_dot(build()), backward_graph_dot(build())
    assert a == b
    assert "0x" not in a
    assert "Ptr: 0x" in backward_graph_dot(build(), addresses=True)


def test_backward_graph_edge_labels_follow_the_input_shapes_under_broadcasting():
    x = paddle.to_tensor(np.ones((2, 3)), stop_gradient=False)
    b = paddle.to_tensor(np.ones(3), stop_gradient=False)
    nodes, edges = parse_dot(backward_graph_dot((x + b).mean()))
    add = next(k for k, v in nodes.items() if v == "AddGradNode")
    assert sorted(lab for s, _, lab in edges if s == add) == [
        "Place(cpu)\nfloat64[2, 3]", "Place(cpu)\nfloat64[3]"]


def test_backward_graph_of_a_leaf_or_a_constant():
    x = paddle.to_tensor([1., 2.], stop_gradient=False)
    nodes, edges = parse_dot(backward_graph_dot(x))
    assert labels_of(nodes) == ["GradNodeAccumulation"] and edges == []
    c = paddle.to_tensor([1., 2.]) * 3.0
    assert parse_dot(backward_graph_dot(c)) == ({}, [])


def test_backward_graph_skips_detached_and_stop_gradient_branches():
    x = paddle.to_tensor([1., 2.], stop_gradient=False)
    y = paddle.exp(x)
    y.stop_gradient = True                 # cuts the gradient through y
    out = (y * x).sum()
    nodes, _ = parse_dot(backward_graph_dot(out))
    assert "ExpGradNode" not in nodes.values()
    # the forward graph still shows what was computed
    fnodes, _ = parse_dot(forward_graph_dot(out))
    assert "Exp" in fnodes.values()


def test_multiple_roots_share_nodes():
    x, y, z = seed_matmul()
    s = z.sum()
    nodes, edges = parse_dot(backward_graph_dot([s, z]))
    assert labels_of(nodes) == ["GradNodeAccumulation", "MatmulGradNode", "SumGradNode"]
    assert len(edges) == 2


def test_forward_graph_ops_leaves_constants_and_outputs():
    x, y, z = seed_matmul()
    out = paddle.exp(z).sum()
    nodes, edges = parse_dot(forward_graph_dot(out))
    assert labels_of(nodes) == ["Exp", "Matmul", "Sum", "constant", "leaf", "output 0"]
    by_label = {v: k for k, v in nodes.items()}
    assert (by_label["leaf"], by_label["Matmul"], "float32 [2, 2]") in edges
    assert (by_label["constant"], by_label["Matmul"], "float32 [2, 2]") in edges
    assert (by_label["Matmul"], by_label["Exp"], "float32 [2, 2]") in edges
    assert (by_label["Sum"], by_label["output 0"], "float32 []") in edges
    assert len(edges) == 5
    assert forward_graph_dot(out) == forward_graph_dot(out)
    assert "GradNode: 0x" in forward_graph_dot(out, addresses=True)


def test_names_and_quotes_are_escaped():
    x = paddle.to_tensor([1.], stop_gradient=False)
    x.name = 'my "x"\\'
    nodes, _ = parse_dot(forward_graph_dot(x * 2.0))
    assert 'my "x"\\\nleaf' in nodes.values()


def test_bad_roots_raise_type_error():
    with pytest.raises(TypeError, match="roots"):
        backward_graph_dot(3.0)
    with pytest.raises(TypeError, match=r"roots\[1\]"):
        forward_graph_dot([paddle.to_tensor([1.]), "x"])
