"""The program cache: Programs by graph structure, bounded in bytes, and the structures seen.

Programs are keyed by graph.py's structural key, least recently used first, within
`max_bytes` (Programs plus the spare Workspaces each keeps for the next graphs of its
structure). It also remembers, by hash, the keys of structures interpreted once, so the
executor (executor.py) can tell a structure's first backward from a recurrence. Thread-safe:
one lock around every change, binding.RUN_LOCK (reentrant), which the runs hold too, so a
training loop's step matches, runs and returns its Workspace under one acquisition.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, NamedTuple

from ..core import config, tape
from .binding import RUN_LOCK, Workspace
from .graph import CHANGED, Graph, Uncacheable
from .matcher import compile_matcher
from ..vm.program import Program

MAX_SPARE = 2                   # Workspaces kept per Program for the next graphs
SEEN_MAX = 4096                 # structures remembered as interpreted once (then forgotten)


def default_limit() -> int:
    """JITGRAD_CACHE_BYTES (config.py), or its default."""
    return config.SETTINGS.cache_bytes


class CacheInfo(NamedTuple):
    """What `jitgrad.cache_info()` reports."""
    hits: int            # backwards that reused a cached Program
    misses: int          # backwards that lowered a new Program and cached it
    uncacheable: int     # backwards whose graph cannot share a Program (hooks, PyLayer ...)
    programs: int        # Programs cached now
    bytes: int           # bytes they hold, with their spare Workspaces
    max_bytes: int       # the bound (JITGRAD_CACHE_BYTES, or set_cache_limit)
    interpreted: int = 0  # backwards run without a Program (new structures, uncacheable)


class Entry:
    """One cached Program, the Workspaces it lends, and its matcher."""

    __slots__ = ("program", "key", "spare", "match", "nbytes", "optimized", "cached", "plain")

    def __init__(self, program: Program, key: tuple, optimized: bool) -> None:
        self.program, self.key, self.optimized = program, key, optimized
        self.cached = False             # in the cache's table now (no key hashing to ask)
        self.spare: list[Workspace] = []
        self.match: Any = None          # matcher.compile_matcher, made on the first hit
        self.nbytes = program.nbytes
        # a hit runs at once (executor.run_plain): fully optimised, no callbacks
        self.plain = optimized and not program.callbacks


class ProgramCache:
    """Programs by graph key, least recently used first, within `max_bytes`."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple, Entry] = OrderedDict()
        # the runs' lock (binding.RUN_LOCK, reentrant): a training loop's step
        # (executor.run_plain) takes it once for its match, run and give-back
        self._lock = RUN_LOCK
        self._recent: tuple = (None, None)      # the two most recent entries (matchers)
        self.bytes = 0
        self.hits = self.misses = self.uncacheable = self.interpreted = 0
        # hashes of the keys of structures interpreted once: a collision only means a
        # structure is lowered at its first backward (the tier is a guess, never a result)
        self._seen: set[int] = set()

    def info(self) -> CacheInfo:
        return CacheInfo(self.hits, self.misses, self.uncacheable, len(self._entries),
                         self.bytes, self.max_bytes, self.interpreted)

    def first_sighting(self, key: tuple) -> bool:
        """True the first time a structure's key is offered (remembered from then on)."""
        h = hash(key)
        with self._lock:
            if h in self._seen:
                return False
            if len(self._seen) >= SEEN_MAX:
                self._seen.clear()
            self._seen.add(h)
            self.interpreted += 1
            return True

    def count_interpreted(self) -> None:
        """An uncacheable graph's backward, interpreted."""
        with self._lock:
            self.interpreted += 1

    def clear(self) -> None:
        with self._lock:
            for entry in self._entries.values():
                entry.cached = False
            self._entries.clear()
            self._recent = (None, None)
            self._seen.clear()
            self.bytes = 0
            self.hits = self.misses = self.uncacheable = self.interpreted = 0

    def match_recent(self, roots: list, targets: list | None
                     ) -> tuple[Entry, Graph] | None:
        """The previous steps' graph again (a training loop's case): the entry of one of
        the two most recently used Programs whose matcher accepts this graph, counted as a
        hit, and the graph. None: the walk decides."""
        with self._lock:
            found = self.match_step(roots, targets)
        if found is None:
            return None
        entry, nodes, tensors = found
        return entry, Graph.matched(roots, targets, nodes, tensors, entry.key)

    def match_step(self, roots: list, targets: list | None
                   ) -> tuple[Entry, list, list] | None:
        """match_recent's matching, for a caller holding the lock: (entry, the
        graph's nodes, its tensors), counted as a hit, or None. (executor._step borrows
        the entry's last spare Workspace in place while it holds the lock.)"""
        ep = tape.epoch()
        for entry in self._recent:
            if entry is None or not entry.match or not entry.cached:
                continue
            try:
                found = entry.match(roots, ep, targets)
            except Uncacheable:                 # an attribute with no key: the walk says so
                continue
            if found is None:
                continue
            if self._recent[0] is not entry:
                self._touch(entry)
            self.hits += 1
            return entry, found[0], found[1]
        return None

    def lookup(self, roots: list, targets: list | None, stop: set | None
               ) -> tuple[Entry | None, Graph]:
        """The entry for this graph's structure (None: not cached), and the graph."""
        if stop is None:
            hit = self.match_recent(roots, targets)
            if hit is not None:
                return hit[0], hit[1]
        graph = Graph(roots, targets, stop)
        while graph.reason == CHANGED and tape.rewire_stale(graph.nodes):
            # an in-place write since a node read the value: the walk followed the rebound
            # tensor; rewired to the old version's stand-in, the graph has its own structure
            graph = Graph(roots, targets, stop)
        if graph.key is None:
            self.count_uncacheable()
            return None, graph
        with self._lock:
            entry = self._entries.get(graph.key)
            if entry is not None:
                self._touch(entry)
                self.hits += 1
                if entry.match is None:         # the structure recurs: worth a matcher
                    entry.match = compile_matcher(entry.key, graph) or False
        return entry, graph

    def count_uncacheable(self) -> None:
        """A backward whose Program cannot serve another graph (no key, or a value its
        lowering cannot name: Program.reason)."""
        with self._lock:
            self.uncacheable += 1

    def _touch(self, entry: Entry) -> None:
        if self._recent[0] is entry:    # already the last (a key's hash is not cached:
            return                      # moving it would hash it again)
        self._entries.move_to_end(entry.key)
        self._recent = (entry, self._recent[0])

    def upgrade(self, entry: Entry, program: Program) -> None:
        """Replace a quickly lowered Program by the fully optimised one (its spare
        Workspaces fit the old layout: dropped)."""
        with self._lock:
            cached = entry.cached
            if cached:
                self.bytes -= entry.nbytes
            entry.program, entry.spare, entry.optimized = program, [], True
            entry.plain = not program.callbacks
            entry.nbytes = program.nbytes
            if cached:
                self.bytes += entry.nbytes
                self._evict()

    def insert(self, key: tuple, program: Program, optimized: bool = True) -> Entry:
        entry = Entry(program, key, optimized)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old.nbytes
                old.cached = False
            self._entries[key] = entry
            entry.cached = True
            self.bytes += entry.nbytes
            self.misses += 1
            self._recent = (entry, self._recent[0])
            self._evict()
        return entry

    def take(self, entry: Entry | None) -> Workspace | None:
        """A spare Workspace of the entry's Program, or None (make a new one)."""
        if entry is None:
            return None
        with self._lock:
            if entry.spare:
                ws = entry.spare.pop()
                entry.nbytes -= ws.nbytes
                if entry.cached:
                    self.bytes -= ws.nbytes
                return ws
        return None

    def give_back(self, entry: Entry | None, ws: Workspace, program: Program) -> None:
        """Keep a Workspace that served `program` for the entry's next graph, if the entry
        is still cached with that Program (an upgrade replaces it: another layout), the
        Workspace was not folded for its graph, and the bound allows."""
        if entry is None or ws.folded:
            return
        with self._lock:
            self.give_back_held(entry, ws, program)

    def give_back_held(self, entry: Entry, ws: Workspace, program: Program) -> None:
        """give_back of an unfolded Workspace, for a caller holding the lock (RUN_LOCK)."""
        n = ws.nbytes
        if entry.cached and entry.program is program and len(entry.spare) < MAX_SPARE \
                and self.bytes + n <= self.max_bytes:
            entry.spare.append(ws)
            entry.nbytes += n
            self.bytes += n

    def _evict(self) -> None:
        while self.bytes > self.max_bytes and self._entries:
            key, old = next(iter(self._entries.items()))
            del self._entries[key]
            old.cached = False
            self.bytes -= old.nbytes
            if old in self._recent:
                self._recent = tuple(e if e is not old else None for e in self._recent)


CACHE = ProgramCache(default_limit())


def cache_info() -> CacheInfo:
    """Hits, misses, uncacheable backwards, and the Programs and bytes the cache holds."""
    return CACHE.info()


def cache_clear() -> None:
    """Drop every cached Program and spare Workspace, forget the structures seen (each is
    new again: its next backward is interpreted), and zero the counters."""
    CACHE.clear()


def set_cache_limit(max_bytes: int) -> None:
    """Bound the program cache to `max_bytes` (0: cache nothing); evicts at once."""
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 0:
        raise ValueError(f"set_cache_limit expects a non-negative int, got {max_bytes!r}")
    with CACHE._lock:
        CACHE.max_bytes = max_bytes
        CACHE._evict()


def caching_enabled() -> bool:
    """False with JITGRAD_NO_STRUCTURAL=1 (config.py): every backward lowers its graph."""
    return config.SETTINGS.program_cache
