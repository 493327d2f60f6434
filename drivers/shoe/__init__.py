"""Card-reading shoe driver: frames (pure framing), transport (bytes), device (ShoeDriver)."""
