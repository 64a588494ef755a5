"""The lowered Program: pruning, replay reuse, readable text, both interpreters agree."""

import numpy as np

import jitgrad as paddle
from jitgrad.compile import executor
from jitgrad import vm
from jitgrad.compile.lower import lower

TT = paddle.to_tensor


def test_branches_no_target_depends_on_are_not_lowered():
    x = TT([1.0, 2.0], stop_gradient=False)
    w = TT([3.0, 4.0], stop_gradient=False)
    side = paddle.exp(w) * 2              # depends only on w, which grad() does not ask for
    loss = paddle.sum(paddle.sin(x) * side)
    text = lower([loss], targets=[x])[0].text()
    assert "SinGradNode" in text and "SumGradNode" in text
    assert "ExpGradNode" not in text
    (gx,) = paddle.grad(loss, x)
    np.testing.assert_allclose(gx.numpy(), np.cos([1.0, 2.0]) * 2 * np.exp([3.0, 4.0]),
                               rtol=1e-6)
    assert w.grad is None


def test_retained_replay_reuses_the_lowered_program(monkeypatch):
    x = TT([1.0, 2.0], stop_gradient=False)
    loss = paddle.sum(paddle.tanh(x) * x)
    loss.backward(retain_graph=True)
    calls = []
    real = executor.lower
    monkeypatch.setattr(executor, "lower", lambda *a, **k: calls.append(1) or real(*a, **k))
    for _ in range(3):
        loss.backward(retain_graph=True)
    assert calls == []
    t = np.tanh([1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 4 * (t + [1.0, 2.0] * (1 - t * t)), rtol=1e-6)


def test_stop_gradient_set_after_a_retained_backward_changes_no_recorded_edge():
    # (Paddle 3.3.1: y's node still passes its gradient; it gives 7 on both backwards)
    x = TT([1.0], stop_gradient=False)
    y = x * 2
    z = y * 3 + x
    z.backward(retain_graph=True)
    y.stop_gradient = True
    x.clear_grad()
    z.backward(retain_graph=True)
    assert x.grad.tolist() == [7.0]


def test_program_text_lists_each_instruction_with_its_op():
    x = TT([1.0, 2.0], stop_gradient=False)
    text = lower([paddle.sum(paddle.exp(x))])[0].text()
    assert "BCAST" in text and "SumGradNode" in text
    assert "MUL" in text and "ExpGradNode" in text


def test_interpreters_agree_on_a_random_composite_graph():
    rng = np.random.default_rng(3)
    xs = [TT(rng.standard_normal((3, 4)), stop_gradient=False) for _ in range(3)]
    w = TT(rng.standard_normal((4, 2)), stop_gradient=False)
    h = paddle.tanh(paddle.matmul(xs[0] * xs[1] - xs[2], w))
    h = paddle.nn.functional.softmax(h, axis=1) + paddle.max(h, axis=0, keepdim=True)
    loss = paddle.mean(h * h) + paddle.sum(paddle.sqrt(paddle.abs(xs[1]) + 1.0))
    prog, _ = lower([loss])
    results = []
    for name in ("reference", "numba"):
        b = executor.bind([loss])
        with vm.using(name):
            b.run(None)
        results.append(b.ws.arena.copy())
        executor.release(b)
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12, atol=1e-14)
    assert len(prog) > 10


def test_a_gradient_summed_over_middle_broadcast_axes_is_one_midsum_row():
    # x [N, 1, D] against y [1, M, D] (pairwise differences): x's gradient sums over the
    # middle axis (MIDSUM, not an index-table SCATTER), y's over the leading one (ROWSUM)
    rng = np.random.default_rng(0)
    for step in range(3):       # interpreted, then lowered and cached, then a cache hit
        xa, ya = rng.standard_normal((3, 2)), rng.standard_normal((4, 2))
        x = TT(xa, stop_gradient=False)
        y = TT(ya, stop_gradient=False)
        loss = ((x.unsqueeze(1) - y.unsqueeze(0)) ** 2).sum()
        if step == 0:
            text = lower([loss])[0].text()
            assert "MIDSUM" in text and "SCATTER" not in text
        loss.backward()
        # d/dx_n sum_m |x_n - y_m|^2 = 2 (M x_n - sum_m y_m), and for y with -N
        np.testing.assert_allclose(x.grad.numpy(), 2 * (4 * xa - ya.sum(0)), rtol=1e-12)
        np.testing.assert_allclose(y.grad.numpy(), 2 * (3 * ya - xa.sum(0)), rtol=1e-12)


def _spread_case(shape, axes, rng):
    """(x, loss, expected x.grad): a sum over `axes` weighted by c, so x's gradient is c
    broadcast back over the summed axes."""
    kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
    xa, c = rng.standard_normal(shape), rng.standard_normal(kept)
    x = TT(xa, stop_gradient=False)
    loss = (paddle.sum(x, axis=list(axes), keepdim=True) * TT(c)).sum()
    return x, loss, np.broadcast_to(c, shape)


def test_a_reduction_gradient_is_spread_by_one_expand_row():
    # sums over leading, trailing, middle and outer-and-inner axes: each gradient is one
    # EXPAND row (an (outer, mid, inner) grid), not a GATHER over an index per element
    rng = np.random.default_rng(1)
    for axes in [(0,), (2,), (1,), (0, 2), (0, 1), (1, 2)]:
        for step in range(3):   # interpreted, then lowered and cached, then a cache hit
            x, loss, want = _spread_case((3, 4, 5), axes, rng)
            if step == 0:
                text = lower([loss])[0].text()
                assert "EXPAND" in text and "GATHER" not in text, (axes, text)
            loss.backward()
            np.testing.assert_array_equal(x.grad.numpy(), want)


def test_a_spread_over_two_separate_axis_blocks_reads_with_strides():
    # kept, summed, kept, summed axes are four runs: no one EXPAND grid; STRIDED reads the
    # four axes with strides 0 along the summed ones, no index table
    rng = np.random.default_rng(2)
    for step in range(3):
        x, loss, want = _spread_case((2, 3, 4, 9), (1, 3), rng)    # (inner runs of 9)
        if step == 0:
            text = lower([loss])[0].text()
            assert "STRIDED" in text and "GATHER" not in text and "EXPAND" not in text
        loss.backward()
        np.testing.assert_array_equal(x.grad.numpy(), want)


def test_max_along_an_axis_spreads_its_gradient_with_expand_mul():
    xa = np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 3.0]])
    c = np.array([[2.0], [3.0]])
    for step in range(3):
        x = TT(xa, stop_gradient=False)
        loss = (paddle.max(x, axis=1, keepdim=True) * TT(c)).sum()
        if step == 0:
            text = lower([loss])[0].text()
            assert "EXPAND_MUL" in text and "GATHER" not in text
        loss.backward()
        # ties share the gradient equally (Paddle's max): row 0's two 5s get 1.0 each
        np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 1.0, 1.0], [3.0, 0.0, 0.0]])


def test_expand_grid_reads_what_the_index_table_reads():
    # every (kept dims, full) shape pair up to 4 axes of sizes 1-3 that has a grid
    import itertools
    from jitgrad.compile.builder import broadcast_index, expand_grid
    checked = 0
    for nd in range(1, 5):
        for big in itertools.product([1, 2, 3], repeat=nd):
            for mask in itertools.product([0, 1], repeat=nd):
                small = tuple(1 if m else s for m, s in zip(mask, big))
                grid = expand_grid(small, big)
                if grid is None:
                    continue
                outer, mid, inner, so, sm, si = grid
                idx = (np.arange(outer)[:, None, None] * so + np.arange(mid)[None, :, None] *
                       sm + np.arange(inner)[None, None, :] * si).ravel()
                np.testing.assert_array_equal(idx, broadcast_index(small, big))
                checked += 1
    assert checked > 1000


def test_a_tensor_times_itself_gets_its_gradient_in_one_pass():
    # x * x: g * x for each input, added (Paddle: v + v). The lowering computes v once and
    # doubles it (2 * v is v + v exactly, overflow and signed zeros included): one writer
    # of x's gradient, fused into one CHAIN with the seed
    xa = np.array([1.5, -0.0, 3e38, -2e-45, np.nan, 7.0], np.float32)
    want = xa + xa
    for step in range(3):       # interpreted, then lowered and cached, then a cache hit
        x = TT(xa, stop_gradient=False)
        loss = (x * x).sum()
        if step == 0:
            text = lower([loss])[0].text()
            assert text.count("MUL") == 1 and "AXPY" in text, text
        loss.backward()
        np.testing.assert_array_equal(x.grad.numpy(), want)
        assert np.signbit(x.grad.numpy()[1])


def test_a_tensor_plus_itself_accumulates_onto_a_kept_gradient():
    xa = np.array([0.1, 0.2, 0.3], np.float32)
    x = TT(xa, stop_gradient=False)
    for _ in range(3):
        (x + x).sum().backward()        # .grad kept: 2, then 4, then 6 (ones doubled)
    np.testing.assert_array_equal(x.grad.numpy(), np.full(3, 6, np.float32))


def test_a_sum_of_a_softmax_reads_its_seed_without_a_ones_array():
    """softmax(x).sum() and log_softmax(x).sum() along the last axis: the row kernel reads
    the sum's scalar seed (peephole.py's fuse_scalar_grads), no BCAST row and no n-element
    ones slot; the gradient has the unfused rows' bits (peephole off), in both interpreters;
    along another axis (strided rows) the BCAST stays."""
    from jitgrad.core import config
    F = paddle.nn.functional
    a = np.random.default_rng(4).standard_normal((5, 7)).astype(np.float32)
    from jitgrad.vm.program import NAMES

    def rows(axis):
        prog = lower([fn(TT(a, stop_gradient=False), axis).sum()])[0]
        return [NAMES[int(op) >> 1] for op in prog.code[:, 0]]
    for fn in (F.softmax, F.log_softmax):
        assert len(rows(-1)) == 1 and rows(-1)[0].endswith("SOFTMAX_BWD")
        assert "BCAST" in rows(0)
        grads = []
        for peephole, name in ((True, "reference"), (True, "numba"), (False, "numba")):
            x = TT(a, stop_gradient=False)
            old = config.SETTINGS.peephole
            config.SETTINGS.peephole = peephole
            try:
                with vm.using(name):
                    (fn(x, -1).sum() * 1.5).backward()
            finally:
                config.SETTINGS.peephole = old
            grads.append(x.grad.numpy().tobytes())
        assert grads[0] == grads[1] == grads[2]


def test_midsum_adds_each_elements_terms_in_order_for_short_and_long_runs():
    """MIDSUM's kernel (vm/norm_kernels.py's _midsum, runs under 16 by _midsum_short): each
    out[k, j] is ((out + a[k, 0, j]) + a[k, 1, j]) + ..., numpy's sequential adds bit for
    bit, over and not over what out held, float32 and float64."""
    from jitgrad.vm.norm_kernels import _midsum
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        for k, b, inner in ((64, 64, 2), (3, 7, 1), (5, 9, 3), (2600, 3, 1), (4, 5, 4),
                            (3, 4, 15), (3, 4, 16), (2, 3, 40)):
            a = (rng.standard_normal((k, b, inner)) * 10.0 ** rng.integers(-6, 7, (k, b, inner))
                 ).astype(dtype)
            for acc in (False, True):
                start = rng.standard_normal((k, inner)).astype(dtype)
                want = start.copy() if acc else np.zeros((k, inner), dtype)
                for r in range(b):
                    want = want + a[:, r, :]
                out = start.copy().reshape(-1)
                _midsum(out, a.reshape(-1), k * inner, b, inner, acc)
                assert out.tobytes() == want.reshape(-1).tobytes(), (k, b, inner, acc)


def test_broadcast_factors_are_expanded_by_rows_not_copied_by_the_binding():
    """x[:, None] * y[None] and x[:, None] / y[None]: the multiply's factor (the other
    operand) is read at its own shape by EXPAND_MUL, the divide's by an EXPAND row into its
    broadcast slot; no value is placed at the broadcast shape. Gradients as numpy's."""
    rng = np.random.default_rng(2)
    xa, ya = rng.uniform(0.5, 2.0, (6, 3)), rng.uniform(0.5, 2.0, (5, 3))
    c = rng.standard_normal((6, 5, 3))
    for op, dx, dy in ((paddle.multiply, lambda: c * ya[None], lambda: c * xa[:, None]),
                       (paddle.divide, lambda: c / ya[None],
                        lambda: -c * xa[:, None] / ya[None] ** 2)):
        for step in range(3):       # interpreted, lowered, a cache hit
            x, y = TT(xa, stop_gradient=False), TT(ya, stop_gradient=False)
            loss = (op(x[:, None, :], y[None, :, :]) * TT(c)).sum()
            if step == 0:
                prog = lower([loss])[0]
                text = prog.text()
                assert ("EXPAND_MUL" if op is paddle.multiply else "EXPAND ") in text
                assert all(np.prod(shape) == np.prod(vshape)      # (no broadcast copy)
                           for _, shape, _, vshape in prog.values + prog.externals)
            loss.backward()
            np.testing.assert_allclose(x.grad.numpy(), dx().sum(1), rtol=1e-12)
            np.testing.assert_allclose(y.grad.numpy(), dy().sum(0), rtol=1e-12)


def test_a_key_that_only_adds_axes_has_a_reshape_for_its_gradient():
    """x[:, None, :] and x[..., None] hold x's elements in order: their gradient is the
    reshape back (no ZERO and SCATTER over the index map); x[::2, None] still scatters."""
    rng = np.random.default_rng(3)
    xa = rng.standard_normal((4, 3))
    for key in ((slice(None), None, slice(None)), (Ellipsis, None), (None,),
                (slice(None, None, 2), None)):
        scatters = key[0] == slice(None, None, 2)
        x = TT(xa, stop_gradient=False)
        h = x[key]
        w = rng.standard_normal(h.shape)
        loss = (h * TT(w)).sum()
        text = lower([loss])[0].text()
        assert ("SCATTER" in text) == scatters, (key, text)
        loss.backward()
        expected = np.zeros_like(xa)
        if scatters:
            expected[::2] = w[:, 0]
        else:
            expected = w.reshape(xa.shape)
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)
