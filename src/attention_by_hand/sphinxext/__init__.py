"""The workshop site's own Sphinx extension: quoting the run, and math without a CDN.

    runlog.py      directives and roles that quote results.log and its index by name
    mathml.py      LaTeX math rendered to MathML when the site is built (no script, no fetch)
    playground.py  the playground page, with the canonical world embedded at build time
    labtable.py    the labs page's table, from the lab registry
    questions.py   check-yourself questions answered by the run's values, and their list
    instructor.py  the instructor's page: lesson plans from the pages' and labs' sizes, and
                   what the lab checker tries and recognises, lab by lab
    shell.py       shell blocks coloured as the shell reads them (`make test`'s test is no builtin)
"""

from attention_by_hand.sphinxext import instructor, labtable, mathml, playground, questions, runlog, shell


def setup(app):
    runlog.setup(app)
    mathml.setup(app)
    playground.setup(app)
    labtable.setup(app)
    questions.setup(app)
    instructor.setup(app)
    shell.setup(app)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
