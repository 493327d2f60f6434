"""Shared rule modules: one home for each rule, used by every game."""
