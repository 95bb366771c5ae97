"""The one exception a user can cause on purpose: bad input, reported in one line.

Anything else that escapes the command line is a bug and keeps its traceback.
"""

__all__ = ["UserError"]


class UserError(Exception):
    """Bad input from the user (a file, a flag). The message names the input and the fault.

    The message quotes the user's own text (a key, a word), which may hold a newline or a
    terminal escape; those are shown escaped, so the message is always one printable line.
    """

    def __init__(self, message: str):
        super().__init__("".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message))
