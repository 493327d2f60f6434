"""The configurable line driver: a vendor's ASCII card messages described in the table config."""
