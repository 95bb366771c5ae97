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
    engine.py         the mutation engine as a check asks it: a diagnosis, a mend, or what was observed
    case_verdict.py   what one call's event says under one check (passed, raised, changed its input, a Miss)
    combining.py      a check's inputs' verdicts -> the one mistake that explains them and no input rules out
    judging.py        judges: comparing one output with the reference's, and naming a wrong one
    foreign_words.py  a name or keyword from NumPy, TensorFlow or JAX in torch's error, said with torch's own
    error_words.py    torch's words for a common slip, said as the slip (Python's `max` of two tensors, `view` after `.T`)
    attention_judges.py  the judges of attention weights, shared by labs 04 and 05
    inputs.py         the inputs the checks call the functions on
    mistakes.py       the checker's catalogue of the mistakes it names, for the instructor page
    mutants.py        small changes of a reference function's code: candidate mistakes nobody wrote a hint for
    mutant_edits.py   how one such change is made to the syntax tree, and how a hint quotes it
    triangle_words.py  a triangle's diagonal offset changed, said as whether it holds the main diagonal
    mutant_slices.py  the changes of a slice (moved by one, the colon on the other side, one `, :` short)
    mutant_quotes.py  the two quoted sides of a change, cut to what differs
    mutant_trees.py   where each node of a reference definition is, and copies to change
    mutant_slips.py   changes that are no one-token edit (a layer moved, a grid for pairs, .T on a batch)
    mutant_arithmetic.py  the changes of one arithmetic operation (a factor removed, a term dropped, / for -)
    outcomes.py       calling the reference safely, and when two outputs (or two errors) agree
    relations.py      plain relations between outputs (transposed, negated, scaled, rows scaled, plus a constant)
    row_factors.py    each row scaled by a factor of its own (a wrong denominator, rows brought to length 1)
    shape_relations.py  relations that change the shape (an axis of size 1 more, axes reordered, one slice, one end)
    input_relations.py  the reference's output on a changed input (one short, ids off by one, a flag unused)
    intermediates.py  an output that is one of the reference's own intermediate values
    running_relations.py  each entry the reference's on the entries up to it (a running total for the row's)
    related.py        the explanations that are no change of the code, tried in turn
    diagnosis.py      the change or relation that gives a learner's outputs on every input tried
    error_kinds.py    a change that raises the learner's error with other numbers in it (it fits some inputs by chance)
    pair_changes.py   which pairs of changes are tried together (a slip made twice, a layer moved, the next line)
    first_nan.py      the line of the learner's file that made its first nan
    changed_where.py  the line of the learner's file that changed an input in place, and what on it writes
    blame.py          the learner's lines where its values part from the reference's (run in the child)
    code_layout.py    how a learner's function is read line by line (statements, reads, a loop as one)
    parting.py        saying that span, when every wrong call of a function agrees on it
    repair.py         one change of the learner's own code that makes it right on every input (run in the child)
    mend_right.py     when a mended function's output counts as the reference's (a finer float too)
    constant_tensors.py  mends that reach the reference's numbers through zeros or ones by chance (dropped)
    repeated_mends.py  one slip made at several places: the changes repair.py tries together
    mend_changes.py   the changes tried on a learner's code only (a line left out, an exp put in, a count +1)
    mend_words.py     the mistake such a change mends, in words (a term too many, the loop starts one step late)
    einsum_words.py   einsum's subscripts mended, in words (an operand read transposed, an axis summed over)
    loop_starts.py    a running value started again at every pass of its loop (or never carried on): its mend
    range_mends.py    a slice cut by another of the function's ranges (`i0:i1` where `j0:j1` belonged)
    habit_mends.py    mends of forms a habit from elsewhere misreads (`l *= r + p`, `+` to join, `~` of an int)
    api_mends.py      mends of a call or an assignment read otherwise (`a = b` no copy, roll's sign, `numel`, `.t()`)
    operand_mends.py  mends of what a loop, a product or a comparison is given (a dict's `.items()`, the other factor)
    reading_mends.py  mends of an operator, a number or a call read by another convention (`//` for `%`, degrees, a norm)
    bracket_mends.py  mends of where a call's bracket closes (`f(x) + s` for `f(x + s)`, and back; bracket_edits.py edits)
    argument_mends.py  a name from outside a function read where its unread argument belongs (`PROBE_PERIOD` for `period`)
    number_mends.py   a plain number where a torch function takes a tensor (`heaviside(d, 0.0)`)
    own_mends.py      the families of learner-only mends that have their own words, in one list
    agreeing_mends.py  of several mends of one line, those that leave the function's state nearest the reference's
    returned_steps.py  a name returned one step early (`e`, where `w` was made from it), said as that
    loop_passes.py    a loop's passes per entry: a mend that cuts a loop of several passes to one is dropped
    mend_edits.py     how a change tried on a learner's code only is made to the syntax tree
    call_words.py     what a call on a quoted line does, when the reference never makes it (`cumsum` is running)
    call_meanings.py  the words of what each such call does, one dict
    call_pitfalls.py  calls that read otherwise: `split(1)` pieces joined, `int()` of a float, `.grad` of a copied argument
    dropped_pitfalls.py  values computed and dropped: `x.masked_fill(...)` or `dq.narrow(...).add(...)` alone on a line
    reading_pitfalls.py  arguments that mean something else than they seem (`std_mean(x, -1, True)`, `transpose(-1, -1)`)
    line_calls.py     which lines' calls a hint describes: the raising line and what fed it, the return, a span's body
    fed_lines.py      the lines that feed a line (those that set the names it reads) and the calls they make
    size_locals.py    a size bound from a shape unlike the reference's same-named one, where its number mends it
    none_words.py     which name on the line that raised is None (a layer made with bias=False), or a number
    called_words.py   a layer's `apply(x)` taken for running it, on the line that raised (the tensor called)
    unit_slice.py     a slice with bounds on an axis of length 1, on the line that raised (`D[..., i0:i1]`)
    read_shapes.py    the shapes of the tensors the line that raised reads, for a lab's words on its error
    unused.py         the arguments whose values never reach a wrong function's output (run in the child)
    room.py           `lab check N --room FOLDER`: every learner's file in a folder, one table
    sandbox.py        bubblewrap around other people's files in a room check

Words, one meaning each: a *check* is one line of the report (a function on some inputs); a
*judge* compares one output with the reference's and returns a Miss or nothing; a *verdict* is
what a whole run of a learner's file comes to (verdict.py). A *probe* is an input a check calls
only to tell causes apart, never judged; a *change* (a mutant) is the reference with one small
edit of its code; a *diagnosis* is the change or relation that gives the learner's outputs on
every input tried, cases and probes alike; a *mend* is one change of the learner's own code that
makes its function give the reference's output on every input tried; a *room* is a folder of
learners' files for one lab.

It imports `errors` and, for the toy world, `run/world.py`; never `parts/` or `site/`.
"""
