"""pygls' protocol with the server's own text sync and diagnostics-mode negotiation.

What the protocol tells the server goes through `ServerHooks`, which the server attaches itself
as (`RelaviumProtocol.host`): the protocol knows no more of the server than that.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import unquote

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from server.lsp.boot.early_initialize import EarlyAnswer
from server.lsp.settings import section_of

logger = logging.getLogger("relavium-lsp")

# A didChange of the shapes keystrokes send (a range edit, and a whole text), for
# `prepare_keystrokes`: the shapes, not the values, decide the structure hooks cattrs makes.
_KEYSTROKE = {
    "jsonrpc": "2.0",
    "method": types.TEXT_DOCUMENT_DID_CHANGE,
    "params": {
        "textDocument": {"uri": "file:///keystroke.relavium.yaml", "version": 2},
        "contentChanges": [
            {"range": {"start": {"line": 0, "character": 0},
                       "end": {"line": 0, "character": 0}}, "text": "x"},
            {"text": "x"},
        ],
    },
}


# LSP's RequestFailed: the client shows the message (e.g. in VS Code's rename box).
REQUEST_FAILED = -32803


class RequestRefused(JsonRpcException):
    """A request the server answers with an error on purpose: the message says why it cannot be
    done (a rename to an id already taken). An answer, not a failure: logged as one line."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=REQUEST_FAILED)


@dataclass(frozen=True)
class JsonText:
    """A request's result already written as JSON text (ASCII only), for a result too large or
    too deeply nested to be serialised on the event loop: a feature writes it in the thread its
    work ran in, and the answer splices it in as it is."""

    text: str


class ServerHooks(Protocol):
    """What the protocol tells the server (`server.lsp.language_server.RelaviumLanguageServer`)."""

    # decided at initialize: pull when the client supports textDocument/diagnostic
    pull_diagnostics: bool
    # what `serve` exits with
    exit_code: int

    def open_document(self, item: types.TextDocumentItem) -> None: ...

    def change_document(self, params: types.DidChangeTextDocumentParams) -> str | None:
        """Apply the edits; the document's text after them (None: not an open workflow)."""

    def close_document(self, uri: str) -> None: ...

    def apply_settings(self, raw: Any, source: str) -> None: ...

    def log_warning(self, message: str) -> None: ...

    def log_error(self, message: str) -> None: ...


class RelaviumProtocol(LanguageServerProtocol):
    # the server, attached as soon as it has made its protocol
    host: ServerHooks
    # set by `server.lsp.boot.transport.dispatch` when initialize arrives: requests before it are
    # refused
    initialize_seen = False
    # the `initialize` answer `relavium-lsp serve` sent before the server was loaded (see
    # server.lsp.boot.early_initialize): the server handles that request as usual but sends no
    # answer
    early: EarlyAnswer | None = None
    keystrokes_prepared = False

    def prepare_keystrokes(self) -> None:
        """Have cattrs make the didChange structure hooks now. Made on first use, they cost the
        session's first keystroke ~3 ms, a fifth of an edit's round trip at 1,000 nodes (the
        p95 of bench/yamlls.py's 20 edits); the server calls this while an opened document's
        first analysis runs, when the event loop is idle anyway."""
        if not self.keystrokes_prepared:
            self.keystrokes_prepared = True
            self.structure_message(_KEYSTROKE)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcInvalidParams:
            early = self.early
            if early is None or data.get("method") != types.INITIALIZE or data.get(
                "id"
            ) != early.request_id:
                raise
        # The answer is out, so the request cannot be refused any more: keep the client
        # capabilities the answer depended on, and say why the others are gone.
        self.host.log_error(
            "relavium-lsp: the client capabilities in `initialize` do not have the shape LSP "
            "gives them (the server's stderr says where); the server goes on as if the client "
            "had announced only what its answer depended on (position encodings, pull "
            "diagnostics, prepareRename and willSave support) — report this to the editor's "
            "maintainers"
        )
        params = {**data["params"], "capabilities": early.capabilities}
        return super().structure_message({**data, "params": params})

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        # pygls logs every error answer with a traceback at ERROR level (and reports it as a
        # server error): a refusal is the answer the user needs, so it is sent as it is.
        refusal = None if future.cancelled() else future.exception()
        if not isinstance(refusal, RequestRefused):
            super()._send_handler_result(future, msg_id=msg_id)
            return
        self._request_futures.pop(msg_id, None)
        logger.info("refused request %s: %s", msg_id, refusal.message)
        self._send_response(msg_id, error=refusal.to_response_error())

    def _send_response(
        self, msg_id: Any, result: Any | None = None, error: Any | None = None
    ) -> None:
        if isinstance(result, JsonText) and error is None:
            self._result_types.pop(msg_id, None)
            self._send_text(f'{{"id": {json.dumps(msg_id)}, "jsonrpc": "2.0", '
                            f'"result": {result.text}}}')
            return
        early = self.early
        if early is None or msg_id != early.request_id:
            super()._send_response(msg_id, result, error)
            return
        self.early = None
        own = None if error is not None else json.loads(
            json.dumps(result, default=self._serialize_message)
        )
        if own != early.result:  # a stale capabilities.json: tests/server keep it from shipping
            logger.error(
                "the initialize answer sent early was %s; the server's own is %s",
                early.result, own if error is None else error,
            )
            self.host.log_error(
                "relavium-lsp: the capabilities announced at start-up differ from the server's; "
                "please report this bug (the server's stderr has both)"
            )

    def _send_text(self, body: str) -> None:
        """`_send_data`'s framing for a body already written (ASCII, so its length in characters
        is its length in bytes), to the server's writers, which all write synchronously."""
        if self.writer is None:
            logger.error("Unable to send data, no available transport!")
            return
        header = (f"Content-Length: {len(body)}\r\n"
                  f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n")
        frame = header + body if self._include_headers else body
        self.writer.write(frame.encode(self.CHARSET))

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        ls = self.host
        # Pull only from clients that can be told to pull again: after a settings change the
        # server must re-diagnose every open document, and Neovim 0.11 pulls but has no
        # refresh support (it only pulls after an edit), so it gets pushed diagnostics.
        ls.pull_diagnostics = get_capability(
            params.capabilities, "text_document.diagnostic", None
        ) is not None and get_capability(
            params.capabilities, "workspace.diagnostics.refresh_support", False
        )
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        # Pull for clients that pull, push otherwise, never both: hide the pull provider from
        # push clients (the capability builder advertises every registered feature).
        if not ls.pull_diagnostics:
            result.capabilities.diagnostic_provider = None
        if params.initialization_options is not None:
            ls.apply_settings(section_of(params.initialization_options), "initializationOptions")
        return result

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        # pygls cancels pending requests while iterating over the dict their cancellation
        # callbacks pop from: with a command still running, `shutdown` answered an internal
        # error. Cancel them from a copy first; pygls' own pass then finds nothing to cancel.
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        yield from super().lsp_shutdown(*args)

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        # pygls' own exit status (1 without a shutdown first, as LSP asks) is a SystemExit that
        # its server loop swallows; `relavium-lsp serve` returns this instead.
        self.host.exit_code = 0 if self._shutdown else 1
        yield from super().lsp_exit(*args)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(
        self, params: types.ExecuteCommandParams
    ) -> Generator[Any, Any, Any]:
        # pygls runs the command as a task of its own, so `$/cancelRequest` only cancels the
        # request's answer and the command runs on (holding a sandbox turn, a dry run going
        # through every node). Tie the two: cancelling the request cancels the command.
        request = self._request_futures.get(self.msg_id) if self.msg_id is not None else None
        steps = super().lsp_workspace__execute_command(params)
        handler, args, kwargs = next(steps)
        if request is not None and inspect.iscoroutinefunction(handler):
            handler = _cancelled_with(request, handler)
        result = yield handler, args, kwargs
        try:
            steps.send(result)
        except StopIteration as done:
            return done.value
        return result

    # Text sync: the server keeps workflow documents itself (see server.lsp.documents.apply_changes)
    # and mirrors every document into pygls' workspace as whole text, for code that reads it.

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        self.host.open_document(params.text_document)
        yield from super().lsp_text_document__did_open(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        uri = params.text_document.uri
        if unquote(uri) not in self.workspace.text_documents:  # pygls keys them unquoted
            self.host.log_warning(f"didChange for {uri}, which is not open; ignored")
            return
        text = self.host.change_document(params)
        if text is not None:
            params = types.DidChangeTextDocumentParams(
                text_document=params.text_document,
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        self.host.close_document(params.text_document.uri)
        yield from super().lsp_text_document__did_close(params)


def _cancelled_with(request: Any, handler: Any) -> Any:
    """`handler`, its task cancelled when `request` (the request's answer) is."""

    @functools.wraps(handler)
    async def linked(*args: Any, **kwargs: Any) -> Any:
        task = asyncio.current_task()
        if task is not None:
            request.add_done_callback(lambda answer: answer.cancelled() and task.cancel())
        return await handler(*args, **kwargs)

    return linked
