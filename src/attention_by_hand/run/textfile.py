"""Reading a text file a user points us at: a world file or a log.

Every way such a file can be wrong becomes a one-line UserError that names it: missing, a
folder, unreadable, empty, too large, binary, not UTF-8. The size limit is enforced while
reading, so a pipe (`check <(cat log)`) or a file that grows is handled like any other.
"""

from __future__ import annotations

from pathlib import Path

from attention_by_hand.errors import UserError

__all__ = ["read_text_file"]


def read_text_file(path: str | Path, what: str, limit: int, hint: str = "") -> str:
    """The file's text; `what` names the kind of file in messages ("world file", "log")."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file{hint}") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, not a {what}") from None
    except OSError as err:
        raise UserError(f"{path}: cannot read the {what} ({err.strerror})") from None
    if not data:
        raise UserError(f"{path}: the {what} is empty")
    if len(data) > limit:
        raise UserError(f"{path}: more than {limit:,} bytes, too large for a {what}")
    if b"\0" in data:
        raise UserError(f"{path}: a binary file, not a {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"{path}: not UTF-8 text (bad byte at offset {err.start}), not a {what}") from None
