"""The workshop site's own Sphinx extension: quoting the run, and math without a CDN.

    runlog.py      directives and roles that quote results.log and its index by name
    mathml.py      LaTeX math rendered to MathML when the site is built (no script, no fetch)
    playground.py  the playground page, with the canonical world embedded at build time
    labtable.py    the labs page's table, from the lab registry
    questions.py   check-yourself questions answered by the run's values, and their list
    instructor.py  the instructor's page: lesson plans from the pages' and labs' sizes, and
                   what the lab checker tries and recognises, lab by lab
    sources.py     every module page ends with its list of sources, or the build fails
    shell.py       shell blocks coloured as the shell reads them (`make test`'s test is no builtin)
    codelines.py   each line of a code block an element, so that a long line can wrap, marked
"""

import hashlib
from pathlib import Path

from attention_by_hand.site.sphinxext import codelines, instructor, labtable, mathml, playground, questions, runlog, shell, sources


def _source_digest() -> str:
    """A digest of this extension's own code: Sphinx keeps the pages it read in its cache until a
    page or an "env" setting changes, so a change to the code that renders them is made one."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def setup(app):
    app.add_config_value("abh_extension_digest", _source_digest(), "env", types=frozenset({str}))
    runlog.setup(app)
    mathml.setup(app)
    playground.setup(app)
    labtable.setup(app)
    questions.setup(app)
    instructor.setup(app)
    sources.setup(app)
    shell.setup(app)
    codelines.setup(app)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
