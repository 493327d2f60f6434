"""EZ Baccarat Panda 8 (document 003): `spec` (its `[game]` options and GameSpec) and
`engine` (its rules, pure).

The engine's classes are also reachable as `tablectl.games.baccarat.<Class>`, imported on first
use: journal snapshots written before the game became a package name its state classes so.
"""

from __future__ import annotations

from tablectl.games.spec import moved_to

__getattr__ = moved_to(
    __name__, dict.fromkeys({"BaccaratState", "BaccaratEngine", "BaccaratOutcome"}, "engine")
)
