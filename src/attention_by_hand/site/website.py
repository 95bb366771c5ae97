"""Building and serving the workshop site.

    build   Sphinx, in this process, on `workshop/` and the runs' outputs (warnings are errors)
    serve   the built site on 127.0.0.1 until Ctrl-C

The site's sources are the folder `workshop/`; Sphinx reads the runs' outputs through the
extension in `sphinxext/`, never the other way round.

Left out: deciding whether a part must run first (run/stamp.py, called by the CLI's `build`).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
from pathlib import Path

from attention_by_hand.errors import UserError

__all__ = ["find_sources", "build_site", "make_server", "serve"]


def find_sources(source: str | Path | None = None) -> Path:
    """The site's source folder: the one given, else ./workshop, else the one beside the package."""
    candidates = [Path(source)] if source else [Path("workshop"), Path(__file__).resolve().parents[3] / "workshop"]
    for folder in candidates:
        if (folder / "conf.py").is_file():
            return folder
    raise UserError(f"{candidates[0]}: no site sources here (expected a folder with conf.py)")


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
