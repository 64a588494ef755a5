"""Random compositions of public ops through the production path.

test_op_cache.py sends every registry op through the production path one at a time and
test_cache_fuzz.py sends random user actions through one model family; here a seeded
generator builds random small graphs (2-8 ops over 1-3 leaf parameters and constants) from
a broad set of public ops -- elementwise unary and binary ops with broadcasting and mixed
float32/float64 operands, reductions, matmul, softmax, shape and indexing ops, cumsum,
gather, layer_norm, casts, in-place ops and __setitem__ -- with fan-out (a value used by
several ops) and a leaf used at several places, so that the peephole fusion across ops,
slot reuse, externals, folded replays and the cache hit's binding of a new graph's values
see compositions no per-op test makes.

Each graph, loss = f(params, consts), runs as a user's would, with production's settings
(interpret_new on, a fresh program cache, the compiled interpreter):

  a. variant 0: loss.backward()            first sighting: interpreted
  b. variant 1: loss.backward()            recurs: lowered and cached
  c. variant 2: loss.backward()            a cache hit binding new values (also checked
                                           bitwise against a fresh lowering, cache off)
  d. variant 3: backward(retain_graph=True) three times: a hit, a retained replay and a
                                           folded replay; .grad holds 3x the gradient
  e. variant 4: paddle.grad(loss, params)  default arguments; .grad stays None; then
                                           retain_graph=True twice (a replay) and a
                                           backward of the same graph
  h. the loss's terms as several roots of one backward
  i. the values the terms reduce (not scalars, some float64) as roots, with random
     cotangents; d2. the same retained, other cotangents at each of three calls (a folded
     replay must not depend on the seed)
  t. a training loop: the same leaves, new constants each step, and between steps
     `.grad = None`, clear_grad(), an update under no_grad, or accumulation
  f. variant 0's leaves again, a new graph: .grad accumulates to 2x
  g. a sibling graph: the same ops and shapes, other attributes (clip bounds, exponents,
     axes, slice offsets, ...), run after the above in the same cache: a key that misses
     an attribute would bind it to the wrong Program.

A quarter of the graphs are big (values of up to 70k elements), so that folded replays,
externals and slot reuse, which start at a few thousand elements, take part.
test_recipes_sharing_one_cache runs many recipes through one cache, at the end one too
small to keep them.

A structure that misses the cache at step c fails unless its reason is one of
KNOWN_UNCACHEABLE (known cacheability bugs, excluded explicitly).

Every gradient is compared with an independent reference: the same graph lowered with
the program cache, the peephole passes and externals off, run by the numpy reference
interpreter. Graphs without kinks (relu, abs, max, clip, ...) are also built in float64,
their gradients (interpreted and lowered) checked against central finite differences
along random directions, and the float32 gradients against the float64 ones. A `.grad`
kept from an earlier step must not change in later steps.

JITGRAD_COMPOSE_SEEDS=N runs N seeds instead of the default (a longer hunt);
JITGRAD_COMPOSE_START=S starts at seed S; JITGRAD_COMPOSE_VERIFY=1 also checks every cache
hit's Program against a fresh lowering (config.verify_cache: slower);
JITGRAD_COMPOSE_MAX_OPS=M builds graphs of up to M ops instead of 8.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad import vm
from jitgrad.compile import executor
from jitgrad.core import config

F = paddle.nn.functional

DEFAULT_SEEDS = 300               # (~17 s; the hunt that found bugN.py ran ~40k)
N_SEEDS = int(os.environ.get("JITGRAD_COMPOSE_SEEDS", "0") or 0) or DEFAULT_SEEDS
START = int(os.environ.get("JITGRAD_COMPOSE_START", "0") or 0)
VERIFY = os.environ.get("JITGRAD_COMPOSE_VERIFY", "") not in ("", "0")
MAX_OPS = int(os.environ.get("JITGRAD_COMPOSE_MAX_OPS", "0") or 0) or 8

MAX_NUMEL = 240
# A quarter of the graphs are big: values past the sizes where a retained replay folds
# its chains (fold.MIN_WORK), saved values are read in place (external.MIN_ELEMENTS) and
# slots are reused (slot_layout.REUSE_MIN).
BIG_NUMEL = 70000
BIG_DIMS = (1, 2, 3, 96, 129, 160, 200)
MAX_NDIM = 4
MAX_ABS = 1e3          # graphs whose values grow beyond this are redrawn

# ops whose derivative has a kink or a tie, and detach (whose gradient is not the
# function's): no finite-difference check for their graphs
KINKS = {"relu", "abs", "sqrt_abs", "log_abs", "clip", "maximum", "minimum", "max", "min",
         "inplace_clip_", "detach"}


# ---- the ops: (tensors, attrs, base dtype) -> tuple of Tensors ------------------------------

def _other(base):
    """The dtype an astype step goes to: float64 from float32 (and float64 when the whole
    graph is float64, the finite-difference build)."""
    return "float64"


def _item(it):
    kind = it[0]
    if kind == "f":
        return slice(None)
    if kind == "i":
        return it[1]
    if kind == "r":
        return slice(None, None, -1)
    _, a, cnt, step = it
    return slice(a, a + (cnt - 1) * step + 1, step)


def _index(items):
    return tuple(_item(it) for it in items)


def _bin(name, x, y, at):
    if at.get("swap"):
        x, y = y, x
    form = at.get("form", "fn")
    if name == "add":
        return paddle.add(x, y) if form == "fn" else x + y
    if name == "subtract":
        return paddle.subtract(x, y) if form == "fn" else x - y
    if name == "multiply":
        return paddle.multiply(x, y) if form == "fn" else x * y
    if name == "maximum":
        return paddle.maximum(x, y)
    if name == "minimum":
        return paddle.minimum(x, y)
    raise KeyError(name)


def _unary(name, x, at):
    if name == "tanh":
        return paddle.tanh(x)
    if name == "exp":
        return paddle.exp(x)
    if name == "sin":
        return paddle.sin(x)
    if name == "sigmoid":
        return F.sigmoid(x)
    if name == "relu":
        return F.relu(x)
    if name == "square":
        return paddle.square(x)
    if name == "sqrt_abs":
        return paddle.sqrt(paddle.abs(x) + 0.1)
    if name == "sqrt_smooth":
        return paddle.sqrt(x * x + 0.5)
    if name == "abs":
        return paddle.abs(x)
    if name == "clip":
        return paddle.clip(x, at["lo"], at["hi"])
    if name == "pow_int":
        return paddle.pow(x, at["k"]) if at["form"] == "fn" else x ** at["k"]
    if name == "pow_frac":
        return paddle.pow(x * x + 1.0, at["p"])
    if name == "log_abs":
        return paddle.log(paddle.abs(x) + 1.0)
    if name == "log_smooth":
        return paddle.log(x * x + 1.0)
    if name == "neg":
        return -x
    if name == "detach":
        return x.detach() * x
    if name == "scale":
        s, b, form = at["s"], at["b"], at["form"]
        if form == "mul":
            return x * s + b
        if form == "rsub":
            return b - x
        if form == "div":
            return x / s
        if form == "rdiv":
            return s / (x * x + 1.0)
        return paddle.scale(x, s, b)
    raise KeyError(name)


UNARY = ("tanh", "exp", "sin", "sigmoid", "relu", "square", "sqrt_abs", "sqrt_smooth", "abs",
         "clip", "pow_int", "pow_frac", "log_abs", "log_smooth", "neg", "scale", "detach")


def run_step(op, args, at, base):
    x = args[0]
    if op in UNARY:
        return (_unary(op, x, at),)
    if op in ("add", "subtract", "multiply", "maximum", "minimum"):
        return (_bin(op, x, args[1], at),)
    if op == "divide":
        y = args[1]
        if at["den"] == "sq":
            y = y * y + 1.0
        return (paddle.divide(x, y) if at["form"] == "fn" else x / y,)
    if op == "where":
        return (paddle.where(args[2], x, args[1]),)
    if op in ("sum", "mean", "max", "min", "logsumexp"):
        fn = {"sum": paddle.sum, "mean": paddle.mean, "max": paddle.max, "min": paddle.min,
              "logsumexp": paddle.logsumexp}[op]
        if at["method"]:
            return (getattr(x, op)(axis=at["axis"], keepdim=at["keepdim"]),)
        return (fn(x, axis=at["axis"], keepdim=at["keepdim"]),)
    if op == "matmul":
        return (paddle.matmul(x, args[1], transpose_x=at["tx"], transpose_y=at["ty"]),)
    if op == "softmax":
        return (F.softmax(x, axis=at["axis"]),)
    if op == "log_softmax":
        return (F.log_softmax(x, axis=at["axis"]),)
    if op == "reshape":
        return (paddle.reshape(x, at["shape"]) if at["form"] == "fn" else x.reshape(at["shape"]),)
    if op == "transpose":
        return (paddle.transpose(x, at["perm"]),)
    if op == "getitem":
        return (x[_index(at["items"])],)
    if op == "concat":
        return (paddle.concat(list(args), axis=at["axis"]),)
    if op == "stack":
        return (paddle.stack(list(args), axis=at["axis"]),)
    if op == "split":
        return tuple(paddle.split(x, at["sections"], axis=at["axis"]))
    if op == "flip":
        return (paddle.flip(x, at["axes"]),)
    if op == "pad":
        return (F.pad(x, at["pad"], value=at["value"]),)
    if op == "expand":
        return (paddle.expand(x, at["shape"]),)
    if op == "unsqueeze":
        return (paddle.unsqueeze(x, at["axis"]),)
    if op == "cumsum":
        return (paddle.cumsum(x, axis=at["axis"]),)
    if op == "gather":
        return (paddle.gather(x, args[1], axis=at["axis"]),)
    if op == "index_select":
        return (paddle.index_select(x, args[1], axis=at["axis"]),)
    if op == "layer_norm":
        w = args[1] if at["w"] else None
        b = args[1 + at["w"]] if at["b"] else None
        return (F.layer_norm(x, at["nshape"], weight=w, bias=b),)
    if op == "astype":      # (cast: a new value even to x's own dtype, where x.astype is x)
        return (paddle.cast(x, _other(base) if at["to"] == "o" else base),)
    if op == "inplace":
        t = _pre(x, at)
        name = at["name"]
        if name in ("add_", "subtract_", "multiply_"):
            getattr(t, name)(args[1])
        elif name == "scale_":
            t.scale_(at["s2"], at["b2"])
        elif name == "clip_":
            t.clip_(at["lo"], at["hi"])
        else:
            getattr(t, name)()
        return (t,)
    if op == "setitem":
        t = _pre(x, at)
        t[_index(at["items"])] = args[1] if len(args) > 1 else at["scalar"]
        return (t,)
    raise KeyError(op)


def _pre(x, at):
    """What an in-place step writes into: a new value (x scaled, sliced, flattened or
    transposed), or x itself ('direct': a non-leaf other ops may have read already)."""
    pre = at.get("pre", "scale")
    if pre == "scale":
        return x * at["s"]
    if pre == "slice":
        return x[_index(at["pitems"])]
    if pre == "flat":
        return x.reshape([-1])
    if pre == "transpose":
        return x.t() if x.ndim == 2 else paddle.transpose(x, list(range(x.ndim))[::-1])
    return x


def _pre_shape(shape, at):
    pre = at.get("pre", "scale")
    if pre == "slice":
        return tuple(np.empty(shape)[_index(at["pitems"])].shape)
    if pre == "flat":
        return (int(np.prod(shape)),)
    if pre == "transpose":
        return tuple(shape)[::-1]
    return tuple(shape)


def _dtype(t):
    return str(t.dtype).replace("paddle.", "")


def build(rec, params, consts, base, terms=None):
    """The loss of recipe `rec` (and every value it computed; its terms into `terms`)."""
    vals = list(params)
    for st in rec["steps"]:
        args = [vals[i] if k == "v" else consts[i] for k, i in st["ins"]]
        vals.extend(run_step(st["op"], args, st["at"], base))
    loss = None
    for ref, kind, c in rec["loss"]:
        v = vals[ref]
        if _dtype(v) != base:
            v = v.astype(base)
        if kind == "wsum":
            term = (v * consts[c]).sum()
        elif kind == "mean":
            term = v.mean()
        else:
            term = (v * v).sum() * 0.5
        if terms is not None:
            terms.append(term)
        loss = term if loss is None else loss + term
    return loss, vals


# ---- values -----------------------------------------------------------------------------------

def _rng(rec, variant, kind, i):
    return np.random.default_rng([rec["seed"], rec["attempt"], variant, kind, i])


def draw_param(rec, variant, i, base="float32"):
    shape = rec["params"][i]
    return (_rng(rec, variant, 0, i).standard_normal(shape) * 0.8).astype(base)


def draw_const(rec, variant, j, base="float32"):
    spec = rec["consts"][j]
    r = _rng(rec, variant, 1, j)
    kind, shape = spec["kind"], spec["shape"]
    if kind == "normal":
        return r.standard_normal(shape).astype(base)
    if kind == "pos":
        return r.uniform(0.5, 1.5, shape).astype(base)
    if kind == "index":
        return r.integers(0, spec["hi"], shape).astype(np.int64)
    if kind == "mask":
        return r.random(shape) < 0.5
    raise KeyError(kind)


def make_inputs(rec, variant, base="float32", params=None):
    if params is None:
        params = [paddle.to_tensor(draw_param(rec, variant, i, base), stop_gradient=False)
                  for i in range(len(rec["params"]))]
    consts = [paddle.to_tensor(draw_const(rec, variant, j, base))
              for j in range(len(rec["consts"]))]
    return params, consts


# ---- the generator ----------------------------------------------------------------------------

class _Reject(Exception):
    pass


class Gen:
    """Builds a recipe step by step, each step run at once on variant 0's values (float32,
    no_grad) to learn its shapes. `rng` decides the structure; `frng` decides the free
    attributes that change no shape, so a sibling (another `fseed`) has the same
    structure and other attributes."""

    def __init__(self, seed, attempt, fseed=0):
        self.rng = random.Random(f"compose/{seed}/{attempt}")
        self.frng = random.Random(f"compose/{seed}/{attempt}/free/{fseed}")
        self.rec = {"seed": seed, "attempt": attempt, "fseed": fseed, "params": [],
                    "consts": [], "steps": [], "loss": []}
        self.vals, self.uses, self.cvals = [], [], []

    # values and constants
    def shape(self, i):
        return tuple(self.vals[i].shape)

    def dt(self, i):
        return _dtype(self.vals[i])

    def const(self, kind, shape, hi=None):
        spec = {"kind": kind, "shape": tuple(shape)}
        if hi is not None:
            spec["hi"] = hi
        self.rec["consts"].append(spec)
        j = len(self.rec["consts"]) - 1
        self.cvals.append(paddle.to_tensor(draw_const(self.rec, 0, j)))
        return ("c", j)

    def pick(self, pred=lambda i: True):
        cands = [i for i in range(len(self.vals)) if pred(i)]
        if not cands:
            return None
        last = len(self.vals) - 1
        if last in cands and self.rng.random() < 0.55:
            return last
        return self.rng.choice(cands)

    def emit(self, op, ins, at):
        """Run the step on the trial values; keep it when its outputs are small enough."""
        args = [self.vals[i] if k == "v" else self.cvals[i] for k, i in ins]
        with paddle.no_grad():
            outs = run_step(op, args, at, "float32")
        for o in outs:
            if o.ndim > MAX_NDIM or o.size > self.max_numel:
                raise _Reject
        self.rec["steps"].append({"op": op, "ins": list(ins), "at": at})
        for k, i in ins:
            if k == "v":
                self.uses[i] += 1
        for o in outs:
            self.vals.append(o)
            self.uses.append(0)
        return True

    # shapes
    def dim(self):
        return self.rng.choice(BIG_DIMS if self.big else (1, 2, 2, 3, 3, 4, 5))

    def partner_shape(self, shape):
        """A shape that broadcasts with `shape` (same, trailing dims, ones, 0-d, or one
        more leading dim)."""
        r = self.rng.random()
        nd = len(shape)
        if r < 0.35 or nd == 0:
            return tuple(shape) if r < 0.9 or nd == 0 else ()
        if r < 0.55:
            return tuple(shape[self.rng.randrange(0, nd + 1):])
        if r < 0.8:
            return tuple(1 if self.rng.random() < 0.5 else s for s in shape)
        if r < 0.9:
            return ()
        return (self.rng.choice((2, 3)),) + tuple(shape)

    def partner(self, shape, dtype, same_dtype=False, into=False, kind="normal"):
        """A second operand: a value (or a leaf) already in the graph whose shape
        broadcasts with `shape` (fan-out), or a new constant. `into`: the result must keep
        `shape` (an in-place op's operand)."""
        def ok(i):
            if same_dtype and self.dt(i) != dtype:
                return False
            try:
                out = np.broadcast_shapes(shape, self.shape(i))
            except ValueError:
                return False
            if into and out != tuple(shape):
                return False
            return len(out) <= MAX_NDIM and int(np.prod(out)) <= self.max_numel
        if self.rng.random() < 0.5:
            i = self.pick(ok)
            if i is not None:
                return ("v", i)
        ps = self.partner_shape(shape)
        if into and np.broadcast_shapes(shape, ps) != tuple(shape):
            ps = tuple(shape)
        return self.const(kind, ps)

    # the families
    def g_unary(self):
        x = self.pick()
        op = self.rng.choice(UNARY)
        f = self.frng
        at = {}
        if op == "clip":
            at = {"lo": round(-f.uniform(0.2, 1.0), 3), "hi": round(f.uniform(0.2, 1.0), 3)}
        elif op == "pow_int":
            at = {"k": f.choice((2, 3)), "form": self.rng.choice(("fn", "op"))}
        elif op == "pow_frac":
            at = {"p": f.choice((0.5, 1.5, -0.5))}
        elif op == "scale":
            at = {"s": round(f.choice((-1, 1)) * f.uniform(0.5, 2.0), 3),
                  "b": round(f.uniform(-1, 1), 3),
                  "form": self.rng.choice(("mul", "rsub", "div", "rdiv", "fn"))}
        return self.emit(op, [("v", x)], at)

    def g_binary(self):
        x = self.pick()
        op = self.rng.choice(("add", "subtract", "multiply", "divide", "maximum", "minimum",
                              "where"))
        y = self.partner(self.shape(x), self.dt(x), same_dtype=op == "where",
                         kind="pos" if op == "divide" and self.rng.random() < 0.5 else
                         "normal")
        at = {"form": self.rng.choice(("fn", "op")), "swap": self.rng.random() < 0.3}
        ins = [("v", x), y]
        if op == "divide":
            yk, yi = y
            at = {"form": at["form"], "den": "none" if yk == "c" and
                  self.rec["consts"][yi]["kind"] == "pos" else "sq"}
        if op == "where":
            ys = self.shape(y[1]) if y[0] == "v" else self.rec["consts"][y[1]]["shape"]
            full = np.broadcast_shapes(self.shape(x), ys)
            ins.append(self.const("mask", self.partner_shape(full) if self.rng.random() < 0.5
                                  else full))
        return self.emit(op, ins, at)

    def g_reduce(self):
        x = self.pick()
        nd = len(self.shape(x))
        op = self.rng.choice(("sum", "mean", "max", "min", "logsumexp"))
        r = self.rng.random()
        if nd == 0 or r < 0.25:
            axis = None
        elif r < 0.7:
            axis = self.rng.randrange(-nd, nd)
        else:
            k = self.rng.randint(1, nd)
            axis = [a - nd if self.rng.random() < 0.3 else a
                    for a in self.rng.sample(range(nd), k)]
        at = {"axis": axis, "keepdim": self.rng.random() < 0.4,
              "method": op != "logsumexp" and self.rng.random() < 0.3}
        return self.emit(op, [("v", x)], at)

    def g_matmul(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 1)
        if x is None:
            return False
        xs = self.shape(x)
        tx = len(xs) >= 2 and self.rng.random() < 0.25
        k = xs[-2] if tx else xs[-1]
        r = self.rng.random()
        if r < 0.2:
            ys = (k,)
        elif r < 0.8 or len(xs) < 2:
            ys = (k, self.dim())
        else:
            ys = (xs[-3] if len(xs) >= 3 else self.rng.choice((2, 3)), k, self.dim())
        ty = len(ys) >= 2 and self.rng.random() < 0.3
        if ty:
            ys = ys[:-2] + (ys[-1], ys[-2])
        cands = [i for i in range(len(self.vals))
                 if self.shape(i) == ys and self.dt(i) == self.dt(x)]
        if cands and self.rng.random() < 0.6:
            y = ("v", self.rng.choice(cands))
        else:
            y = self.const("normal", ys)
        return self.emit("matmul", [("v", x), y], {"tx": tx, "ty": ty})

    def g_softmax(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 1)
        if x is None:
            return False
        nd = len(self.shape(x))
        op = self.rng.choice(("softmax", "log_softmax"))
        return self.emit(op, [("v", x)], {"axis": self.frng.randrange(-nd, nd)})

    def g_cumsum(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 1)
        if x is None:
            return False
        nd = len(self.shape(x))
        return self.emit("cumsum", [("v", x)], {"axis": self.frng.randrange(-nd, nd)})

    def g_reshape(self):
        x = self.pick()
        s = list(self.shape(x))
        r = self.rng.random()
        if not s:
            new = [1]
        elif r < 0.2:
            new = [-1]
        elif r < 0.45 and len(s) >= 2:
            i = self.rng.randrange(len(s) - 1)
            new = s[:i] + [s[i] * s[i + 1]] + s[i + 2:]
        elif r < 0.7 and any(d in (4, 6, 9) or d % 2 == 0 and d > 2 for d in s):
            i = self.rng.choice([i for i, d in enumerate(s) if d in (4, 6, 9) or
                                 d % 2 == 0 and d > 2])
            f = 3 if s[i] % 3 == 0 else 2
            new = s[:i] + [f, s[i] // f] + s[i + 1:]
        else:
            i = self.rng.randrange(len(s) + 1)
            new = s[:i] + [1] + s[i:]
        if len(new) > 1 and self.rng.random() < 0.3:
            new[self.rng.randrange(len(new))] = -1
        return self.emit("reshape", [("v", x)], {"shape": new,
                                                 "form": self.rng.choice(("fn", "method"))})

    def g_transpose(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 2)
        if x is None:
            return False
        nd = len(self.shape(x))
        perm = list(range(nd))
        while perm == list(range(nd)):
            self.rng.shuffle(perm)
        return self.emit("transpose", [("v", x)], {"perm": perm})

    def _items(self, shape, min_items=1):
        items = []
        n = self.rng.randint(min_items, len(shape))
        for d in shape[:n]:
            r = self.rng.random()
            if r < 0.25:
                items.append(("f",))
            elif r < 0.45:
                items.append(("i", self.frng.randrange(-d, d)))
            elif r < 0.52 and d > 1:
                items.append(("r",))
            else:
                step = 2 if d >= 3 and self.rng.random() < 0.3 else 1
                cnt = self.rng.randint(1, (d - 1) // step + 1)
                a = self.frng.randrange(0, d - ((cnt - 1) * step + 1) + 1)
                items.append(("s", a, cnt, step))
        return items

    def g_getitem(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 1)
        if x is None:
            return False
        return self.emit("getitem", [("v", x)], {"items": self._items(self.shape(x))})

    def g_concat(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 1)
        if x is None:
            return False
        xs = self.shape(x)
        nd = len(xs)
        a = self.rng.randrange(nd)
        ins = [("v", x)]
        for _ in range(self.rng.choice((1, 1, 2))):
            cands = [i for i in range(len(self.vals)) if len(self.shape(i)) == nd and
                     self.dt(i) == self.dt(x) and
                     all(p == q for j, (p, q) in enumerate(zip(self.shape(i), xs)) if j != a)]
            if self.rng.random() < 0.6:
                ins.append(("v", self.rng.choice(cands)))       # x itself is a candidate
            else:
                ins.append(self.const("normal", xs[:a] + (self.rng.randint(1, 3),) +
                                      xs[a + 1:]))
        if self.rng.random() < 0.3:
            self.rng.shuffle(ins)
        return self.emit("concat", ins, {"axis": a - nd if self.rng.random() < 0.3 else a})

    def g_stack(self):
        x = self.pick()
        xs = self.shape(x)
        cands = [i for i in range(len(self.vals)) if self.shape(i) == xs and
                 self.dt(i) == self.dt(x)]
        y = ("v", self.rng.choice(cands)) if self.rng.random() < 0.6 else \
            self.const("normal", xs)
        nd = len(xs)
        return self.emit("stack", [("v", x), y], {"axis": self.rng.randrange(-nd - 1, nd + 1)})

    def g_split(self):
        x = self.pick(lambda i: any(d >= 2 for d in self.shape(i)))
        if x is None:
            return False
        xs = self.shape(x)
        a = self.rng.choice([j for j, d in enumerate(xs) if d >= 2])
        d = xs[a]
        divs = [k for k in range(2, d + 1) if d % k == 0]
        if self.rng.random() < 0.5:
            sections = self.rng.choice(divs)
        else:
            cut = sorted(self.rng.sample(range(1, d), self.rng.randint(1, min(2, d - 1))))
            sections = [q - p for p, q in zip([0] + cut, cut + [d])]
            if self.rng.random() < 0.3:
                sections[self.rng.randrange(len(sections))] = -1
        return self.emit("split", [("v", x)], {"sections": sections, "axis": a})

    def g_flip(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 1)
        if x is None:
            return False
        nd = len(self.shape(x))
        axes = self.frng.sample(range(nd), self.frng.randint(1, nd))
        return self.emit("flip", [("v", x)], {"axes": axes})

    def g_pad(self):
        x = self.pick(lambda i: 1 <= len(self.shape(i)) <= 3)
        if x is None:
            return False
        nd = len(self.shape(x))
        pad = [self.rng.choice((0, 0, 1, 2)) for _ in range(2 * nd)]
        return self.emit("pad", [("v", x)], {"pad": pad,
                                             "value": self.frng.choice((0.0, 0.5, -1.0))})

    def g_expand(self):
        x = self.pick()
        xs = list(self.shape(x))
        ones = [j for j, d in enumerate(xs) if d == 1]
        if ones and self.rng.random() < 0.6:
            new = list(xs)
            new[self.rng.choice(ones)] = self.rng.choice((2, 3))
            new = [-1 if d == o and d != 1 and self.rng.random() < 0.3 else d
                   for d, o in zip(new, xs)]
        else:
            new = [self.rng.choice((2, 3))] + xs
        return self.emit("expand", [("v", x)], {"shape": new})

    def g_unsqueeze(self):
        x = self.pick()
        nd = len(self.shape(x))
        return self.emit("unsqueeze", [("v", x)], {"axis": self.rng.randrange(-nd - 1, nd + 1)})

    def g_gather(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 1)
        if x is None:
            return False
        xs = self.shape(x)
        a = self.rng.randrange(len(xs))
        idx = self.const("index", (self.rng.randint(1, 300 if self.big else 4),), hi=xs[a])
        op = self.rng.choice(("gather", "index_select"))
        return self.emit(op, [("v", x), idx], {"axis": a})

    def g_layer_norm(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 1 and self.shape(i)[-1] >= 2)
        if x is None:
            return False
        xs = self.shape(x)
        k = 2 if len(xs) >= 2 and self.rng.random() < 0.3 else 1
        ns = xs[-k:]
        at = {"nshape": list(ns), "w": self.rng.random() < 0.6, "b": self.rng.random() < 0.5}
        ins = [("v", x)]
        for flag, kind in (("w", "pos"), ("b", "normal")):
            if at[flag]:
                cands = [i for i in range(len(self.vals)) if self.shape(i) == ns and
                         self.dt(i) == self.dt(x)]
                ins.append(("v", self.rng.choice(cands)) if cands and self.rng.random() < 0.6
                           else self.const(kind, ns))
        return self.emit("layer_norm", ins, at)

    def g_astype(self):
        x = self.pick()
        return self.emit("astype", [("v", x)], {"to": "b" if self.dt(x) == "float64" and
                                                self.rng.random() < 0.7 else "o"})

    def _pre_at(self, x):
        """An in-place step's target: x scaled (a new value), a slice, a flattened or
        transposed x, or x itself when it is not a leaf."""
        xs = self.shape(x)
        opts = ["scale", "scale", "flat"]
        if xs:
            opts.append("slice")
        if len(xs) >= 2:
            opts.append("transpose")
        # Known bug4, excluded: a reshape (expand, concat of one, ...) to the shape x
        # already has returns x itself, so a 1-D leaf's x.reshape([-1]), or a value that
        # is a leaf under another name, would be written in place, which refuses.
        leaf = any(self.vals[x] is self.vals[i] for i in range(len(self.rec["params"])))
        if not leaf:
            opts += ["direct", "direct"]
        elif len(xs) == 1:
            opts.remove("flat")
        at = {"pre": self.rng.choice(opts), "s": round(self.frng.uniform(0.5, 1.5), 3)}
        if at["pre"] == "slice":
            at["pitems"] = self._items(xs)
        return at, _pre_shape(xs, at)

    def g_inplace(self):
        x = self.pick()
        name = self.rng.choice(("add_", "subtract_", "multiply_", "tanh_", "sigmoid_",
                                "square_", "scale_", "clip_", "sin_", "exp_"))
        f = self.frng
        at, xs = self._pre_at(x)
        at["name"] = name
        ins = [("v", x)]
        if name in ("add_", "subtract_", "multiply_"):
            ins.append(self.partner(xs, self.dt(x), into=True))
        elif name == "scale_":
            at.update(s2=round(f.uniform(-2, 2), 3), b2=round(f.uniform(-1, 1), 3))
        elif name == "clip_":
            at.update(lo=round(-f.uniform(0.2, 1.0), 3), hi=round(f.uniform(0.2, 1.0), 3))
        return self.emit("inplace", ins, at)

    def g_setitem(self):
        x = self.pick(lambda i: len(self.shape(i)) >= 1)
        if x is None:
            return False
        at, xs = self._pre_at(x)
        if not xs:
            return False
        items = self._items(xs)
        sub = tuple(np.empty(xs)[_index(items)].shape)
        at.update(items=items, scalar=round(self.frng.uniform(-1, 1), 3))
        ins = [("v", x)]
        if self.rng.random() < 0.8:
            ins.append(self.partner(sub, self.dt(x), same_dtype=True, into=True))
        return self.emit("setitem", ins, at)

    FAMILIES = (("g_unary", 3.0), ("g_binary", 3.0), ("g_reduce", 1.5), ("g_matmul", 1.0),
                ("g_softmax", 0.8), ("g_cumsum", 0.5), ("g_reshape", 0.6),
                ("g_transpose", 0.6), ("g_getitem", 0.8), ("g_concat", 0.6),
                ("g_stack", 0.5), ("g_split", 0.5), ("g_flip", 0.5), ("g_pad", 0.5),
                ("g_expand", 0.5), ("g_unsqueeze", 0.4), ("g_gather", 0.7),
                ("g_layer_norm", 0.6), ("g_astype", 0.7), ("g_inplace", 0.8),
                ("g_setitem", 0.6))

    def generate(self):
        rng = self.rng
        self.big = rng.random() < 0.25
        self.rec["big"] = self.big
        self.max_numel = BIG_NUMEL if self.big else MAX_NUMEL
        for i in range(rng.choice((1, 1, 2, 2, 3))):
            shape = None
            while shape is None or np.prod(shape) > self.max_numel // 2:
                r = rng.random()
                shape = () if r < 0.08 else (self.dim(),) if r < 0.35 else \
                    (self.dim(), self.dim()) if r < 0.8 else \
                    (self.dim(), self.dim(), self.dim())
            self.rec["params"].append(shape)
            self.vals.append(paddle.to_tensor(draw_param(self.rec, 0, i)))
            self.uses.append(0)
        names = [n for n, _ in self.FAMILIES]
        # (big graphs: more elementwise chains, which fused and folded rows are made of)
        weights = [w * (3 if self.big and n == "g_unary" else 1) for n, w in self.FAMILIES]
        nops = rng.randint(2, MAX_OPS)
        tries = 0
        while len(self.rec["steps"]) < nops and tries < 100:
            tries += 1
            fam = rng.choices(names, weights)[0]
            n_consts = len(self.rec["consts"])
            try:
                getattr(self, fam)()
            except _Reject:
                del self.rec["consts"][n_consts:]
                del self.cvals[n_consts:]
        npar = len(self.rec["params"])
        last = len(self.vals) - 1
        for i in range(npar, len(self.vals)):
            if self.uses[i] == 0 and (i == last or rng.random() < 0.75):
                kind = rng.choice(("wsum", "wsum", "mean", "sq"))
                c = None
                if kind == "wsum":
                    c = self.const("normal", self.shape(i))[1]
                self.rec["loss"].append((i, kind, c))
        return self.rec


# (parameter variant, constant variant) of every graph check_seed builds
COMBOS = [(v, v) for v in range(8)] + [(8, 9 + step) for step in range(5)]


def _values_ok(rec, variant, base, const_variant=None):
    """Every value finite and moderate, and every layer_norm's input spread out (at a
    variance near 0 its gradient is dominated by epsilon: ill-conditioned, not wrong)."""
    params = [paddle.to_tensor(draw_param(rec, variant, i, base))
              for i in range(len(rec["params"]))]
    consts = make_inputs(rec, variant if const_variant is None else const_variant, base,
                         params=[])[1]
    with paddle.no_grad():
        loss, vals = build(rec, params, consts, base)
    for v in vals + [loss]:
        a = v.numpy()
        if a.dtype.kind == "f" and a.size and not (np.all(np.isfinite(a)) and
                                                   np.abs(a).max() <= MAX_ABS):
            return False
    for st in rec["steps"]:
        if st["op"] == "layer_norm" and st["ins"][0][0] == "v":
            a = vals[st["ins"][0][1]].numpy().astype(np.float64)
            k = len(st["at"]["nshape"])
            if a.size and a.var(axis=tuple(range(a.ndim - k, a.ndim))).min() < 1e-2:
                return False
    return True


def smooth(rec):
    return not any(st["op"] in KINKS or st["op"] == "inplace" and st["at"]["name"] == "clip_"
                   for st in rec["steps"])


def recipe(seed, fseed=0, attempt=None):
    """The recipe for `seed` (its first attempt whose values all stay moderate), or, with
    `attempt`, that attempt's structure with free attributes drawn by `fseed` (None when
    its values do not stay moderate)."""
    attempts = [attempt] if attempt is not None else range(40)
    for a in attempts:
        rec = Gen(seed, a, fseed).generate()
        if all(_values_ok(rec, v, "float32", c) for v, c in COMBOS) and \
                (not smooth(rec) or _values_ok(rec, 0, "float64")):
            return rec
    if attempt is not None:
        return None
    raise AssertionError(f"seed {seed}: no recipe with moderate values")


def describe(rec):
    lines = [f"seed={rec['seed']} attempt={rec['attempt']} fseed={rec['fseed']} big={rec['big']}"]
    n = len(rec["params"])
    lines += [f"  v{i} = param{list(s)}" for i, s in enumerate(rec["params"])]
    for j, c in enumerate(rec["consts"]):
        lines.append(f"  c{j} = {c}")
    k = n
    for st in rec["steps"]:
        ins = ", ".join(f"{a}{i}" for a, i in st["ins"])
        lines.append(f"  v{k}.. = {st['op']}({ins}) {st['at']}")
        k += 1 if st["op"] != "split" else (
            st["at"]["sections"] if isinstance(st["at"]["sections"], int)
            else len(st["at"]["sections"]))
    lines.append(f"  loss = {rec['loss']}")
    return "\n".join(lines)


# ---- the runs ---------------------------------------------------------------------------------

def _grads(params):
    return [None if p.grad is None else p.grad.numpy().copy() for p in params]


def root_seeds(rec, roots, variant, base="float32"):
    seeds = []
    for k, r in enumerate(roots):
        a = _rng(rec, variant, 2, k).standard_normal(tuple(r.shape))
        seeds.append(paddle.to_tensor(a.astype(base if base == "float64" else _dtype(r))))
    return seeds


def backward_roots(rec, params, consts, variant, seed_variants=None, retain=False,
                   base="float32"):
    """autograd.backward from the values the loss's terms reduce (not scalars, some
    float64), each with a random cotangent (one backward per seed variant)."""
    _, vals = build(rec, params, consts, base)
    roots = []
    for ref, _, _ in rec["loss"]:       # (one Tensor under two names is one root)
        if not any(vals[ref] is r for r in roots):
            roots.append(vals[ref])
    for sv in seed_variants or [variant]:
        paddle.autograd.backward(roots, root_seeds(rec, roots, sv, base),
                                 retain_graph=retain)


def reference(rec, variant, base="float32", values=None, roots=False, seed_variants=None):
    """The gradients of a lowering with the program cache, peephole passes and externals
    off, run by the numpy reference interpreter (`values`: the parameters' values instead
    of the variant's; `roots`: backward_roots instead of the loss)."""
    params, consts = make_inputs(rec, variant, base)
    if values is not None:
        params = [paddle.to_tensor(np.asarray(v).astype(base), stop_gradient=False)
                  for v in values]
    with config.override(program_cache=False, peephole=False, copy_values=True), \
            vm.using("reference"):
        if roots:
            backward_roots(rec, params, consts, variant, seed_variants, retain=True,
                           base=base)
        else:
            loss, _ = build(rec, params, consts, base)
            loss.backward()
    return _grads(params)


def fresh_lowering(rec, variant):
    """The gradients of a fresh lowering with the cache off, compiled: bitwise what a
    cache hit must give."""
    params, consts = make_inputs(rec, variant)
    with config.override(program_cache=False):
        loss, _ = build(rec, params, consts, "float32")
        loss.backward()
    return _grads(params)


# Structures known to miss the program cache (gradients right, every step interpreted or
# lowered again): known bugs, excluded from the hit check here, reported separately.
KNOWN_UNCACHEABLE: tuple = ()    # (none left: x.detach() * x and in-place writes after
#                                    a read were the last two)


def uncacheable(rec):
    """Why graphs of this recipe cannot share a Program (None: they can)."""
    from jitgrad.compile.graph import Graph
    from jitgrad.compile.lower import lower
    params, consts = make_inputs(rec, 2)
    loss, _ = build(rec, params, consts, "float32")
    g = Graph([loss])
    if g.reason is not None:
        return g.reason
    return lower([loss], None, None, None)[0].reason


def close(got, want, what, rec, rtol=1e-4, atol=1e-5, exact=False, factor=1.0, truth=None):
    """Each gradient within rtol of its largest element, plus atol times the largest
    element of all of them (at least 1): a gradient that is a cancellation of larger
    terms (a layer_norm's output squared, say) is right only to their rounding. Where
    that fails and `truth` (a function giving the float64 graph's gradients) is given,
    the gradient passes when it is about as close to float64 as the reference (10x its
    distance, or 1e-3 of the largest element): an ill-conditioned graph, whose float32
    gradients differ by the luck of each summation order, not a wrong gradient."""
    assert len(got) == len(want)
    truth_vals = []
    top = max([1.0] + [float(np.abs(w).max()) * factor for w in want
                       if w is not None and np.size(w)])
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None or g is None:
            assert g is None and w is None, \
                f"{what}: param {i} grad {g is None} vs reference {w is None}\n{describe(rec)}"
            continue
        w = np.asarray(w, np.float64) * factor
        g = np.asarray(g)
        assert g.shape == w.shape, f"{what}: param {i} shape {g.shape} vs {w.shape}"
        err = np.abs(g - w).max() if g.size else 0.0
        if exact:
            ok = np.array_equal(g, w)
        else:
            tol = rtol * (np.abs(w).max() if w.size else 0.0) + atol * top
            ok = err <= tol
            if not ok and truth is not None:
                if not truth_vals:
                    truth_vals.append(truth())
                t = np.asarray(truth_vals[0][i], np.float64) * factor
                eg, ew = np.abs(g - t).max(), np.abs(w - t).max()
                ok = eg <= max(10 * ew, 1e-3 * max(1.0, np.abs(t).max())) + tol
                err = f"{err:.3g}; from float64: {eg:.3g}, the reference's {ew:.3g}"
        assert ok, (f"{what}: param {i} max |diff| {err} (max |want| "
                    f"{np.abs(w).max() if w.size else 0:.3g})\n got {g.ravel()[:8]}\n want "
                    f"{w.ravel()[:8]}\n{describe(rec)}")


def fd_check(rec, grads, what):
    """Central differences of the float64 graph along random directions."""
    params0 = [draw_param(rec, 0, i, "float64") for i in range(len(rec["params"]))]
    consts = make_inputs(rec, 0, "float64", params=[])[1]
    rng = np.random.default_rng([rec["seed"], 99])
    h = 2e-6

    def f(ps):
        with paddle.no_grad():
            loss, _ = build(rec, [paddle.to_tensor(p) for p in ps], consts, "float64")
        return float(loss.numpy())

    def central(ds, h):
        return (f([p + h * d for p, d in zip(params0, ds)]) -
                f([p - h * d for p, d in zip(params0, ds)])) / (2 * h)
    for _ in range(2):
        ds = [rng.standard_normal(p.shape) for p in params0]
        fd = (4 * central(ds, h / 2) - central(ds, h)) / 3      # Richardson: error O(h^4)
        an = sum(float(np.sum(g * d)) for g, d in zip(grads, ds) if g is not None)
        scale = sum(float(np.sum(np.abs(g * d))) for g, d in zip(grads, ds) if g is not None)
        assert abs(fd - an) <= 1e-6 * (scale + abs(f(params0))) + 1e-7, \
            f"{what}: finite differences {fd!r} vs gradient {an!r}\n{describe(rec)}"


def check_seed(seed):
    rec = recipe(seed)
    try:
        refs = [reference(rec, v) for v in range(6)]
    except RuntimeError as e:
        # an in-place write into a value a recorded op still needs: the backward must
        # refuse on every path
        params, consts = make_inputs(rec, 0)
        loss, _ = build(rec, params, consts, "float32")
        with pytest.raises(RuntimeError):
            loss.backward()
        assert "in-place" in str(e) or "inplace" in str(e) or "modified" in str(e), e
        return
    def check(got, want, what, rec, variant=None, **kw):
        """close(), with the float64 gradients of `variant` (and kw's reference options)
        as the judge of an ill-conditioned graph."""
        opts = {k: kw.pop(k) for k in ("values", "roots", "seed_variants", "subset", "plus")
                if k in kw}
        r = kw.pop("of", rec)

        def truth():
            sub, plus = opts.pop("subset", None), opts.pop("plus", None)
            t = reference(r, variant, base="float64", **opts)
            if plus is not None:
                t = [None if a is None else a + b for a, b in zip(t, plus)]
            return t if sub is None else [t[i] for i in sub]
        close(got, want, what, rec, truth=None if variant is None else truth, **kw)

    kept = []                      # (tensor, its value when kept, what)

    def keep(ts, what):
        for t in ts:
            if t is not None:
                kept.append((t, t.numpy().copy(), what))

    # a. first sighting: interpreted
    before = executor.cache_info()
    params_a, consts = make_inputs(rec, 0)
    loss, _ = build(rec, params_a, consts, "float32")
    loss.backward()
    assert executor.cache_info().interpreted == before.interpreted + 1, \
        f"the first backward was not interpreted\n{describe(rec)}"
    check(_grads(params_a), refs[0], "a (interpreted)", rec, 0)
    grads_a = [p.grad for p in params_a]
    keep(grads_a, "a")

    # b. recurs: lowered and cached; c. a hit binding new values
    for variant, what in ((1, "b (lowered)"), (2, "c (cache hit)")):
        params, consts = make_inputs(rec, variant)
        before = executor.cache_info()
        loss, _ = build(rec, params, consts, "float32")
        loss.backward()
        check(_grads(params), refs[variant], what, rec, variant)
        if variant == 2 and executor.cache_info().hits != before.hits + 1:
            why = uncacheable(rec)
            assert why is not None and any(k in why for k in KNOWN_UNCACHEABLE), \
                f"c missed the cached Program ({why})\n{describe(rec)}"
        elif variant == 2:
            check(_grads(params), fresh_lowering(rec, 2), what + " vs fresh lowering", rec,
                  exact=True)
        keep([p.grad for p in params], what)

    # d. retained: a hit, a replay, a folded replay
    params_d, consts = make_inputs(rec, 3)
    loss_d, _ = build(rec, params_d, consts, "float32")
    for k in range(3):
        loss_d.backward(retain_graph=True)
        check(_grads(params_d), refs[3], f"d (retained, call {k + 1})", rec, 3, factor=k + 1)
    keep([p.grad for p in params_d], "d")      # (a kept .grad of the same leaf sees the sum)

    # e. paddle.grad with default arguments
    params, consts = make_inputs(rec, 4)
    loss, _ = build(rec, params, consts, "float32")
    reach = [i for i, r in enumerate(refs[4]) if r is not None]
    got = paddle.grad(loss, [params[i] for i in reach])
    check([g.numpy() for g in got], [refs[4][i] for i in reach], "e (paddle.grad)", rec, 4,
          subset=reach)
    assert all(p.grad is None for p in params), "paddle.grad wrote .grad"
    keep(got, "e")

    # e2. paddle.grad(retain_graph=True) twice: the second replays the kept Binding
    params, consts = make_inputs(rec, 4)
    loss, _ = build(rec, params, consts, "float32")
    for k in range(2):
        got = paddle.grad(loss, [params[i] for i in reach], retain_graph=True)
        check([g.numpy() for g in got], [refs[4][i] for i in reach],
              f"e2 (paddle.grad retained, call {k + 1})", rec, 4, subset=reach)
    keep(got, "e2")
    loss.backward()                 # (and a backward of that graph: its own call)
    check(_grads(params), refs[4], "e2 (backward after paddle.grad)", rec, 4)

    # h. backward of the loss's terms as several roots
    params, consts = make_inputs(rec, 5)
    terms = []
    build(rec, params, consts, "float32", terms)
    paddle.autograd.backward(terms)
    check(_grads(params), refs[5], "h (several roots)", rec, 5)
    keep([p.grad for p in params], "h")

    for t, v, what in kept:
        np.testing.assert_array_equal(t.numpy(), v, err_msg=f"kept .grad of {what} changed"
                                      f"\n{describe(rec)}")

    # i. several non-scalar roots with cotangents, twice (interpreted or lowered, a hit)
    for variant in (6, 7):
        params, consts = make_inputs(rec, variant)
        backward_roots(rec, params, consts, variant)
        check(_grads(params), reference(rec, variant, roots=True),
              f"i (non-scalar roots, variant {variant})", rec, variant, roots=True)

    # d2. retained, several roots, other cotangents at each call: a hit, a replay and a
    # folded replay (the folded factors must not depend on the seed)
    params, consts = make_inputs(rec, 6)
    backward_roots(rec, params, consts, 6, (20, 21, 22), retain=True)
    check(_grads(params), reference(rec, 6, roots=True, seed_variants=(20, 21, 22)),
          "d2 (retained roots, new cotangents)", rec, 6, roots=True,
          seed_variants=(20, 21, 22))

    # t. a training loop: the same leaves every step, new constants, and between steps
    # the gradient accumulated, cleared, or set to None, and an update under no_grad
    params, _ = make_inputs(rec, 8)
    acc = None
    for step, between in enumerate(("none", "clear", "update", "none", "accumulate")):
        values = [p.numpy().copy() for p in params]
        loss, _ = build(rec, params, make_inputs(rec, 9 + step, params=[])[1], "float32")
        loss.backward()
        want = reference(rec, 9 + step, values=values)
        if acc is not None:
            want = [None if w is None else w + a for w, a in zip(want, acc)]
        check(_grads(params), want, f"t (training loop, step {step})", rec, 9 + step,
              values=values, plus=acc)
        acc = None
        if between == "none":
            kept_t = [(p.grad, p.grad.numpy().copy()) for p in params if p.grad is not None]
            for p in params:
                p.grad = None
        elif between == "clear":
            for p in params:
                p.clear_grad()
            acc = [None if w is None else np.zeros_like(w) for w in want]
        elif between == "update":
            with paddle.no_grad():
                for p in params:
                    if p.grad is not None:      # (a step of at most 0.01)
                        g = p.grad
                        p.subtract_(g * (0.01 / max(1.0, float(np.abs(g.numpy()).max()))))
                    p.clear_grad()
            acc = [None if w is None else np.zeros_like(w) for w in want]
        else:
            acc = want
    for t, v in kept_t:
        np.testing.assert_array_equal(t.numpy(), v, err_msg=f"kept .grad of the training "
                                      f"loop changed\n{describe(rec)}")

    # f. variant 0's leaves again, a new graph: accumulates
    loss, _ = build(rec, params_a, make_inputs(rec, 0)[1], "float32")
    loss.backward()
    check(_grads(params_a), refs[0], "f (accumulated into a's leaves)", rec, 0, factor=2.0)

    # g. a sibling: same structure, other free attributes, in the same cache
    sib = recipe(seed, fseed=1, attempt=rec["attempt"])
    if sib is not None:
        for variant in (1, 2):
            params, consts = make_inputs(sib, variant)
            loss, _ = build(sib, params, consts, "float32")
            loss.backward()
            check(_grads(params), reference(sib, variant), f"g (sibling, variant {variant})",
                  sib, variant, of=sib)

    # float64: finite differences, interpreted and lowered; float32 against float64
    if smooth(rec):
        for what in ("float64 interpreted", "float64 lowered"):
            params, consts = make_inputs(rec, 0, "float64")
            loss, _ = build(rec, params, consts, "float64")
            loss.backward()
            g64 = _grads(params)
            fd_check(rec, g64, what)
        check(refs[0], g64, "float32 vs float64", rec, rtol=2e-3, atol=2e-4)


@pytest.fixture(autouse=True)
def production(monkeypatch):
    monkeypatch.setattr(config.SETTINGS, "program_cache", True)
    monkeypatch.setattr(config.SETTINGS, "interpret_new", True)      # production's default
    monkeypatch.setattr(config.SETTINGS, "verify_cache", VERIFY)
    vm.warmup(quiet=True)
    limit = executor.cache_info().max_bytes
    executor.cache_clear()
    yield
    executor.set_cache_limit(limit)
    executor.cache_clear()


@pytest.mark.parametrize("seed", range(START, START + N_SEEDS))
def test_random_composition(seed):
    check_seed(seed)


SHARED = 60


@pytest.mark.parametrize("start", range(START, START + N_SEEDS, max(N_SEEDS // 3, SHARED))
                         if N_SEEDS > DEFAULT_SEEDS else [START])
def test_recipes_sharing_one_cache(start):
    """Many structures in one program cache, round after round, the last rounds with a
    cache too small to keep them (evictions, Programs lowered again, spare Workspaces
    taken by other graphs): each backward gives its own graph's gradients."""
    recs = []
    for seed in range(start, start + SHARED):
        rec = recipe(seed)
        try:
            reference(rec, 1)
        except RuntimeError:            # (an in-place write the backward refuses)
            continue
        recs.append(rec)
    for rnd, limit in enumerate((None, None, 1 << 16, 1 << 12)):
        if limit is not None:
            executor.set_cache_limit(limit)
        for rec in recs:
            variant = 1 + rnd % 5
            params, consts = make_inputs(rec, variant)
            loss, _ = build(rec, params, consts, "float32")
            loss.backward()
            close(_grads(params), reference(rec, variant), f"shared cache, round {rnd}", rec)
