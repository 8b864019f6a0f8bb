"""A real ``/rerank`` HTTP server on loopback that scores documents by shared words."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class RerankServer:
    """Scores each document by the query words it contains, as Cohere or TEI would answer."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.delay_s = 0.0
        self.status = 200
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                body["authorization"] = self.headers.get("Authorization")
                server.requests.append(body)
                time.sleep(server.delay_s)
                words = set(body["query"].lower().split())
                docs = body.get("documents") or body.get("texts")
                scores = [len(words & set(d.lower().split())) for d in docs]
                if "texts" in body:  # TEI: a bare list with "score"
                    answer: Any = [{"index": i, "score": s} for i, s in enumerate(scores)]
                else:
                    answer = {
                        "results": [
                            {"index": i, "relevance_score": s}
                            for i, s in reversed(list(enumerate(scores)))
                        ]
                    }
                data = json.dumps(answer).encode()
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/rerank"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@contextmanager
def rerank_server() -> Iterator[RerankServer]:
    fake = RerankServer()
    try:
        yield fake
    finally:
        fake.httpd.shutdown()
        fake.httpd.server_close()
