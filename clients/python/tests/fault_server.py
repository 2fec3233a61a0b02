"""A local HTTP server that answers each request as a script says: a status, a reset, or silence
(as clients/js/test/fault-server.ts). Runs in a thread, so the sync and the async client can use it."""

from __future__ import annotations

import json
import socket
import struct
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Union


@dataclass
class Seen:
    method: str
    url: str
    headers: Dict[str, str]
    body: str


@dataclass
class Reply:
    status: int
    body: Any = None
    headers: Optional[Dict[str, str]] = None


Answer = Union[Reply, str]
"""A Reply, "reset" (the connection is dropped before any answer) or "hang" (no answer until the server stops)."""
Script = Callable[[Seen, int], Answer]


class FaultServer:
    def __init__(self, base_url: str, seen: List[Seen]) -> None:
        self.base_url = base_url
        self.seen = seen

    def keys(self) -> List[Optional[str]]:
        return [s.headers.get("idempotency-key") for s in self.seen]


@contextmanager
def fault_server(script: Script) -> Iterator[FaultServer]:
    seen: List[Seen] = []
    lock = threading.Lock()
    stopping = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def handle_one(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length).decode("utf-8") if length else ""
            with lock:
                s = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                seen.append(s)
                answer = script(s, len(seen))
            if answer == "reset":
                # SO_LINGER 0: the close sends a TCP reset instead of an orderly end.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
                return
            if answer == "hang":
                stopping.wait()
                self.close_connection = True
                return
            assert isinstance(answer, Reply)
            text = "" if answer.body is None else answer.body if isinstance(answer.body, str) else json.dumps(answer.body)
            data = text.encode("utf-8")
            self.send_response(answer.status)
            headers = {"content-type": "application/json", "request-id": f"req_{len(seen)}", **(answer.headers or {})}
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = handle_one

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield FaultServer(f"http://127.0.0.1:{server.server_address[1]}", seen)
    finally:
        stopping.set()
        server.shutdown()
        server.server_close()
