"""The words for a file that could not be checked: the child's "fatal" event, said with the
learner's line (or notebook cell) where it happened."""

from __future__ import annotations


def at_line(line, line_name=None) -> str:
    """", line 12" (or the cell's name line_name gives), or "" when there is no line."""
    if not line:
        return ""
    return f", {line_name(line)}" if line_name else f", line {line}"


def fatal_message(event: dict, where: str, memory_mb: int, line_name) -> str:
    """The one line that says why the file could not be checked, and where."""
    reason, at = event.get("reason"), at_line(event.get("line"), line_name)
    if reason == "syntax":
        return f"syntax error{at}: {event.get('message')}"
    if reason == "import":
        return f"error while importing the file{at}: {event.get('message')}"
    if reason == "exit":
        keep = 'keep the steps under if __name__ == "__main__":'
        return f"the file called sys.exit() {where}{at}; {keep}"
    if reason == "memory":
        return (
            f"memory limit: used more than {memory_mb} MB beyond torch {where}{at} "
            "(a list or tensor that grows without end?)"
        )
    if reason == "missing":
        names = ", ".join(event.get("names", []))
        return f"missing function(s): {names}; the checker calls them by name, keep the names of the exercise"
    return f"the checker's helper stopped: {reason}"
