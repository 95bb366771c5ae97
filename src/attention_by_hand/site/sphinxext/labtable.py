"""The labs page's table of labs, made from the lab registry so the page cannot drift from it.

    ```{lab-table}
    ```
"""

from __future__ import annotations

from sphinx.util.docutils import SphinxDirective

__all__ = ["setup"]


class LabTable(SphinxDirective):
    """One row per lab of `attention_by_hand.lab.registry.LABS`: number, title, summary, functions."""

    def run(self):
        from attention_by_hand.lab import registry as labs

        self.env.note_dependency(labs.__file__)
        rows = ["| lab | what you build | the functions you write |", "| --- | --- | --- |"]
        for lab in labs.LABS:
            functions = ", ".join(f"`{name}`" for name in lab.functions)
            rows.append(f"| {lab.number:02d} {lab.title} | {lab.summary} | {functions} |")
        return self.parse_text_to_nodes("\n".join(rows))


def setup(app):
    app.add_directive("lab-table", LabTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
