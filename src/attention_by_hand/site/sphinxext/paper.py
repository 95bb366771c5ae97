"""The "By hand, on paper" page: the canonical worksheet to download, and its key behind a <details>.

    ```{worksheet}
    ```

puts on its page the links to the canonical worksheet (PDF on A4 and on Letter, and HTML), its
world file, and the answer key inside a `<details>`: every box with the run's answer, as the
index has it, and a link to the log line that prints it. When the site has been written, the
files that `attention-by-hand worksheet` writes for the canonical world are written into the
site's `worksheet/` folder, made from the index of the captures the site is built from (no new
run): the same bytes as the command's (tests/site/test_paper.py).

The PDFs need Chromium. Without it the page says so, links the HTML (which any browser prints)
and the build writes no PDF. PDFs are kept in build/worksheet-pdfs/ beside the sources, by a hash
of their HTML, paper and Chromium (printing.CachedPrinter): a build that changed nothing on the
sheet starts no browser.
"""

from __future__ import annotations

import html
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from attention_by_hand.site.sphinxext.runlog import lines_label, log_href, run_index

__all__ = ["setup", "FOLDER"]

FOLDER = "worksheet"  # under the site's root
PAPER_NAMES = {"a4": "A4", "letter": "Letter"}


def _sheet(index: dict):
    from attention_by_hand.site import sheets

    choice = sheets.choose(None, None)
    return sheets.make_sheet(choice.world, choice.source, choice.title, "world.toml", index)


def _index_dict(run_index_) -> dict:
    return {"log": run_index_.log_path.name, "values": run_index_.values}


class Worksheet(SphinxDirective):
    """The canonical worksheet's downloads, and its key in a <details> (see the module docstring)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from attention_by_hand.site import printing

        index = run_index(self.env)
        sheet = _sheet(_index_dict(index))
        pdf = printing.chromium_or_none() is not None
        self.env.abh_worksheet_pages = getattr(self.env, "abh_worksheet_pages", set()) | {self.env.docname}
        base = f"{FOLDER}/"
        links = [f'<a href="{base}worksheet-{p}.pdf" download>the worksheet, PDF on {name}</a>' for p, name in PAPER_NAMES.items()] if pdf else []
        links += [f'<a href="{base}worksheet.html">the worksheet, HTML</a>', f'<a href="{base}world.toml" download>its world file, world.toml</a>']
        note = "" if pdf else (
            '<p class="worksheet-no-pdf">This copy of the site was built without Chromium, so it holds no PDF: '
            "open the HTML and print it from your browser, on A4 or Letter.</p>"
        )
        key_links = [f'<a href="{base}key-{p}.pdf" download>PDF on {name}</a>' for p, name in PAPER_NAMES.items()] if pdf else []
        key_links.append(f'<a href="{base}key.html">HTML</a>')
        rows = []
        for blank in sheet.blanks:
            a = blank.answer
            href = log_href(self.env.docname, a.line, a.line, index.log)
            where = f'<a href="{href}">{lines_label(a.line, a.line, index.log)}</a>'
            if a.derived:
                where += f": worked out from it ({html.escape(a.derived)})"
            rows.append(
                f'<tr data-name="{a.name}"><td>{blank.number}</td><td>{html.escape(blank.label)}</td>'
                f'<td class="answer"><span class="run-value">{html.escape(a.text)}</span></td><td>{where}</td></tr>'
            )
        markup = (
            '<div class="worksheet-downloads">\n'
            f'<ul class="worksheet-files">{"".join(f"<li>{link}</li>" for link in links)}</ul>\n{note}'
            '<details class="answer worksheet-key"><summary>The answer key</summary>\n'
            f'<p>Also as a file: {", ".join(key_links)}.</p>\n'
            '<table class="worksheet-key-table"><thead><tr><th>box</th><th>what</th><th>answer</th>'
            f"<th>where the run prints it</th></tr></thead><tbody>{''.join(rows)}</tbody></table>\n"
            "</details>\n</div>\n"
        )
        return [nodes.raw("", markup, format="html")]


def write_files(app, exception) -> None:
    """Write the canonical worksheet's files into the site, once it is written (build-finished)."""
    if exception is not None or app.builder.format != "html" or not getattr(app.env, "abh_worksheet_pages", None):
        return
    from attention_by_hand.run.atomic import write_atomic
    from attention_by_hand.site import printing, sheets
    from attention_by_hand.site.sphinxext.runlog import RunIndex, default_log

    captures = Path(app.srcdir, app.config.abh_captures).resolve()
    index = _index_dict(RunIndex(captures, default_log()))
    chromium = printing.chromium_or_none()
    if chromium is None:
        files = sheets.canonical_files(index, None, ())  # HTML and the world file only: the page said so
    else:
        with printing.CachedPrinter(chromium, Path(app.srcdir).parent / "build" / "worksheet-pdfs") as printer:
            files = sheets.canonical_files(index, printer, tuple(PAPER_NAMES))
    for name, data in files.items():
        write_atomic(Path(app.outdir) / FOLDER / name, data)


def _purge(app, env, docname) -> None:
    getattr(env, "abh_worksheet_pages", set()).discard(docname)


def _merge(app, env, docnames, other) -> None:
    env.abh_worksheet_pages = getattr(env, "abh_worksheet_pages", set()) | getattr(other, "abh_worksheet_pages", set())


def setup(app):
    app.add_directive("worksheet", Worksheet)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", write_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
