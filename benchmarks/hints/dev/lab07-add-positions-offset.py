# patches: lab-07-positions.py
"""add_positions skips the table's first row."""


def add_positions(x, table):
    T = x.shape[-2]
    return x + table[1 : T + 1]
