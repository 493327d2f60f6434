"""Game protection: the exact odds of a table's wagers from the cards still in the shoe.

A card-reading shoe tells the table every card dealt, burns included, so the composition of the
rest of the shoe is known exactly (`shoe.ShoeLeft`). From it `live.live_figures` works out, by
enumeration over the remaining cards with integer weights, each wager's expectation for the next
round, and at the blackjack games a running and true count (docs/protection.md).

Pure: no I/O, no state, no clock. The daemon never imports this package at module level; the
surveillance feed reaches it through a function call.
"""
