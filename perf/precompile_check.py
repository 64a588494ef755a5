"""How many Numba compiles are left after `python -m jitgrad warmup --all`.

    CACHE=/tmp/fresh_cache
    NUMBA_CACHE_DIR=$CACHE PYTHONPATH=src python -m jitgrad warmup --all     # the precompile
    NUMBA_CACHE_DIR=$CACHE PYTHONPATH=src python perf/precompile_check.py    # a new process

In a new process on the same cache, with a listener on Numba's "numba:compile" event (a
cache load raises none), this runs: the named ops users meet first (softmax, layer_norm,
cross_entropy, lgamma, erfinv, conv2d ...) in float32 and float64, each as an inference
forward (no_grad), a new structure's first backward (program cache emptied, graph not
retained: interpreted by the ops' array rules, some of which call vm kernels) and two
retained backwards of another graph (lowered, then the cached Program); four small models
trained for two steps each (a CNN with batch norm and Adam, an LSTM and a GRU with AdamW, a
Transformer encoder layer with SGD; the first step's backward interpreted), float32,
gradients clipped, then one inference forward in eval mode; then the jitgrad side of every
perf/op_steps.py row (211 model-like steps, float32; torch is replaced by a stub, its side
is never run) as the named ops, and the same rows with their float inputs in float64. It
prints each compile it saw (kernel and signature) and the count; 0 means the precompile
left nothing for these ops to compile.

Measured 2026-12-07 on the shared 2-core AVX2 host (load 3-5), after the precompile on an
empty cache (641.1 s wall, 301.2 s CPU, the interpreter's ~90 s included): 0 compiles left
(of 102 after a precompile of the registry ops alone), 6.5 s. With a since dropped third
step (each signature's other float dtype compiled too): 549.8 s wall, 337.7 s CPU, also 0.
Later that day, with the inference forwards, the models' eval forward, the interpreted
first backwards and the nll_loss_weight and pad3d_reflect ops added here: 10 compiles left
by the precompile of f27bd3a (whose runs of this check without them still found 0):
silu_value, gelu_tanh_value and times (the silu, gelu_tanh and mish rows under no_grad),
weighted_total (nll_loss with class weights) and pad4 (a 5-D pad), each in float32 and
float64; 0 once the precompile runs its calls under no_grad too and calls those two ops
(precompile: 608 s wall, 222.7 s CPU, 270 kernels compiled, was 420 s, 205.4 s, 258;
this check 4.3 s; 468 of its first backwards interpreted).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import types
import warnings
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.abspath(os.path.join(HERE, "..", "src"))]


class _Compiles:
    def __init__(self) -> None:
        self.local = threading.local()
        self.seen: list[tuple[str, str, str]] = []
        self.where = "start"

    def on_start(self, event: Any) -> None:
        depth = getattr(self.local, "depth", 0)
        self.local.depth = depth + 1
        if depth == 0:
            disp = (event.data or {}).get("dispatcher")
            fn = getattr(disp, "py_func", None)
            name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"
            sig = (event.data or {}).get("args")
            self.seen.append((self.where, name, str(sig)))

    def on_end(self, event: Any) -> None:
        self.local.depth -= 1


class _Stub(types.ModuleType):
    """Stands for torch and every value made from it: op_steps.py builds torch constants
    at import; only its jitgrad side runs here."""

    def __getattr__(self, name: str) -> Any:
        return self

    def __call__(self, *a: Any, **k: Any) -> Any:
        return self

    def __getitem__(self, k: Any) -> Any:
        return self

    def _op(self, *a: Any) -> Any:
        return self
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _op
    __rtruediv__ = __matmul__ = __rmatmul__ = __neg__ = __pow__ = __rpow__ = _op


def _stub_torch() -> None:
    stub = _Stub("torch")
    for name in ("torch", "torch.nn", "torch.nn.functional", "torch.special", "torch.linalg",
                 "torch.fft", "torch.distributions"):
        sys.modules.setdefault(name, stub)


def named_ops(P: Any, F: Any, dt: str) -> dict:
    rng = np.random.default_rng(0)

    def t(*shape: int, lo: float = -2.0, hi: float = 2.0, grad: bool = True) -> Any:
        return P.to_tensor(rng.uniform(lo, hi, shape).astype(dt), stop_gradient=not grad)
    lab = P.to_tensor(rng.integers(0, 10, 32).astype(np.int64))
    return {
        "softmax": lambda: F.softmax(t(32, 64), axis=-1),
        "log_softmax": lambda: F.log_softmax(t(32, 64), axis=-1),
        "layer_norm": lambda: F.layer_norm(t(32, 64), 64, weight=t(64), bias=t(64)),
        "batch_norm": lambda: F.batch_norm(t(8, 4, 6, 6), P.zeros([4], dt), P.ones([4], dt),
                                           weight=t(4), bias=t(4), training=True),
        "cross_entropy": lambda: F.cross_entropy(t(32, 10), lab),
        "lgamma": lambda: P.lgamma(t(32, 64, lo=0.5, hi=3.0)),
        "digamma": lambda: P.digamma(t(32, 64, lo=0.5, hi=3.0)),
        "erfinv": lambda: P.erfinv(t(32, 64, lo=-0.8, hi=0.8)),
        "erf": lambda: P.erf(t(32, 64)),
        "conv2d": lambda: F.conv2d(t(2, 3, 16, 16), t(8, 3, 3, 3), padding=1),
        "max_pool2d": lambda: F.max_pool2d(t(2, 3, 16, 16), 2),
        "gelu": lambda: F.gelu(t(32, 64)),
        "tanh": lambda: P.tanh(t(32, 64)),
        "matmul": lambda: P.matmul(t(32, 64), t(64, 64)),
        "mse_loss": lambda: F.mse_loss(t(32, 64), t(32, 64, grad=False)),
        "sum_max": lambda: P.max(t(32, 64), axis=1) + P.sum(t(32, 64), axis=1),
        "logsumexp": lambda: P.logsumexp(t(32, 64), axis=1),
        "cumsum": lambda: P.cumsum(t(32, 64), axis=1),
        "topk": lambda: P.topk(t(32, 64), 5)[0],
        "embedding": lambda: F.embedding(lab, t(10, 16)),
        "dropout": lambda: F.dropout(t(32, 64), 0.5),
        "nll_loss_weight": lambda: F.nll_loss(F.log_softmax(t(32, 10)), lab,
                                              weight=t(10, lo=0.5, hi=1.0, grad=False)),
        "pad3d_reflect": lambda: F.pad(t(1, 2, 6, 6, 6), [1] * 6, mode="reflect"),
    }


def models(P: Any, F: Any) -> dict:
    nn = P.nn
    rng = np.random.default_rng(0)

    def data(*shape: int) -> Any:
        return P.to_tensor(rng.standard_normal(shape).astype("float32"))

    def cnn() -> tuple:
        net = nn.Sequential(nn.Conv2D(1, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(),
                            nn.MaxPool2D(2), nn.Conv2D(8, 16, 3, padding=1), nn.ReLU(),
                            nn.AdaptiveAvgPool2D(4), nn.Flatten(), nn.Linear(256, 10))
        x, y = data(16, 1, 28, 28), P.to_tensor(rng.integers(0, 10, 16))
        return net, lambda: F.cross_entropy(net(x), y), P.optimizer.Adam

    def rnn(kind: Any) -> Any:
        def build() -> tuple:
            net = kind(32, 32)
            x = data(8, 20, 32)
            return net, lambda: P.mean(net(x)[0] ** 2), P.optimizer.AdamW
        return build

    def transformer() -> tuple:
        net = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1)
        x = data(4, 10, 32)
        return net, lambda: P.mean(net(x) ** 2), P.optimizer.SGD
    return {"cnn": cnn, "lstm": rnn(nn.LSTM), "gru": rnn(nn.GRU),
            "transformer": transformer}


def train(build: Any, P: Any) -> None:
    net, loss_fn, opt_class = build()
    opt = opt_class(parameters=net.parameters(), learning_rate=1e-3,
                    grad_clip=P.nn.ClipGradByGlobalNorm(1.0))
    for _ in range(2):
        loss = loss_fn()
        loss.backward()
        opt.step()
        opt.clear_grad()
    net.eval()
    with P.no_grad():
        loss_fn()                       # (inference)


def _run(make: Any, interpreted: list) -> None:
    """Three backwards of `make()`'s loss: a fresh graph's backward() as a new structure
    (the program cache emptied before), which runs the ops' array rules (their `interp`,
    some calling vm kernels), then two retained backwards of another graph (the first
    lowers it, the second runs the cached Program). `interpreted` counts the first kind."""
    P = sys.modules["jitgrad"]

    def loss() -> Any:
        out = make()
        return P.sum(out) if out.ndim else out
    with P.no_grad():
        loss()                          # (inference: some forwards skip the saved factors)
    P.cache_clear()
    first = loss()
    if first.stop_gradient:
        return
    first.backward()
    interpreted.append(P.cache_info().interpreted)
    again = loss()
    for _ in range(2):
        again.backward(retain_graph=True)


def main() -> int:
    import jitgrad as P
    import jitgrad.nn.functional as F
    from numba.core import event
    print("jitgrad from", P.__file__, "; NUMBA_CACHE_DIR", os.environ.get("NUMBA_CACHE_DIR"))
    counter = type("Counter", (_Compiles, event.Listener), {})()
    event.register("numba:compile", counter)
    t0 = time.perf_counter()
    P.warmup(quiet=True)
    failed: list = []
    interpreted: list = []
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    for dt in ("float32", "float64"):
        for name, f in named_ops(P, F, dt).items():
            counter.where = f"{name}/{dt}"
            try:
                _run(f, interpreted)
            except Exception as e:          # noqa: BLE001
                failed.append((counter.where, repr(e)[:100]))
    named = len(counter.seen)
    for name, build in models(P, F).items():
        counter.where = f"model:{name}"
        P.cache_clear()                 # (its first step's backward is interpreted)
        try:
            train(build, P)
        except Exception as e:          # noqa: BLE001
            failed.append((counter.where, repr(e)[:100]))
    in_models = len(counter.seen) - named
    _stub_torch()
    import op_steps
    for dt in ("float32", "float64"):
        for name in op_steps.OPS:
            counter.where = f"op_steps:{name}/{dt}"
            jf, _, inputs, _ = op_steps.entry(name)
            rng = np.random.default_rng(1)
            ns = {}
            for k, spec in inputs.items():
                a = op_steps.make(spec, rng)
                if a.dtype == np.float32:
                    a = a.astype(dt)
                ns[k] = P.to_tensor(a, stop_gradient=not spec.p)
            try:
                _run(lambda ns=ns: jf(types.SimpleNamespace(**ns)), interpreted)
            except Exception as e:          # noqa: BLE001
                failed.append((counter.where, repr(e)[:100]))
    event.unregister("numba:compile", counter)
    for where, name, sig in counter.seen:
        print(f"compiled: {where}: {name} {sig}")
    for where, e in failed:
        print(f"failed: {where}: {e}")
    print(f"{len(counter.seen)} compiles ({named} in the named ops, {in_models} in the "
          f"models, {len(counter.seen) - named - in_models} in the op_steps rows); "
          f"{len(failed)} calls failed; {sum(interpreted)} of {len(interpreted)} first "
          f"backwards interpreted; "
          f"{time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
