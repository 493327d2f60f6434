"""The table's history as files (placeholder)."""
