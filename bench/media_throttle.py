#!/usr/bin/env python3
"""A front for the benches: passes every request on to an upstream (the mock) and answers pictures
(/media/...) no faster than --pictures-per-second, as Django serving MEDIA_URL or a throttled CDN does; the API's
pages pass at once. Host goes upstream as the client sent it, so links and images name this front.

usage: media_throttle.py --upstream http://127.0.0.1:8000 [--port 0] [--pictures-per-second 100]
Prints "listening on http://127.0.0.1:PORT" when ready; stops on SIGTERM or SIGINT. Loopback only.
"""
import argparse
import http.client
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Throttle:
    """Slots spaced 1/rate apart, taken in turn by whichever thread asks (a token bucket of one)."""

    def __init__(self, rate):
        self.interval = 1.0 / rate
        self.next = time.monotonic()
        self.lock = threading.Lock()

    def wait(self):
        with self.lock:
            now = time.monotonic()
            slot = max(now, self.next)
            self.next = slot + self.interval
        delay = slot - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def make_handler(upstream, throttle):
    host, port = upstream.hostname, upstream.port or 80
    local = threading.local()

    def connection():
        if getattr(local, "conn", None) is None:
            local.conn = http.client.HTTPConnection(host, port, timeout=60)
        return local.conn

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def forward(self, method):
            if self.path.startswith("/media/"):
                throttle.wait()
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
            for attempt in (1, 2):
                try:
                    conn = connection()
                    conn.request(method, self.path, headers=headers)
                    answer = conn.getresponse()
                    body = answer.read()
                    break
                except (http.client.HTTPException, OSError):
                    local.conn = None  # a closed keep-alive connection: once more on a new one
                    if attempt == 2:
                        self.send_error(502)
                        return
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in ("connection", "keep-alive", "transfer-encoding", "content-length"):
                    self.send_header(name, value)
            # A HEAD's Content-Length is the GET's, as the upstream said it (the body is empty).
            length = answer.getheader("Content-Length") if method == "HEAD" else None
            self.send_header("Content-Length", length if length is not None else str(len(body)))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(body)

        def do_GET(self):
            self.forward("GET")

        def do_HEAD(self):
            self.forward("HEAD")

        def do_OPTIONS(self):
            self.forward("OPTIONS")

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--pictures-per-second", type=float, default=100.0)
    args = parser.parse_args()
    if args.pictures_per_second <= 0:
        parser.error("--pictures-per-second must be above 0")
    upstream = urllib.parse.urlsplit(args.upstream)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(upstream, Throttle(args.pictures_per_second)))
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
