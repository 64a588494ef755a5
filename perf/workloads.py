"""The benchmark workloads W1-W6, built the same way in jitgrad, torch and JAX.

Every builder takes the same seeded float32 numpy data (`data_*`), so the peers compute the
same numbers; `grads()` of each built workload returns numpy gradients for cross-checks.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

# ---- data -----------------------------------------------------------------------------------

CHAIN_REPLAY = ("sin", "mul", "add", "tanh", "exp")                       # perf/replay.py
CHAIN_W2 = ("sin", "mul", "add", "tanh", "square", "neg", "exp")          # W2
CHAIN_W3 = ("sin", "scale", "shift", "tanh", "exp")                       # W3 (scalars)


def data_chain(kinds: tuple, n_ops: int, size: int, seed: int = 0) -> dict:
    """x0 and one constant vector per mul/add op; values stay bounded along the chain."""
    rng = np.random.default_rng(seed)
    ops = [kinds[i % len(kinds)] for i in range(n_ops)]
    consts = []
    for op in ops:
        if op == "mul":
            consts.append(rng.uniform(0.5, 1.5, size).astype(np.float32))
        elif op == "add":
            consts.append(rng.uniform(-0.5, 0.5, size).astype(np.float32))
        elif op == "scale":
            consts.append(np.float32(rng.uniform(0.5, 1.5)))
        elif op == "shift":
            consts.append(np.float32(rng.uniform(-0.5, 0.5)))
        else:
            consts.append(None)
    return {"x": rng.uniform(-1, 1, size).astype(np.float32), "ops": ops, "consts": consts}


def data_mlp(sizes: tuple, batch: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    Ws = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)
          for a, b in zip(sizes[:-1], sizes[1:])]
    bs = [(0.1 * rng.standard_normal(b)).astype(np.float32) for b in sizes[1:]]
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    return {"Ws": Ws, "bs": bs, "x": x}


# ---- jitgrad -------------------------------------------------------------------------------

def _chain_apply(lib: Any, h: Any, ops: list, consts: list) -> Any:
    """The chain in any Paddle/torch-like namespace `lib` (sin/tanh/exp/square functions)."""
    for op, c in zip(ops, consts):
        if op == "sin":
            h = lib.sin(h)
        elif op == "tanh":
            h = lib.tanh(h)
        elif op == "exp":
            h = lib.exp(h)
        elif op == "square":
            h = h * h if lib is None else lib.square(h)
        elif op == "neg":
            h = -h
        elif op in ("mul", "scale"):
            h = h * c
        elif op in ("add", "shift"):
            h = h + c
    return h


class JitgradChain:
    def __init__(self, d: dict) -> None:
        import jitgrad as P
        self.P = P
        self.x = P.to_tensor(d["x"], stop_gradient=False)
        consts = [P.to_tensor(c) if isinstance(c, np.ndarray) and c.ndim else
                  (None if c is None else float(c)) for c in d["consts"]]
        self.loss = P.sum(_chain_apply(P, self.x, d["ops"], consts))

    def backward(self) -> None:
        self.loss.backward(retain_graph=True)

    def grads(self) -> list[np.ndarray]:
        self.x.clear_grad()
        self.backward()
        return [self.x.grad.numpy().copy()]


class TorchChain:
    def __init__(self, d: dict) -> None:
        import torch
        self.x = torch.tensor(d["x"], requires_grad=True)
        consts = [torch.tensor(c) if isinstance(c, np.ndarray) and c.ndim else
                  (None if c is None else float(c)) for c in d["consts"]]
        self.loss = _chain_apply(_TorchLib(torch), self.x, d["ops"], consts).sum()

    def backward(self) -> None:
        self.loss.backward(retain_graph=True)

    def grads(self) -> list[np.ndarray]:
        self.x.grad = None
        self.backward()
        return [self.x.grad.numpy().copy()]


class _TorchLib:
    def __init__(self, torch: Any) -> None:
        self.sin, self.tanh, self.exp, self.square = torch.sin, torch.tanh, torch.exp, \
            torch.square


def _call(fn: Any, ct: Any) -> Any:
    """fn(ct) for a jax.vjp function passed as an argument: jitted, its residuals (the
    Partial's leaves) are the compiled code's inputs, not constants baked into it."""
    return fn(ct)


class JaxChain:
    """JAX's fair counterpart of a retained replay: a jitted call of the vjp function over
    its saved residuals (jax.vjp once, then jit(vjp_fn) replayed). jit(vjp_fn) closes over
    the residuals, so XLA compiles them in as constants (and may fold work on them);
    `backward_args` is the same replay with the residuals passed as arguments."""

    def __init__(self, d: dict) -> None:
        import jax
        import jax.numpy as jnp
        ops = d["ops"]
        consts = [jnp.asarray(c) if c is not None else None for c in d["consts"]]

        def f(x):
            return jnp.sum(_chain_apply(jnp, x, ops, consts))

        self.x = jnp.asarray(d["x"])
        _, vjp_fn = jax.vjp(f, self.x)
        self.vjp = jax.jit(vjp_fn)
        self.one = jnp.ones((), jnp.float32)
        self.vjp_fn, self.call = vjp_fn, jax.jit(_call)
        self.backward()

    def backward(self) -> None:
        self.vjp(self.one)[0].block_until_ready()

    def backward_args(self) -> None:
        self.call(self.vjp_fn, self.one)[0].block_until_ready()

    def grads(self) -> list[np.ndarray]:
        return [np.asarray(self.vjp(self.one)[0])]

    def vectors_read(self) -> int:
        """Full-size arrays that XLA's compiled jit(vjp_fn) reads: its folded constants."""
        hlo = self.vjp.lower(self.one).compile().as_text()
        return hlo.count(f"f32[{self.x.size}]{{0}} constant(")


# ---- MLPs ----------------------------------------------------------------------------------

class JitgradMLP:
    """tanh or relu MLP; loss = sum (W1) or mean (W4)."""

    def __init__(self, d: dict, act: str, loss: str) -> None:
        import jitgrad as P
        self.P, self.act, self.loss_kind, self.x = P, act, loss, P.to_tensor(d["x"])
        self.params = []
        for W, b in zip(d["Ws"], d["bs"]):
            self.params += [P.to_tensor(W.copy(), stop_gradient=False),
                            P.to_tensor(b.copy(), stop_gradient=False)]

    def forward(self) -> Any:
        P, h = self.P, self.x
        n = len(self.params) // 2
        for i in range(n):
            h = P.matmul(h, self.params[2 * i]) + self.params[2 * i + 1]
            if i < n - 1:
                h = P.tanh(h) if self.act == "tanh" else P.relu(h)
        return P.sum(h) if self.loss_kind == "sum" else P.mean(h)

    def retain(self) -> None:
        self.loss = self.forward()

    def backward(self) -> None:
        self.loss.backward(retain_graph=True)

    def step(self, lr: float = 1e-3) -> None:
        loss = self.forward()
        loss.backward()
        P = self.P
        with P.no_grad():
            for p in self.params:
                p._data -= lr * p._grad      # the SGD update, in place (numpy level)
                p.clear_grad()

    def grads(self) -> list[np.ndarray]:
        for p in self.params:
            p.clear_grad()
        self.backward()
        return [p.grad.numpy().copy() for p in self.params]


class TorchMLP:
    def __init__(self, d: dict, act: str, loss: str) -> None:
        import torch
        self.torch, self.act, self.loss_kind = torch, act, loss
        self.x = torch.tensor(d["x"])
        self.params = []
        for W, b in zip(d["Ws"], d["bs"]):
            self.params += [torch.tensor(W.copy(), requires_grad=True),
                            torch.tensor(b.copy(), requires_grad=True)]

    def forward(self) -> Any:
        torch, h = self.torch, self.x
        n = len(self.params) // 2
        for i in range(n):
            h = h @ self.params[2 * i] + self.params[2 * i + 1]
            if i < n - 1:
                h = torch.tanh(h) if self.act == "tanh" else torch.relu(h)
        return h.sum() if self.loss_kind == "sum" else h.mean()

    def retain(self) -> None:
        self.loss = self.forward()

    def backward(self) -> None:
        self.loss.backward(retain_graph=True)

    def step(self, lr: float = 1e-3) -> None:
        loss = self.forward()
        loss.backward()
        with self.torch.no_grad():
            for p in self.params:
                p -= lr * p.grad
                p.grad = None

    def grads(self) -> list[np.ndarray]:
        for p in self.params:
            p.grad = None
        self.backward()
        return [p.grad.numpy().copy() for p in self.params]


class JaxMLP:
    def __init__(self, d: dict, act: str, loss: str) -> None:
        import jax
        import jax.numpy as jnp
        self.jax = jax
        x = jnp.asarray(d["x"])
        self.params = [jnp.asarray(a) for W, b in zip(d["Ws"], d["bs"]) for a in (W, b)]

        def f(params):
            h = x
            n = len(params) // 2
            for i in range(n):
                h = h @ params[2 * i] + params[2 * i + 1]
                if i < n - 1:
                    h = jnp.tanh(h) if act == "tanh" else jax.nn.relu(h)
            return jnp.sum(h) if loss == "sum" else jnp.mean(h)

        self.f = f
        self.grad_step = jax.jit(lambda ps, lr: [p - lr * g for p, g in
                                                 zip(ps, jax.grad(f)(ps))])

    def retain(self) -> None:
        _, vjp_fn = self.jax.vjp(self.f, self.params)
        self.vjp = self.jax.jit(vjp_fn)
        self.one = self.jax.numpy.ones((), self.jax.numpy.float32)
        self.vjp_fn, self.call = vjp_fn, self.jax.jit(_call)
        self.backward()

    def backward(self) -> None:
        self.jax.block_until_ready(self.vjp(self.one))

    def backward_args(self) -> None:
        self.jax.block_until_ready(self.call(self.vjp_fn, self.one))

    def step(self, lr: float = 1e-3) -> None:
        self.params = self.grad_step(self.params, lr)
        self.jax.block_until_ready(self.params)

    def grads(self) -> list[np.ndarray]:
        return [np.asarray(g) for g in self.vjp(self.one)[0]]


LIBS: dict[str, dict[str, Callable]] = {
    "jitgrad": {"chain": JitgradChain, "mlp": JitgradMLP},
    "torch": {"chain": TorchChain, "mlp": TorchMLP},
    "jax": {"chain": JaxChain, "mlp": JaxMLP},
}
