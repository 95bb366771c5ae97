"""The one exception a user can cause on purpose: bad input, reported in one line.

Anything else that escapes the command line is a bug and keeps its traceback.
"""

__all__ = ["UserError"]


class UserError(Exception):
    """Bad input from the user (a file, a flag). The message names the input and the fault."""
