"""The labs: reference scripts shipped with the package, the learner's version generated from
each, and a checker that runs a learner's file safely and names the mistake it shows.

    registry.py   which labs, their files, the functions a learner writes and their hints
    exercise.py   the learner's version, generated from the reference
    notebook.py   a lab as a notebook, and a notebook back as a script to check
    commands.py   what `attention-by-hand lab list | start | run | check | notebook` do
    runner.py     the parent side of a check: the child process, its limits and output cap
    child.py      the child process: imports the learner's file, makes the calls
    calls.py      calling the learner's functions, as events (child and tests alike)
    wire.py       values as JSON between parent and child
    verdict.py    events -> one line per check, and why a run stopped
    judging.py    comparing outputs, and explaining a wrong one (the shared judging code)
    inputs.py     the inputs the checks call the functions on
    checks/       one module per lab: its inputs, judges and known mistakes
    reference/    the reference labs themselves (package data)
"""
