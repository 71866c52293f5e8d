"""Start the language server from the command line: `accls --stdio | --tcp PORT`."""

from __future__ import annotations

import argparse
import logging
import sys

__all__ = ["add_server_options", "serve", "wants_server"]

_LEVELS = ("debug", "info", "warning", "error")


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """The top-level options that start the server instead of a subcommand."""
    group = parser.add_argument_group("language server")
    mode = group.add_mutually_exclusive_group()
    mode.add_argument(
        "--stdio", action="store_true", help="run the language server on stdin/stdout"
    )
    mode.add_argument(
        "--tcp",
        type=int,
        metavar="PORT",
        default=None,
        help="run the language server on 127.0.0.1:PORT (for debugging)",
    )
    group.add_argument(
        "--log-file", metavar="FILE", help="server log (default: stderr)"
    )
    group.add_argument(
        "--log-level", choices=_LEVELS, default="info", help="server log level"
    )


def wants_server(args: argparse.Namespace) -> bool:
    """Whether the command line asks for the language server."""
    return bool(getattr(args, "stdio", False)) or getattr(args, "tcp", None) is not None


def _logging(args: argparse.Namespace) -> None:
    # stdout carries the protocol: the log goes to stderr or a file, never stdout.
    handler: logging.Handler
    if args.log_file:
        handler = logging.FileHandler(args.log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(args.log_level.upper())
    # pygls logs every message at info; keep that for --log-level debug.
    if args.log_level != "debug":
        logging.getLogger("pygls").setLevel(logging.WARNING)


def serve(args: argparse.Namespace) -> int:
    """Run the server until the client says exit; the exit code."""
    if args.tcp is not None and not 0 < args.tcp < 65536:
        print(f"accls: error: --tcp: not a port: {args.tcp}", file=sys.stderr)
        return 2
    try:
        _logging(args)
    except OSError as exc:
        print(f"accls: error: --log-file: {exc.strerror or exc}", file=sys.stderr)
        return 2
    from accls.server.app import build_server
    from accls.server.transport import run_stdio

    server = build_server()
    if args.tcp is not None:
        server.start_tcp("127.0.0.1", args.tcp)
    else:
        run_stdio(server)
    return 0
