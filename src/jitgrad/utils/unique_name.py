"""Paddle's unique names (`paddle.utils.unique_name`): `generate("linear")` gives
`linear_0`, then `linear_1`, one counter per key.

Layers and their parameters are named with it exactly as Paddle names them (`linear_0.w_0`,
`linear_0.b_0`), and optimizer accumulators after their parameter (`linear_0.w_0_moment1_0`):
those names are the keys of an optimizer's state dict, so a model built in the same order
as in Paddle gets the same keys and can load Paddle's `.pdopt` files.
"""

from __future__ import annotations

import collections
import contextlib
from typing import Iterator


class UniqueNameGenerator:
    """Counters per key; every name starts with prefix."""

    def __init__(self, prefix: str | None = None) -> None:
        self.ids: collections.defaultdict[str, int] = collections.defaultdict(int)
        self.prefix = prefix or ""

    def __call__(self, key: str) -> str:
        return self.generate(key)

    def generate(self, key: str) -> str:
        n = self.ids[key]
        self.ids[key] += 1
        return f"{self.prefix}{key}_{n}"


generator = UniqueNameGenerator()


def generate(key: str) -> str:
    """The next unique name for key: key_0, key_1, ..."""
    return generator.generate(key)


def switch(new_generator: UniqueNameGenerator | None = None) -> UniqueNameGenerator:
    """Install new_generator (a fresh one if None) and return the old one."""
    global generator
    old, generator = generator, new_generator or UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator: UniqueNameGenerator | str | bytes | None = None) -> Iterator[None]:
    """Names restart inside the block (with a prefix if new_generator is a string), so a
    model built in it is named as in a fresh process."""
    if isinstance(new_generator, bytes):
        new_generator = new_generator.decode()
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
