"""What every run part shares: the part object, the section log, figures, the stamp, the world.

    part.py         a part as one object, how it runs (`part.run(context)`) and how a run ends
    section_log.py  what sections write through: lines, spans, values, tables, figures
    capture.py      the log's lines, named spans and values, and its index
    figures.py      drawings rendered to files, one style, no stamps; the workshop's colours
    environment.py  line 3 of every log: the versions that made it
    stamp.py        what the outputs were made from, and whether they are still current
    check.py        a log against its canonical copy, line by line
    world.py        the toy world: the canonical one, and loading (and writing) a world file
    pencil_worlds.py  a world for pencils from a seed: small numbers, every answer well posed
    gpt2.py         GPT-2 small's sizes, set beside the toy's
    atomic.py       writing a file atomically; textfile.py: reading a user's file safely

It may import `math/` and `errors`, never `parts/`, `site/` or `lab/`: data flows one way.
"""
