"""The labs: reference scripts shipped with the package, the learner's version generated from
each, and a checker that runs a learner's file safely and names the mistake it shows.

    labs/             one folder per lab: the reference, its checks, the hints (labs/__init__.py)
    registry.py       which labs there are: the folders of labs/, found by discovery
    exercise.py       the learner's version, generated from the reference
    notebook.py       a lab as a notebook, and a notebook back as a script to check
    commands.py       what `attention-by-hand lab list | start | run | check | notebook` do
    runner.py         the parent side of a check: the child process, its limits and output cap
    child.py          the child process: imports the learner's file, makes the calls
    calls.py          calling the learner's functions, as events (child and tests alike)
    wire.py           values as JSON between parent and child
    verdict.py        events -> one line per check, and why a run stopped
    judging.py        judges: comparing one output with the reference's, and naming a wrong one
    attention_judges.py  the judges of attention weights, shared by labs 04 and 05
    inputs.py         the inputs the checks call the functions on
    mistakes.py       the checker's catalogue of the mistakes it names, for the instructor page

Words, one meaning each: a *check* is one line of the report (a function on some inputs); a
*judge* compares one output with the reference's and returns a Miss or nothing; a *verdict* is
what a whole run of a learner's file comes to (verdict.py).

It imports `errors` and, for the toy world, `run/world.py`; never `parts/` or `site/`.
"""
