"""How a message between the server and its analysis process is framed: pickled behind its
length (`server.lsp.worker.wire` says what the messages are). Standard library only, so `serve`
can send the analysis process a message before the server and the analysis are loaded."""

from __future__ import annotations

import io
import pickle
import struct
from collections.abc import Callable
from typing import IO, Any

_HEADER = struct.Struct("!Q")


def pickled_frame(message: tuple[Any, ...], dispatch_table: dict[type, Any] | None = None
                  ) -> bytes:
    """`message` pickled behind its length, with `dispatch_table`'s reductions if given."""
    buffer = io.BytesIO()
    buffer.write(bytes(_HEADER.size))
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    if dispatch_table is not None:
        pickler.dispatch_table = dispatch_table
    pickler.dump(message)
    length = buffer.tell() - _HEADER.size
    buffer.seek(0)
    buffer.write(_HEADER.pack(length))
    return buffer.getvalue()


def read_frame(stream: IO[bytes], unpickled: Callable[[bytes], Any] = pickle.loads) -> Any:
    """One pickled message, or None at the end of the stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (length,) = _HEADER.unpack(header)
    body = stream.read(length)
    if len(body) < length:
        return None
    return unpickled(body)
