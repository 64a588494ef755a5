"""Shared helpers of the paddle.io tests: a map-style dataset over a list."""

from __future__ import annotations

from jitgrad.io import Dataset


class Items(Dataset):
    """The samples of a list, by index."""

    def __init__(self, items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return len(self.items)
