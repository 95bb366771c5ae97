"""Every module page ends with its sources: a module page without them fails the build.

A page named module-*.md must end with a section titled "Sources" (its last `##` section) that
lists at least one source, each item with a link a reader can follow: the papers with their
sections, the code with its files. The pages' prose links the same sources where it makes a
claim about them; this check only sees that the list is there, at the end, and not empty.

A page that breaks the rule is a warning naming the page, and the site builds with warnings as
errors. Left out: whether each claim in the prose links a source (a reader's job, not a parser's).
"""

from __future__ import annotations

import fnmatch
import posixpath

from docutils import nodes
from sphinx.util import logging

__all__ = ["setup", "MODULE_PAGES", "TITLE"]

logger = logging.getLogger(__name__)

MODULE_PAGES = "module-*"  # the docnames that must end with their sources
TITLE = "Sources"


def problem(doctree: nodes.document) -> str | None:
    """What is wrong with a module page's ending, or None when it ends with a filled Sources list."""
    page = next(iter(doctree.findall(nodes.section)), None)  # the page's title section
    sections = [child for child in page.children if isinstance(child, nodes.section)] if page else []
    if not sections or sections[-1][0].astext().strip() != TITLE:
        return f"does not end with a {TITLE!r} section (the papers and code its claims rest on)"
    items = list(sections[-1].findall(nodes.list_item))
    if not items:
        return f"has a {TITLE!r} section with no list of sources"
    unlinked = [item for item in items if not any(True for _ in item.findall(nodes.reference))]
    if unlinked:
        first = unlinked[0].astext().strip().splitlines()[0]
        return f"lists a source without a link in its {TITLE!r} section: {first[:60]!r}"
    return None


def check_sources(app, doctree: nodes.document) -> None:
    docname = app.env.docname
    if not fnmatch.fnmatch(posixpath.basename(docname), MODULE_PAGES):
        return
    found = problem(doctree)
    if found:
        logger.warning(f"module page {docname!r} {found}", location=docname)


def setup(app):
    app.connect("doctree-read", check_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
