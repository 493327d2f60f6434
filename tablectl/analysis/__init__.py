"""Exact analysis of the games: hit frequencies and house edges by enumeration."""
