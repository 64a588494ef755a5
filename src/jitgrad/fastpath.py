"""The cheap run of a lowered Program: seeds in, one compiled call, leaf grads out.

Everything a repeat backward needs is computed once per Program (`Replay`): views of the
seed slots and of the output slots, which seeds the run itself overwrites, and whether the
leaf gradients can be *owned*: when `lower_opt.own_leaf_grads` turned the one write into a
leaf's slot into an accumulation, the leaf's `.grad` array is a view of that slot, so the
compiled call accumulates straight into `.grad` and nothing is copied afterwards.

Ownership per leaf and per run:
  * `t._grad is view`: owned; the run accumulates in place (Paddle's in-place semantics).
  * `t._grad is None`: the slot is zeroed, and after the run `t._grad` becomes the view
    (kept Programs) or a copy of it (a Program about to be freed).
  * any other array (set by the user, or owned by another Program): the leaf's writer row
    writes through an itab address (lower_opt.own_leaf_grads), pointed at that array for
    the run, so the row adds straight into it (`_point_leaves`); only an array of another
    dtype, shape or layout gets the old way: slot zeroed, result added afterwards.
A Program with hook segments (Python callbacks between instruction ranges) never comes
here: the general path in autograd runs it.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from . import tape, vm
from .program import Program
from .tensor import deliver_grad, detach_graph_grad



class Replay:
    """Precomputed views and flags for running one Program cheaply."""

    __slots__ = ("seed_views", "seed_ones", "seed_clean", "leaves", "others", "owned",
                 "leaf_pos", "foreign", "pointed", "redirected",
                 "args", "dtype", "work", "entry", "runner", "ones_kept", "zeroed", "armed",
                 "call_args", "simple", "leaf", "view")

    def __init__(self, prog: Program) -> None:
        arena, code = prog.arena, prog.code
        self.seed_views = [arena[off:off + n] for off, n in prog.seeds]
        self.seed_ones = [False] * len(prog.seeds)
        self.ones_kept = False       # every seed slot holds ones the run leaves alone
        outs, ins = code[:, 1], code[:, 5]
        # a seed slot the program never writes keeps its value between runs
        self.seed_clean = [not bool(np.any((outs < off + n) & (outs + ins > off)))
                           for off, n in prog.seeds]
        owned = getattr(prog, "owned_leaf_slots", frozenset())
        self.owned = owned
        self.leaves: list = []       # (tensor, view) with the slot accumulated in place
        self.others: list = []       # (tensor, view, kind), delivered by autograd's rules
        # per leaf: the itab position its writer row writes through and the slot's own
        # address there; `foreign`: the (array, address) it was last pointed at instead
        positions = getattr(prog, "owned_leaf_pos", {})
        self.leaf_pos: list = []
        for t, off, shape, kind in prog.outputs:
            n = int(np.prod(shape, dtype=np.int64))
            view = arena[off:off + n].reshape(shape)
            if off in owned and kind == "leaf" and view.dtype == t._data.dtype:
                self.leaves.append((t, view))
                self.leaf_pos.append((positions[off], view.__array_interface__["data"][0]))
            else:
                self.others.append((t, view, kind))
        self.foreign: list = [None] * len(self.leaves)
        self.pointed = [own for _, own in self.leaf_pos]   # the addresses in the itab now
        self.redirected = 0          # how many of them are not the slot's own
        # own_leaf_grads made every leaf slot accumulate; a leaf of another dtype is not
        # owned, so its slot starts each run from zero
        self.zeroed = [view for t, view, kind in self.others if kind == "leaf"] if owned else []
        self.simple = not self.others and not self.zeroed    # leaves owned, nothing else
        self.leaf, self.view = self.leaves[0] if len(self.leaves) == 1 else (None, None)
        self.args = (code, arena, prog.itab, prog.consts, 0, len(prog))
        self.dtype = arena.dtype
        self.work = int(np.sum(code[:, 5])) if len(code) else 0
        self.entry: Any = None       # the compiled run's entry point for these arrays
        self.runner: Any = False     # the vm._compiled it belongs with (none yet)
        self.call_args = self.args + (0,)    # args plus the par_min the entry was last given
        self.armed = -1              # the epoch replay_retained's one-call path is valid in


def run(prog: Program, seeds: list | None, keep: bool) -> None:
    """Write seeds (None: a ones seed for every root), make one compiled (or reference)
    call, deliver gradients.

    `keep` says whether the Program outlives this call (retained graph or cached); only then
    may leaf gradients stay views of its arena.
    """
    r = getattr(prog, "_replay", None)
    if r is None:
        r = prog._replay = Replay(prog)
    if seeds is None:
        if not r.ones_kept:
            seeds = [None] * len(r.seed_views)
    else:
        r.ones_kept = False
    if seeds is not None:
        views, ones, clean = r.seed_views, r.seed_ones, r.seed_clean
        for i, s in enumerate(seeds):
            if s is None:
                if not (ones[i] and clean[i]):
                    views[i][...] = 1
                    ones[i] = True
            else:
                views[i][...] = s._data.reshape(-1)
                ones[i] = False
        r.ones_kept = all(ones) and all(clean)
    for view in r.zeroed:
        view[...] = 0
    fresh = None
    if r.leaves:
        fresh = _point_leaves(prog, r)
    _execute(prog, r)
    if fresh is not None:
        for t, view, g in fresh:
            if g is None:
                t._grad = view if keep else view.copy()
            else:
                detach_graph_grad(t)             # a create_graph .grad keeps its values
                np.add(t._grad, view, out=t._grad, casting="unsafe")
    for t, view, kind in r.others:
        deliver_grad(t, view, kind)


def _point_leaves(prog: Program, r: Replay) -> list | None:
    """Before a run: point each owned leaf's writer row at where its gradient accumulates.
    The slot itself when `.grad` is the slot (owned) or None (the slot is zeroed, and is
    handed over after the run: listed in the result); the `.grad` array itself when it is
    another (another Program's slot, a grad the user set) of the slot's dtype, shape and
    layout, so the row adds straight into it; else zero the slot and add afterwards (listed)."""
    fresh = None
    itab, pointed = prog.itab, r.pointed
    for i, (t, view) in enumerate(r.leaves):
        g = t._grad
        address = 0
        if g is not view and g is not None:
            last = r.foreign[i]
            if last is not None and last[0] is g:
                address = last[1]
            elif g.dtype == view.dtype and g.shape == view.shape and g.flags.c_contiguous \
                    and g.flags.writeable:
                address = g.ctypes.data
                r.foreign[i] = (g, address)
        pos, own = r.leaf_pos[i]
        if address:
            detach_graph_grad(t)          # a create_graph .grad keeps its values
        else:
            address = own
            if g is not view:
                view[...] = 0
                if fresh is None:
                    fresh = []
                fresh.append((t, view, g))
        if pointed[i] != address:
            r.redirected += (address != own) - (pointed[i] != own)
            itab[pos] = pointed[i] = address
    return fresh


def _point_home(prog: Program, r: Replay) -> None:
    """Every owned leaf's row back to its own slot (a direct run of the Program, release)."""
    for i, (pos, own) in enumerate(r.leaf_pos):
        prog.itab[pos] = r.pointed[i] = own
    r.redirected = 0


# Tiered start: until this process has loaded the compiled interpreter, the first few small
# Programs run in the numpy reference interpreter (the opcodes' definition). Loading the
# compiled one costs ~0.4 s even from a warm disk cache (Numba's target start-up), ~10 s
# without one, so a short script that runs one backward never pays it, and a training loop
# pays it on its fifth call. JITGRAD_TIER=0 turns this off.
TIER_CALLS = 4
TIER_MAX_WORK = 200_000           # elements touched by a Program still worth interpreting
_tier_left = TIER_CALLS


def _execute(prog: Program, r: Replay) -> None:
    """One compiled call with the precomputed arguments (vm.execute's hot path, minus the
    argument tuple and the first-call bookkeeping, which vm.execute does on first use)."""
    global _tier_left
    runner = vm._compiled
    if runner is r.runner and vm._vm == "numba":
        _call_entry(r)
    elif vm._vm == "numba" and runner is not None and r.dtype in vm._ready:
        runner(*r.args)
        _bind_entry(r, runner)
    elif (runner is None and _tier_left > 0 and vm._vm == "numba" and r.work < TIER_MAX_WORK
          and os.environ.get("JITGRAD_TIER", "1") != "0"):
        _tier_left -= 1
        vm.execute(prog, vm="reference")
    else:
        vm.execute(prog)


def _bind_entry(r: Replay, runner: Any) -> None:
    """Once the compiled interpreter has run this Program, later runs call its entry
    point directly (only while vm._compiled is still the stock run_program)."""
    global interpreter, threads
    if interpreter is None:
        from .vm import interpreter, threads
    if runner is interpreter.run_program and r.runner is not runner:
        r.entry = interpreter.entry_for(r.args)
        if r.entry is not None:
            r.runner = runner


interpreter: Any = None     # jitgrad.vm.interpreter and .threads, imported on first use
threads: Any = None         # (importing them imports Numba)


def quick(r: Replay) -> bool:
    """`run(prog, None, keep=True)` when all it would do is the compiled call: the seed slots
    already hold ones, every leaf's `.grad` is its slot (owned), no other outputs, and the
    compiled entry point is bound for the chosen interpreter. False: nothing was run."""
    if r.simple and r.ones_kept and vm._compiled is r.runner and vm._vm == "numba" and \
            not r.redirected:
        t = r.leaf
        if t is not None:                 # (one leaf: no loop, ~0.1 us of a 2 us replay)
            if t._grad is not r.view:
                return False
        else:
            for leaf, view in r.leaves:
                if leaf._grad is not view:
                    return False
        _call_entry(r)
        return True
    return False


def _call_entry(r: Replay) -> None:
    """The compiled `run` straight through its entry point (see _bind_entry): what
    run_program does, minus the dispatcher's type matching and a Python frame. The
    argument tuple is rebuilt only when the thread-split threshold changed."""
    args = r.call_args
    pm = threads._par_min
    if pm != args[6]:
        if pm is None:
            pm = threads.par_min()
        args = r.call_args = r.args + (pm,)
    status = r.entry(*args)
    if status != -1:
        interpreter.resume(status, *args[:4], args[5])


def replay_retained(t: Any) -> bool:
    """`t.backward(retain_graph=True)` with a ones seed on a graph already lowered for
    exactly this call: the whole call is seeds + one compiled call. False if not applicable
    (the caller then takes the general path, which checks everything).

    The common repeat is one dict hit and `quick`'s compiled call: once a replay through
    `run` has bound the entry point, the Replay is *armed* for this epoch under
    `node.programs[id(t)]` (the epoch covers hooks, retain_grads, in-place writes,
    stop_gradient flips, freeing); `quick` re-checks what can change without an epoch bump.
    """
    node = t._node
    if node is None:
        return False
    progs = node.programs
    if progs is None:
        return False
    if t._stop_gradient:
        return False
    r = progs.get(id(t))
    if r is not None and r.armed == tape._epoch and quick(r):
        return True
    hit = progs.get(((id(t),), None, None))
    if hit is None or hit[0] != tape._epoch or hit[1].segments:
        return False
    prog = hit[1]
    run(prog, None, True)
    r = prog._replay
    if r.simple and r.entry is not None:
        r.armed = hit[0]
        progs[id(t)] = r
    return True


def release(prog: Program) -> None:
    """Before a Program is dropped: leaves stop sharing memory with its arena."""
    r = getattr(prog, "_replay", None)
    if r is None:
        return
    r.armed = -1
    for t, view in r.leaves:
        if t._grad is view:
            t._grad = view.copy()
    if r.redirected:
        _point_home(prog, r)
    prog._replay = None
