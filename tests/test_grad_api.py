"""paddle.grad and grad mode (PADDLE_SEMANTICS.md F, I, M)."""

import numpy as np
import pytest

import jitgrad as paddle

TT = paddle.to_tensor


def leaf(values, dtype="float32"):
    return TT(values, dtype=dtype, stop_gradient=False)


# ---- F.29-30: signature, list results, leaves untouched ----------------------------------

def test_grad_returns_a_list_and_never_touches_leaf_grads():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    out = paddle.grad((x * w).sum(), x)
    assert isinstance(out, list) and len(out) == 1
    assert out[0].tolist() == [3.0, 4.0]
    assert x.grad is None and w.grad is None


@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_sets_retained_non_leaf_grads(create_graph):
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grads()
    paddle.grad((y * 3).sum(), x, create_graph=create_graph)
    assert y.grad.tolist() == [3.0, 3.0]
    assert x.grad is None


@pytest.mark.parametrize("create_graph", [False, True])
def test_result_stop_gradient_is_not_create_graph(create_graph):
    x = leaf([1.0, 2.0])
    (g,) = paddle.grad((x * x).sum(), x, create_graph=create_graph)
    assert g.stop_gradient is (not create_graph)


def test_retain_graph_none_means_create_graph_and_grad_does_not_free():
    # Paddle 3.3.1 (D.23): grad() never frees; a backward afterwards still works.
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    a = paddle.grad(y, x)[0]
    b = paddle.grad(y, x, retain_graph=False)[0]
    assert a.tolist() == b.tolist() == [2.0, 4.0]
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_grad_after_freeing_backward_raises_runtime_error():
    x = leaf([1.0])
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        paddle.grad(y, x)


# ---- F.31: grad_outputs, and Paddle's docstring examples ---------------------------------

def _docstring_grad(grad_outputs):
    x = TT(2.0)
    x.stop_gradient = False
    y1 = x * x
    y2 = x * 3
    return paddle.grad(outputs=[y1, y2], inputs=[x], grad_outputs=grad_outputs)[0]


@pytest.mark.parametrize("seeds, want", [(None, 7.0), ([None, 4.0], 16.0), ([4.0, None], 19.0),
                                         ([3.0, 4.0], 24.0)])
def test_paddle_docstring_grad_outputs_example(seeds, want):
    if seeds is not None:
        seeds = [None if s is None else TT(s) for s in seeds]
    assert _docstring_grad(seeds).item() == want


@pytest.mark.parametrize("create_graph, want", [(False, 2.0), (True, 4.0)])
def test_paddle_docstring_y_plus_dx_example(create_graph, want):
    x = TT([1.0])
    x.stop_gradient = False
    y = x * x
    dx = paddle.grad(outputs=[y], inputs=[x], create_graph=create_graph, retain_graph=True)[0]
    z = y + dx
    z.backward()
    assert x.gradient().tolist() == [want]


def test_grad_outputs_length_mismatch_raises_value_error():
    x = leaf([1.0])
    with pytest.raises(ValueError, match="grad_outputs"):
        paddle.grad([x * 2], [x], grad_outputs=[TT([1.0]), TT([1.0])])


# ---- F.32: unreachable inputs -------------------------------------------------------------

def test_separate_tensor_raises_value_error_naming_its_position():
    x, other = leaf([1.0]), leaf([2.0])
    with pytest.raises(ValueError, match="1-th input.*allow_unused=True"):
        paddle.grad((x * 2).sum(), [x, other])


def test_allow_unused_gives_none():
    x, other = leaf([1.0]), leaf([2.0])
    gx, go = paddle.grad((x * 2).sum(), [x, other], allow_unused=True)
    assert gx.tolist() == [2.0] and go is None


def test_stop_gradient_input_is_unreachable():
    x = leaf([1.0])
    c = TT([3.0])
    with pytest.raises(ValueError, match="0-th input"):
        paddle.grad((x * c).sum(), [c])
    assert paddle.grad((x * c).sum(), [c], allow_unused=True) == [None]


def test_output_without_gradient_path_is_unreachable():
    x = leaf([1.0])
    c = TT([3.0]) * 2
    with pytest.raises(ValueError, match="0-th input"):
        paddle.grad(c, [x])
    assert paddle.grad(c, [x], allow_unused=True) == [None]


def test_input_in_no_grad_vars_is_unreachable():
    x = leaf([1.0])
    y = x * 2
    with pytest.raises(ValueError, match="0-th input"):
        paddle.grad(y * 3, [x], no_grad_vars=y)


# ---- F.33: duplicates and flags ------------------------------------------------------------

def test_duplicate_inputs_or_outputs_raise_runtime_error():
    x = leaf([1.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="duplicate"):
        paddle.grad(y, [x, x])
    with pytest.raises(RuntimeError, match="duplicate"):
        paddle.grad([y, y], x)


def test_only_inputs_false_is_not_implemented():
    x = leaf([1.0])
    with pytest.raises(NotImplementedError, match="only_inputs"):
        paddle.grad(x * 2, x, only_inputs=False)


@pytest.mark.parametrize("flag", ["retain_graph", "create_graph", "allow_unused", "only_inputs"])
def test_non_bool_flags_raise_type_error(flag):
    x = leaf([1.0])
    with pytest.raises(TypeError, match=flag):
        paddle.grad(x * 2, x, **{flag: 1})


def test_non_tensor_arguments_raise_type_error():
    x = leaf([1.0])
    with pytest.raises(TypeError, match="inputs"):
        paddle.grad(x * 2, [x, 3.0])
    with pytest.raises(TypeError, match="no_grad_vars"):
        paddle.grad(x * 2, x, no_grad_vars=3)


# ---- F.34: no_grad_vars ----------------------------------------------------------------------

@pytest.mark.parametrize("wrap", [lambda t: t, lambda t: [t], lambda t: (t,), lambda t: {t}])
def test_no_grad_vars_are_constants_and_keep_their_flag(wrap):
    x = leaf([2.0])
    y = x * x                   # dy/dx = 2x = 4
    z = y * x                   # z = x^3; with y constant, dz/dx = y = 4
    (g,) = paddle.grad(z, x, no_grad_vars=wrap(y))
    assert g.tolist() == [4.0]
    assert y.stop_gradient is False
    assert paddle.grad(z, x)[0].tolist() == [12.0]


# ---- F.35: non-leaf inputs, outputs among inputs --------------------------------------------

def test_gradient_with_respect_to_a_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 3
    z = (y * y).sum()
    (gy,) = paddle.grad(z, y)
    assert gy.tolist() == [6.0, 12.0]


def test_gradient_with_respect_to_leaf_and_non_leaf_together():
    x = leaf([1.0, 2.0])
    y = paddle.exp(x)
    gx, gy = paddle.grad(paddle.sum(y * y), [x, y])
    np.testing.assert_allclose(gy.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)
    np.testing.assert_allclose(gx.numpy(), 2 * np.exp([2.0, 4.0]), rtol=1e-6)


def test_output_that_is_its_input_gives_ones():
    x = leaf([1.0, 2.0])
    assert paddle.grad(x, x)[0].tolist() == [1.0, 1.0]


def test_outputs_including_the_input_add_up():
    x = leaf([1.0, 2.0])
    assert paddle.grad([x * 2, x], x)[0].tolist() == [3.0, 3.0]


def test_compiled_and_eager_grad_agree_on_a_mixed_graph():
    rng = np.random.default_rng(0)
    x = leaf(rng.standard_normal((3, 4)), "float64")
    w = leaf(rng.standard_normal((4, 2)), "float64")
    loss = paddle.sum(paddle.tanh(paddle.matmul(x, w)) * paddle.softmax(x @ w, axis=1))
    a = paddle.grad(loss, [x, w])
    b = paddle.grad(loss, [x, w], create_graph=True)
    for u, v in zip(a, b):
        np.testing.assert_allclose(u.numpy(), v.numpy(), rtol=1e-12)


# ---- I: grad mode ------------------------------------------------------------------------------

def test_enable_grad_inside_no_grad_records():
    x = leaf([1.0])
    with paddle.no_grad():
        assert paddle.is_grad_enabled() is False
        with paddle.enable_grad():
            assert paddle.is_grad_enabled() is True
            y = x * 2
        z = x * 2
    assert y.stop_gradient is False and not y.is_leaf
    assert z.stop_gradient is True and z.is_leaf
    assert paddle.is_grad_enabled() is True


def test_set_grad_enabled_as_context_and_as_call():
    x = leaf([1.0])
    with paddle.set_grad_enabled(False):
        assert (x * 2).stop_gradient is True
    assert paddle.is_grad_enabled() is True
    paddle.set_grad_enabled(False)
    try:
        assert (x * 2).stop_gradient is True
    finally:
        paddle.set_grad_enabled(True)
    assert (x * 2).stop_gradient is False
    with pytest.raises(TypeError, match="bool"):
        paddle.set_grad_enabled("yes")
    with paddle.set_grad_enabled(0):            # Paddle 3.3.1 takes the truth value
        assert (x * 2).stop_gradient is True
    assert paddle.is_grad_enabled() is True


def _in_thread(fn):
    import threading
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_grad_mode_is_per_thread_as_in_paddle():
    """Paddle 3.3.1 (measured): a thread started inside no_grad records, and a thread's
    no_grad or set_grad_enabled(False) leaves the other threads recording."""
    x = leaf([1.0])
    with paddle.no_grad():
        assert _in_thread(lambda: ((x * 2).stop_gradient, paddle.is_grad_enabled())) == \
            (False, True)
        assert (x * 2).stop_gradient is True

    def switched_off():
        paddle.set_grad_enabled(False)
        return (x * 2).stop_gradient
    assert _in_thread(switched_off) is True
    assert paddle.is_grad_enabled() is True and (x * 2).stop_gradient is False


def test_one_no_grad_object_entered_by_two_threads_restores_each_threads_mode():
    import threading
    shared = paddle.no_grad()
    inside, leave = threading.Event(), threading.Event()
    seen = []

    def worker():
        with shared:
            inside.set()
            leave.wait()
        seen.append(paddle.is_grad_enabled())
    t = threading.Thread(target=worker)
    t.start()
    inside.wait()
    with shared:                        # entered here too while the worker is inside
        leave.set()
        t.join()
        assert paddle.is_grad_enabled() is False
    assert seen == [True] and paddle.is_grad_enabled() is True


@pytest.mark.parametrize("level", [1, 3])
def test_ops_recorded_inside_a_recorded_backward_take_its_site_at_every_flag_level(level):
    """Which nodes a create_graph backward recorded (grad_links.py adds Paddle's links to
    the others) never depends on FLAGS_call_stack_level, even for an op called from the
    function that recorded the forward (a PyLayer's or a hook's body can be that code)."""
    import sys
    from jitgrad.core import tape
    before = paddle.get_flags("FLAGS_call_stack_level")
    paddle.set_flags({"FLAGS_call_stack_level": level})
    try:
        x = leaf([1.0])
        a = paddle.tanh(x)                      # this function: the last site walked
        with tape.recording_from(sys._getframe()):
            b = paddle.tanh(x)
            c = x * a
    finally:
        paddle.set_flags(before)
    assert (a._node.site is None) == (level == 1)
    assert type(b._node.site) is tape.BackwardSite and type(c._node.site) is tape.BackwardSite


def test_a_recorded_backward_in_one_thread_leaves_another_threads_op_sites_alone(call_sites):
    """A create_graph backward marks the nodes it records as the backward's (their site, a
    tape.BackwardSite, is what grad_links.py tells them apart by); a forward recorded in
    another thread meanwhile keeps its own sites."""
    import sys
    import threading
    from jitgrad.core import tape
    inside, leave = threading.Event(), threading.Event()

    def backward_thread():
        with tape.recording_from(sys._getframe()):
            inside.set()
            leave.wait()
    t = threading.Thread(target=backward_thread)
    t.start()
    inside.wait()
    try:
        y = paddle.tanh(leaf([1.0]))            # recorded from jitgrad's tanh: a walked site
    finally:
        leave.set()
        t.join()
    assert y._node.site is not None and not isinstance(y._node.site, tape.BackwardSite)


def test_values_computed_under_no_grad_are_constants_for_grad():
    x = leaf([3.0])
    with paddle.no_grad():
        c = x * 2
    (g,) = paddle.grad((c * x).sum(), x)
    assert g.tolist() == [6.0]


def test_docstring_examples_run():
    import doctest

    from jitgrad.autograd import api, py_layer
    for module in (api, py_layer):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_grad_on_same_structure_graphs_answers_for_the_inputs_asked():
    # one structure, the inputs asked for change between calls: the program cache's
    # matcher must not serve one call's targets to another
    def step(order):
        a, b = leaf([1.0, 2.0]), leaf([3.0, 5.0])
        y = (a * b * b).sum()
        ins = {"a": a, "b": b}
        return [g.tolist() for g in paddle.grad([y], [ins[k] for k in order])]
    for _ in range(3):
        assert step("ab") == [[9.0, 25.0], [6.0, 20.0]]
        assert step("ba") == [[6.0, 20.0], [9.0, 25.0]]
        assert step("a") == [[9.0, 25.0]]
        assert step("b") == [[6.0, 20.0]]


def test_grad_of_a_one_element_output_list_checks_unused_inputs():
    x, z = leaf([1.0]), leaf([2.0])
    with pytest.raises(ValueError, match="allow_unused"):
        paddle.grad([(x * 3).sum()], [x, z])
    assert paddle.grad([(x * 3).sum()], [x, z], allow_unused=True)[1] is None
