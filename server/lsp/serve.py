"""`relavium-lsp serve`: the language server over stdio (default) or TCP."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from server.lsp.boot.early_initialize import open_stdio
from server.lsp.boot.early_open import opened_document

if TYPE_CHECKING:
    from server.lsp.worker.spawn import StartedProcess

NAME = "serve"
HELP = "Run the language server over stdio (default) or TCP."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    transport = parser.add_mutually_exclusive_group()
    # vscode-languageclient appends --stdio; accepted, and the default anyway
    transport.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead")


def parse_address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--tcp expects HOST:PORT (e.g. 127.0.0.1:2087), got {value!r}")
    return host, int(port)


def run(arguments: list[str]) -> int:
    """`relavium-lsp serve ARGUMENTS`, parsed without loading the other subcommands (see
    `server.cli.main.main`)."""
    parser = argparse.ArgumentParser(prog="relavium-lsp serve", description=HELP)
    add_arguments(parser)
    return main(parser.parse_args(arguments))


def main(args: argparse.Namespace) -> int:
    address = None
    if args.tcp:
        try:
            address = parse_address(args.tcp)
        except ValueError as error:
            print(f"relavium-lsp serve: {error}", file=sys.stderr)
            return 2
    # Logs go to stderr; the client reads LSP messages on stdout, so nothing else may write
    # there: keep the real stdout for the protocol and point `print` at stderr.
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("pygls.protocol.json_rpc").addFilter(_late_cancellations)
    protocol_stdout = sys.stdout.buffer
    sys.stdout = sys.stderr
    opening = None
    if address is None:
        # before pygls, lsprotocol and the analysis are imported: the client's `initialize` is
        # answered without them (most of a second sooner)
        opening = open_stdio(protocol_stdout)
    # imported once the answer is out: subprocess alone takes a tenth of a second to load
    from server.lsp.worker.spawn import start_analysis_process

    try:
        analysis_process = start_analysis_process()
    except OSError:
        analysis_process = None  # the server reports it when a large document needs one
    if opening is not None:
        opening.frames.start(
            early=warm_large_documents(analysis_process) if analysis_process else None)
    from analysis.checks.collector import tune_collector
    from server.lsp.language_server import create_server

    tune_collector()
    server = create_server()
    if analysis_process is not None:
        server.analysis_process.adopt(analysis_process)
    tune_collector()  # again: freeze what creating the server imported
    # Analyses are CPU-bound Python on their own threads; the event loop answering requests
    # waits for the interpreter lock up to this long at each hand-over (5 ms by default). With
    # 0.5 ms a hover on a small document while large ones are analysed answers several times
    # sooner (bench/starve.py), for a little switching overhead.
    sys.setswitchinterval(0.0005)
    if address is not None:
        server.start_tcp(*address)
    else:
        server.start_io(stdout=protocol_stdout, opening=opening)
    return server.exit_code


def warm_large_documents(started: StartedProcess) -> Callable[[bytes], None]:
    """What the client's frames read while the server loads are shown to: a large Relavium
    document opened then is analysed in `started` at once, and its first diagnostics come as
    soon as the server has loaded (0.2-0.3 s sooner at 1,000 nodes, 0.4-1.2 s at 5,000:
    bench/startup.py --nodes).
    The server's own job for it finds that analysis (or builds on it, after an edit)."""
    from server.lsp.document_uris import is_relavium_uri, uri_to_path
    from server.lsp.worker.spawn import KEPT_ANALYSES, LARGE_DOCUMENT_CHARS

    warmed: set[str] = set()

    def early(frame: bytes) -> None:
        opened = opened_document(frame)
        # no more than the process keeps: a document it forgot again would only delay the rest
        if opened is not None and len(warmed) < KEPT_ANALYSES:
            uri, text = opened
            if len(text) >= LARGE_DOCUMENT_CHARS and is_relavium_uri(uri):
                warmed.add(uri)
                started.warm(text, uri_to_path(uri))

    return early


def _late_cancellations(record: logging.LogRecord) -> bool:
    """Drop pygls' warning for a `$/cancelRequest` that arrives after its request was answered:
    clients send those all the time while the user types (LSP allows it), and VS Code shows every
    stderr line as an error."""
    return not record.getMessage().startswith("Cancel notification for unknown message id")
