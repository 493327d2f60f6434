"""EZTRAK LCD display (EZ Baccarat, R28): messages, screen rendering, and the output driver."""
