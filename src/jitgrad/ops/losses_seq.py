"""(being written)"""

from __future__ import annotations

NAMES: list[str] = []
