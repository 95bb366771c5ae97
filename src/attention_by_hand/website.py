"""Building and serving the workshop site.

    build   run the experiment if its outputs are stale, then Sphinx (warnings are errors)
    serve   build, then serve the site on 127.0.0.1 until Ctrl-C

Stale means: no stamp beside the log, a stamp that does not match what the run would make now
(the run's code, the canonical world, the versions of torch, NumPy, Matplotlib and Python), or
an output (log, index, figure) whose bytes are no longer the ones the run wrote; `stamp.py`
keeps and compares the stamp, `why_stale` here names what the site's run would be made from.
The site's sources are the folder `workshop/`; Sphinx reads the run's outputs through the
extension in `sphinxext/`, never the other way round.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
from pathlib import Path

from attention_by_hand.errors import UserError
from attention_by_hand.parts import PARTS, Part

__all__ = ["find_sources", "inputs_now", "why_stale", "build_site", "make_server", "serve"]


def find_sources(source: str | Path | None = None) -> Path:
    """The site's source folder: the one given, else ./workshop, else the one beside the package."""
    candidates = [Path(source)] if source else [Path("workshop"), Path(__file__).resolve().parents[2] / "workshop"]
    for folder in candidates:
        if (folder / "conf.py").is_file():
            return folder
    raise UserError(f"{candidates[0]}: no site sources here (expected a folder with conf.py)")


def inputs_now(part: Part = PARTS[0]) -> dict:
    """What the part's run would stamp now (canonical world, installed versions), without torch."""
    from attention_by_hand import stamp
    from attention_by_hand.world import RIVER_BANK

    return stamp.made_from(RIVER_BANK if part.takes_world else None, part.environment(), part.code)


def canonical_inputs() -> dict:
    """What the canonical run would stamp now."""
    return inputs_now(PARTS[0])


def why_stale(root: Path, part: Part = PARTS[0]) -> list[str]:
    """Why a part's outputs under `root` must be made again (one phrase each, for the learner to
    read); empty when they are current."""
    from attention_by_hand import stamp

    return stamp.why_stale(root, inputs_now(part), part)


def build_site(source: Path, out: Path, captures: Path, quiet: bool = True) -> tuple[int, str]:
    """Sphinx, in this process: (exit code, what it printed). Warnings fail the build.

    Doctrees (Sphinx's cache, so the next build re-reads only what changed) go beside the
    output, in build/doctrees/<out's name>: never inside the folder that is published.
    """
    from sphinx.cmd.build import build_main

    doctrees = out.parent / "build" / "doctrees" / out.name
    args = [
        "-b", "html", "-W", "--keep-going", "-j", "1",
        "-d", str(doctrees),
        "-D", f"abh_captures={captures.resolve()}",
        str(source), str(out),
    ]  # fmt: skip
    if quiet:
        args.insert(0, "-q")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        code = build_main(args)
    return code, printed.getvalue()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def make_server(site: Path, port: int) -> http.server.ThreadingHTTPServer:
    """An HTTP server for `site` on 127.0.0.1 only (0 = any free port); not yet serving."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as err:
        raise UserError(f"port {port}: cannot serve there ({err.strerror}); try --port 0 for any free port") from None


def serve(site: Path, port: int, ready=print) -> None:
    """Serve `site` on 127.0.0.1:port until interrupted; `ready` gets the line with the URL."""
    with make_server(site, port) as server:
        ready(f"serving {site} at http://127.0.0.1:{server.server_address[1]}/  (Ctrl-C stops)")
        server.serve_forever()
