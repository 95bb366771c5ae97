"""Shell blocks coloured as the shell reads them: a builtin only where a command starts.

Pygments' Bash lexer colours every word that names a shell builtin, wherever it stands, so the
`test` of `make test` came out as the builtin `test`, though to the shell it is make's argument.
The site's `sh` and `bash` blocks use this lexer instead: the same tokens, except that a builtin
after the first word of a command (the start of a line, or after `;`, `&&`, `||`, `|`, `(` or a
keyword such as `then`) is plain text.

Left out: assignments before a command (`FOO=1 make test` still counts `make` as an argument, so
a builtin there would stay plain) and the words of `for x in ...`: neither is on the site's pages.
"""

from __future__ import annotations

from pygments.lexers.shell import BashLexer
from pygments.token import Keyword, Name, Operator, Punctuation, Text

__all__ = ["CommandLexer", "setup"]

_STARTS_A_COMMAND = {";", "&&", "||", "|", "(", "`", "$("}


class CommandLexer(BashLexer):
    """Bash, with a builtin coloured as one only in the command's own place."""

    name = "Bash (builtins in command position only)"
    aliases = ["sh", "bash", "shell"]

    def get_tokens_unprocessed(self, text, stack=("root",)):
        at_command = True
        for index, token, value in super().get_tokens_unprocessed(text, stack):
            if token is Name.Builtin and not at_command:
                token = Text
            if token in Text.Whitespace:
                at_command = at_command or "\n" in value
            elif token in Keyword or (token in (Operator, Punctuation) and value.strip() in _STARTS_A_COMMAND):
                at_command = True
            elif "\n" in value:
                at_command = True  # a comment runs to the end of its line, newline included
            else:
                at_command = False
            yield index, token, value


def setup(app):
    for alias in CommandLexer.aliases:
        app.add_lexer(alias, CommandLexer)
