"""Numba's disk cache for jitgrad's kernels, made to survive broken files and read-only dirs.

Why this exists (both faults measured with Numba 0.68.1; NUMBA_NOTES.md section 3):

* A broken cache file made every backward fail until the user deleted the cache by hand.
  `Dispatcher.compile` calls `Cache.load_overload`, and `IndexDataCacheFile.load` only
  forgives a missing file: a truncated or garbled `.nbi` index or `.nbc` data file raises
  EOFError / pickle.UnpicklingError from `pickle.load`, and a data file damaged inside its
  pickle framing raises "LLVM bitcode parsing error" from `CompileResult._rebuild`, or
  aborts the process in an LLVM assertion, or loads silently (damaged machine code). So
  every file jitgrad writes ends with a SHA-256 of its contents, checked before unpickling;
  pickle ignores the trailing bytes, so Numba itself (and older jitgrad) still read the
  files. A file that fails to load is deleted (only that file: the function's `.nbc` for
  that signature, or its `.nbi` index with the `.nbc` files it listed), one RuntimeWarning
  says so, and the function recompiles and is saved again.
* A pre-filled read-only NUMBA_CACHE_DIR (a Docker image or cluster module that ships a
  warm cache) was never read: every locator's `from_function` calls `ensure_cache_path`,
  which creates a temporary file to prove the directory writable, and returns None when
  that fails; the next locator (a writable `__pycache__` or `~/.cache/numba`) then
  recompiles for ~10 s, or none is left and the decorator raises "no locator available".
  `_ReadOnlyCacheDir` accepts that directory for loading and never saves there; when it
  holds no up-to-date entry, the function compiles in memory and one warning names the
  directory.

Saving can fail too (disk full, permissions changed after import); the compiled code is
already in memory then, so that is a warning, not an error. Plain Numba caching is used
instead of all this if a later Numba moves these internals (vm/_numba.py).
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import pickle
from typing import Any

from numba.core import config
from numba.core.caching import (CompileResultCacheImpl, FunctionCache, IndexDataCacheFile,
                                UserProvidedCacheLocator)

from ._numba import note_compile, warn_once

_SEAL = b"\0jitgrad-sha256\0"          # then the 32-byte digest of everything before it
_TAIL = len(_SEAL) + 32


class CorruptCacheFile(Exception):
    """A cache file whose checksum does not match its contents."""


def _seal(body: bytes) -> bytes:
    return body + _SEAL + hashlib.sha256(body).digest()


def _unseal(raw: bytes) -> bytes:
    """The contents of a file written by `_seal`, checked; an unsealed file (written by
    plain Numba or an older jitgrad) as it is, left to pickle's own checks."""
    if len(raw) >= _TAIL and raw[-_TAIL:-32] == _SEAL:
        body = raw[:-_TAIL]
        if hashlib.sha256(body).digest() != raw[-32:]:
            raise CorruptCacheFile("checksum mismatch")
        return body
    return raw


class _Files(IndexDataCacheFile):
    """Numba's index and data files, the same pickles plus a checksum trailer; remembers
    which file it was reading so a failed load can discard exactly that one."""

    reading: str | None = None

    def _load_index(self) -> dict:
        self.reading = self._index_path
        try:
            with open(self._index_path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            return {}
        stream = io.BytesIO(_unseal(raw))
        if pickle.load(stream) != self._version:
            return {}                     # another Numba's index: a miss, as in Numba
        stamp, overloads = pickle.loads(stream.read())
        return overloads if stamp == self._source_stamp else {}

    def _save_index(self, overloads: dict) -> None:
        body = (pickle.dumps(self._version, protocol=-1)
                + self._dump((self._source_stamp, overloads)))
        with self._open_for_write(self._index_path) as f:
            f.write(_seal(body))

    def _load_data(self, name: str) -> Any:
        path = self.reading = self._data_path(name)
        with open(path, "rb") as f:       # a missing file raises OSError: Numba's miss
            raw = f.read()
        return pickle.loads(_unseal(raw))

    def _save_data(self, name: str, data: Any) -> None:
        with self._open_for_write(self._data_path(name)) as f:
            f.write(_seal(self._dump(data)))

    def discard(self, path: str) -> list[str]:
        """Delete `path`; for the index also the data files it names. Returns what went."""
        paths = [path]
        if path == self._index_path:
            stem = os.path.basename(self._index_path)[:-len(".nbi")] + "."
            folder = os.path.dirname(path)
            try:
                paths += [os.path.join(folder, n) for n in os.listdir(folder)
                          if n.startswith(stem) and n.endswith(".nbc")]
            except OSError:
                pass
        gone = []
        for p in paths:
            try:
                os.unlink(p)
                gone.append(p)
            except OSError:
                pass
        return gone


class _ReadOnlyCacheDir(UserProvidedCacheLocator):
    """NUMBA_CACHE_DIR when it exists but cannot be written: loaded from, never saved to.

    Tried right after Numba's own locator for that directory, which refuses it."""

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> "_ReadOnlyCacheDir | None":
        if not config.CACHE_DIR or not os.path.isdir(config.CACHE_DIR):
            return None
        if not os.path.exists(py_file):
            return None
        return cls(py_func, py_file)

    def ensure_cache_path(self) -> None:
        raise PermissionError(errno.EACCES, "jitgrad reads this Numba cache only",
                              self.get_cache_path())


class _Impl(CompileResultCacheImpl):
    _locator_classes = list(CompileResultCacheImpl._locator_classes)
    _locator_classes.insert(_locator_classes.index(UserProvidedCacheLocator) + 1,
                            _ReadOnlyCacheDir)


def _stamp(own: Any, stamp_with: tuple[str, ...]) -> Any:
    """Numba's source stamp of a function's file (mtime, size), joined by those of the
    `stamp_with` files (kernels.py for the interpreter) whose compiled code it embeds: an
    edit there must miss the cache as an edit of the function's own file does."""
    if not stamp_with:
        return own
    try:
        others = tuple((st.st_mtime, st.st_size) for st in map(os.stat, stamp_with))
    except OSError:                       # (not a plain file: its own stamp, as Numba does)
        return own
    return (own, others)


class GuardedCache(FunctionCache):
    """The cache of one jitgrad kernel (see the module docstring)."""

    _impl_class = _Impl

    def __init__(self, py_func: Any, stamp_with: tuple[str, ...] = ()) -> None:
        super().__init__(py_func)        # raises RuntimeError when no locator fits
        self.stamp_with = stamp_with     # (tests/test_kernel_stamps.py checks them)
        self.read_only = isinstance(self._impl.locator, _ReadOnlyCacheDir)
        self._cache_file = _Files(self._cache_path, self._impl.filename_base,
                                  _stamp(self._cache_file._source_stamp, stamp_with))

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        files = self._cache_file
        files.reading = None
        try:
            cres = super().load_overload(sig, target_context)
        except Exception as e:           # noqa: BLE001 - any failure to load is a miss
            self._broken(files.reading, e)
            note_compile()
            return None
        if cres is None:
            note_compile()
        if cres is None and self.read_only:
            warn_once("read-only miss", (
                f"jitgrad: the read-only Numba cache {self._cache_path} has no up-to-date "
                f"entry for {self._kernel()} (it was filled by "
                "other jitgrad sources, another install path, Numba version or CPU); "
                "compiling in memory, which every new process will repeat. Refill that "
                "cache, or point NUMBA_CACHE_DIR at a writable directory."))
        return cres

    def save_overload(self, sig: Any, data: Any) -> None:
        if self.read_only:
            return
        try:
            super().save_overload(sig, data)
        except Exception as e:           # noqa: BLE001 - the compiled code is in memory
            warn_once("save", f"jitgrad: could not save to Numba's cache in "
                              f"{self._cache_path} ({type(e).__name__}: {e}); later "
                              "processes will compile again.")

    def _broken(self, path: str | None, e: Exception) -> None:
        lines = str(e).strip().splitlines()
        what = f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__
        where = f"{self._kernel()} from Numba's cache file {path or self._cache_path}"
        if self.read_only:
            warn_once("broken", (
                f"jitgrad: could not load {where} ({what}); the cache {self._cache_path} is "
                "read-only, so it is compiled in memory (every new process will, until that "
                "cache is rebuilt)."))
            return
        gone = self._cache_file.discard(path) if path else []
        warn_once("broken", (
            f"jitgrad: could not load {where} ({what}); {'deleted it and ' if gone else ''}"
            "recompiling (seconds, once: the new result is cached again)."))

    def _kernel(self) -> str:
        return self._impl.filename_base.split("-")[0]        # e.g. interpreter.run
