"""Autograd API details measured on Paddle 3.3.1 (hunt 10, /work/scratch/hunt10): grad_fn's
graph walk, Tensor._register_backward_hook, Tensor.grad_, set_grad_enabled's truth value,
incubate vjp/jvp tuples, empty Jacobian slices, ctx.saved_tensor() with nothing saved, and
a hook handle removed twice."""

import warnings

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def leaf(values, dtype="float32"):
    return TT(np.asarray(values, dtype), stop_gradient=False)


# ---- grad_fn ----------------------------------------------------------------------------------

def test_grad_fn_next_functions_walk_the_graph_as_paddle():
    # Paddle 3.3.1: AddGradNode ['ExpGradNode', 'GradNodeAccumulation'];
    # MultiplyGradNode ['GradNodeAccumulation', None]; GradNodeAccumulation [None]
    x, c = leaf([1.0, 2.0]), TT([3.0, 4.0])
    y = paddle.exp(x * c) + x
    assert y.grad_fn.name() == "AddGradNode"
    nf = y.grad_fn.next_functions
    assert [n.name() for n in nf] == ["ExpGradNode", "GradNodeAccumulation"]
    m = nf[0].next_functions[0]
    assert m.name() == "MultiplyGradNode"
    assert [None if n is None else n.name() for n in m.next_functions] == \
        ["GradNodeAccumulation", None]
    assert nf[1].next_functions == [None]
    # the accumulation node is x's own (Paddle: next_functions[1] == x.grad_fn is True)
    assert nf[1] == x.grad_fn and m.next_functions[0] == x.grad_fn
    assert len({x.grad_fn, nf[1]}) == 1 and nf[0] != nf[1]


def test_grad_fn_of_leaves_and_constants():
    x = leaf([1.0])
    assert x.grad_fn.name() == "GradNodeAccumulation"        # Paddle 3.3.1
    assert x.detach().grad_fn is None                         # Paddle: None
    with paddle.no_grad():
        assert (x * 2).grad_fn is None                        # Paddle: None
    assert (TT([1.0]) * 2).grad_fn is None                    # Paddle: None
    p = paddle.create_parameter([2], "float32")
    assert p.grad_fn.name() == "GradNodeAccumulation"        # Paddle 3.3.1


def test_grad_fn_of_a_pylayer_is_named_as_paddle():
    class Twice(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            return dy * 2

    x = leaf([1.0, 2.0])
    y = Twice.apply(x)
    # Paddle 3.3.1: GradNodePyLayer_Twice ['GradNodeAccumulation']
    assert y.grad_fn.name() == "GradNodePyLayer_Twice"
    assert [n.name() for n in y.grad_fn.next_functions] == ["GradNodeAccumulation"]


# ---- Tensor._register_backward_hook, Tensor.grad_ ----------------------------------------------

def test_register_backward_hook_runs_after_accumulation():
    # Paddle 3.3.1: the gradient hook sees [6, 6], then the backward hooks in registration
    # order, reading the accumulated .grad: [6, 6]; the next backward [1, 1] then [7, 7]
    log = []
    x = leaf([1.0, 2.0])
    y = x * 2
    x._register_backward_hook(lambda: log.append(("h1", x.grad.numpy().tolist())))
    x.register_hook(lambda g: log.append(("grad", g.numpy().tolist())))
    x._register_backward_hook(lambda: log.append(("h2",)))
    (y * 3).sum().backward()
    assert log == [("grad", [6.0, 6.0]), ("h1", [6.0, 6.0]), ("h2",)]
    log.clear()
    (x * 1).sum().backward()
    assert log == [("grad", [1.0, 1.0]), ("h1", [7.0, 7.0]), ("h2",)]
    log.clear()
    # paddle.grad accumulates nothing and calls none of them (Paddle 3.3.1)
    g = paddle.grad((x * x).sum(), x)[0]
    assert g.tolist() == [2.0, 4.0] and log == []
    # nor a backward that does not reach x
    (leaf([1.0]) * 2).sum().backward()
    assert log == []


def test_register_backward_hooks_run_in_the_thread_whose_backward_reached_them():
    # each thread's backward runs its own leaf's hook, once per backward, after that
    # thread's accumulation (a process-wide queue let one thread run another's early)
    import threading
    n, errors = 300, []

    def work(k):
        seen = []
        x = leaf([float(k)])
        x._register_backward_hook(lambda: seen.append(
            (threading.get_ident(), x.grad.numpy().tolist())))
        for i in range(n):
            (x * 2.0).sum().backward()
        me = threading.get_ident()
        if seen != [(me, [2.0 * (i + 1)]) for i in range(n)]:
            errors.append((k, seen[:3]))

    import sys
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)         # (switch threads often: inside the backwards too)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []


def test_register_backward_hook_on_retained_replays_and_several_roots():
    # Paddle 3.3.1: each of three retained backwards calls each hook once, after
    # accumulating (x.grad 3, 6, 9 times [1, 4/3]); autograd.backward of two roots once
    log = {}
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    for name, t in (("w", w), ("x", x)):
        t._register_backward_hook(lambda n=name, t=t: log.setdefault(n, []).append(
            t.grad.numpy().tolist()))
    z = (x * w).sum()
    z.backward(retain_graph=True)
    z.backward(retain_graph=True)
    z.backward()
    assert log == {"w": [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]],
                   "x": [[3.0, 4.0], [6.0, 8.0], [9.0, 12.0]]}
    log.clear()
    paddle.autograd.backward([(x * x).sum(), (x * 3).sum()])
    assert log == {"x": [[14.0, 19.0]]}
    log.clear()
    (x ** 3).sum().backward(create_graph=True)
    assert log == {"x": [[17.0, 31.0]]}


def test_register_backward_hook_errors():
    with pytest.raises(ValueError, match="stop gradient"):          # Paddle: ValueError
        TT([1.0])._register_backward_hook(lambda: None)
    with pytest.raises(ValueError, match="leaf"):                   # Paddle: ValueError
        (leaf([1.0]) * 2)._register_backward_hook(lambda: None)
    with pytest.raises(TypeError):                                  # Paddle: at backward
        leaf([1.0])._register_backward_hook(3)
    # a hook that raises: the gradient is accumulated (Paddle: [2.]), the error surfaces,
    # and nothing of that backward is left queued for the next one
    b, log = leaf([1.0]), []

    def bad():
        raise KeyError("boom")
    b._register_backward_hook(bad)
    with pytest.raises(KeyError):
        (b * 2).sum().backward()
    assert b.grad.tolist() == [2.0]
    x = leaf([1.0])
    x._register_backward_hook(lambda: log.append(1))
    (x * 2).sum().backward()
    assert log == [1]


def test_grad_underscore_is_grad():
    # Paddle 3.3.1: x.grad_ reads and sets .grad
    x = leaf([1.0, 2.0])
    assert x.grad_ is None
    (x * x).sum().backward()
    assert x.grad_.tolist() == [2.0, 4.0]
    x.grad_ = TT([3.0, 3.0])
    assert x.grad.tolist() == [3.0, 3.0]


# ---- set_grad_enabled, incubate vjp/jvp, Jacobian slices, PyLayer, hook handles ------------

@pytest.mark.parametrize("mode, on", [(0, False), (1, True), (np.bool_(False), False),
                                      (0.0, False), (TT(False), False), (TT(True), True)])
def test_set_grad_enabled_takes_the_truth_value(mode, on):
    # Paddle 3.3.1: with set_grad_enabled(0) recording is off, (1) on (jitgrad raised
    # TypeError for anything but a bool)
    x = leaf([1.0])
    with paddle.no_grad():
        with paddle.set_grad_enabled(mode):
            assert paddle.is_grad_enabled() is on
            assert (x * 2).stop_gradient is (not on)
        assert paddle.is_grad_enabled() is False
    assert paddle.is_grad_enabled() is True


def test_set_grad_enabled_refuses_strings():
    with pytest.raises(TypeError):                  # Paddle 3.3.1: TypeError too
        paddle.set_grad_enabled("no")
    assert paddle.is_grad_enabled()


def _kinds(o):
    if isinstance(o, (list, tuple)):
        return type(o).__name__ + "[" + ",".join(_kinds(e) for e in o) + "]"
    return type(o).__name__


def test_incubate_vjp_jvp_return_paddles_containers():
    # measured on Paddle 3.3.1: the function's result as it returned it; vjp's gradients a
    # tuple when xs is a list or tuple, jvp's tangents a tuple when the result is a sequence
    iag = paddle.incubate.autograd
    x, z = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    cases = [
        (iag.vjp, lambda a: a * a, x, "Tensor", "Tensor"),
        (iag.vjp, lambda a: a * a, [x], "Tensor", "tuple[Tensor]"),
        (iag.vjp, lambda a, b: a * b, [x, z], "Tensor", "tuple[Tensor,Tensor]"),
        (iag.vjp, lambda a: (a * 2, a * 3), x, "tuple[Tensor,Tensor]", "Tensor"),
        (iag.vjp, lambda a: [a * 2, a * 3], x, "list[Tensor,Tensor]", "Tensor"),
        (iag.vjp, lambda a, b: (a * b, a + b), [x, z], "tuple[Tensor,Tensor]",
         "tuple[Tensor,Tensor]"),
        (iag.jvp, lambda a: a * a, [x], "Tensor", "Tensor"),
        (iag.jvp, lambda a: (a * 2, a * 3), x, "tuple[Tensor,Tensor]", "tuple[Tensor,Tensor]"),
        (iag.jvp, lambda a: [a * 2], x, "list[Tensor]", "tuple[Tensor]"),
        (iag.jvp, lambda a, b: (a * b, a + b), [x, z], "tuple[Tensor,Tensor]",
         "tuple[Tensor,Tensor]"),
    ]
    for fn, f, xs, ys_kind, g_kind in cases:
        ys, g = fn(f, xs)
        assert (_kinds(ys), _kinds(g)) == (ys_kind, g_kind)
    ys, g = iag.vjp(lambda a, b: (a * b, a + b), [x, z])
    assert [t.tolist() for t in g] == [[4.0, 5.0], [2.0, 3.0]]          # Paddle's values
    ys, g = iag.jvp(lambda a, b: (a * b, a + b), [x, z])
    assert [t.tolist() for t in g] == [[4.0, 6.0], [2.0, 2.0]]


def test_empty_jacobian_slices_are_empty_tensors():
    # J[2:1] raised IndexError('list index out of range') from the row list (Paddle 3.3.1
    # fails too, in concat); numpy's shapes: [0, 3]; J[:, 2:1] was and stays [3, 0]
    x = leaf([1.0, 2.0, 3.0])
    J = paddle.autograd.jacobian(x * x, x)
    assert J[2:1].shape == [0, 3] and J[:, 2:1].shape == [3, 0]
    assert J[1:2].tolist() == [[0.0, 4.0, 0.0]]
    xb = leaf(np.arange(6.0).reshape(3, 2))
    Jb = paddle.autograd.jacobian(xb * xb, xb, batch_axis=0)
    assert Jb[2:1].shape == [0, 2, 2] and Jb[:, 1:1].shape == [3, 0, 2]


def test_saved_tensor_is_none_when_nothing_was_saved():
    seen = []

    class Nothing(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, save):
            if save:
                ctx.save_for_backward()
            return x * 3

        @staticmethod
        def backward(ctx, dy):
            seen.append(ctx.saved_tensor())
            return dy * 3

    for save in (False, True):
        x = leaf([1.0, 2.0])
        Nothing.apply(x, save).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
    assert seen == [None, ()]           # Paddle 3.3.1: None, then ()


def test_removing_a_hook_twice_warns_as_paddle():
    # Paddle 3.3.1: True, then False with a RuntimeWarning naming the hook's id (ids count
    # up per tensor and are not reused)
    x = leaf([1.0])
    h0, h1 = x.register_hook(lambda g: g), x.register_hook(lambda g: g * 2)
    assert h0.remove() is True
    h2 = x.register_hook(lambda g: g)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert h1.remove() is True and h1.remove() is False
        assert h2.remove() is True and h2.remove() is False
    assert [m.category for m in w] == [RuntimeWarning, RuntimeWarning]
    assert "(ID: 1)" in str(w[0].message) and "(ID: 2)" in str(w[1].message)
    assert "does not exist or has been removed" in str(w[0].message)
    (x * 5).sum().backward()
    assert x.grad.tolist() == [5.0]


def test_zero_jacobian_of_an_unrelated_ys_reports_xs_stop_gradient():
    # Paddle 3.3.1: zeros with stop_gradient=False when xs needs a gradient (the ys a constant
    # or made from other tensors), True when xs does not (jitgrad said True for both)
    x, z = leaf([1.0, 2.0]), leaf([1.0])
    H = paddle.autograd.hessian((z * z).sum(), x)
    assert H[:].tolist() == [[0.0, 0.0], [0.0, 0.0]] and H[:].stop_gradient is False
    with paddle.no_grad():
        c = x * 2
    J = paddle.autograd.jacobian(c, x)
    assert J[:].tolist() == [[0.0, 0.0], [0.0, 0.0]] and J[:].stop_gradient is False
    s = TT([1.0, 2.0])
    assert paddle.autograd.jacobian(s * 2, s)[:].stop_gradient is True
