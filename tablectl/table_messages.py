"""The table's own messages (placeholder while the table is split)."""

from __future__ import annotations

from tablectl.game_records import GameRecord
from tablectl.outputs import Output

Message = GameRecord | Output
"""What the table numbers and publishes: a game's record, or a message of the table's own."""
