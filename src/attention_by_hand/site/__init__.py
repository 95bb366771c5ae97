"""The workshop site: building it from `workshop/` and the runs' outputs, serving it, printing it.

    website.py   build (Sphinx, warnings are errors) and serve on 127.0.0.1
    handout.py   the whole site as one PDF for a room, through Debian's chromium
    worksheet.py a worksheet and its answer key for any world, from that world's run (templates/)
    sheets.py    `attention-by-hand worksheet`: one world's files, or a room's; printing.py: to PDF
    sphinxext/   the directives and roles that quote the runs by name, and the MathML renderer

It reads the runs' outputs (logs, indexes, figures), the benchmarks' results and the package's
source; it runs a part only when its outputs are stale (run/stamp.py says which), and the
canonical part on a worksheet's world.
"""
