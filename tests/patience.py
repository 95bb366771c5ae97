"""How long a test waits for a process it started before it calls it hung.

A bound for a hang, never a speed that a test asserts: long enough for a machine three times
slower than the README's running the whole suite beside other work (where a quick lab's five
trainings once took over two minutes), so that a busy machine makes the suite slower, never red.
"""

HUNG = 1800  # seconds
