"""Hand-forming shufflers and hand dispensers: one family (messages.py, device.py), two drivers.

The stack-of-three shuffler (Three Card Poker) and the hand dispenser (Pai Gow 7-card hands, UTH
2- and 5-card stacks) speak the same protocol and differ only in option defaults.
"""
