#!/usr/bin/python3
"""The connection limits of both fronts, the native one and `npx entities-images-mock` (Node's http), probed the
same way on loopback (issue 36, item 6): a body over --max-body gets 413 at once (an endless chunked POST, a
100 MiB Content-Length read no further), even by a client that sends all of it first; a head over --max-head
431; a head not whole within --head-timeout 408, a silent connection and an idle keep-alive one closed; at
--max-connections the connection idle longest makes room, and 503 names the flag when none is idle. Before,
npx answered none of these: it read bodies whole, never timed a head, and took every connection.

Usage: front_limits.py [--native BINARY] [--npx APP_DIR]. Exit 0 when every probe holds on every front given,
1 naming the ones that do not.
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import threading
import time

FLAGS = {"--port": "0", "--records": "100", "--max-body": "1048576", "--head-timeout": "1000",
         "--keep-alive-timeout": "1500"}
# Waits are hang guards, not speed checks (issue 43): far above what a slow or busy machine needs, below what
# the broken behaviour each probe tells apart takes (a connection never closed, a body read to its end); a
# probe is bounded by what it counts (bytes taken before the 413, the status) and by lower bounds on delays.
HANG_GUARD = 30
PAGE = b"GET /edw/api/entities-images/?limit=1 HTTP/1.1\r\nHost: x\r\n\r\n"
FAILED = []


class Front:
    """A server started with `command` and FLAGS (`extra` overriding them), stopped on exit; `port` once it
    listens."""

    def __init__(self, name, command, extra=None):
        self.name = name
        flags = [part for flag, value in {**FLAGS, **(extra or {})}.items() for part in (flag, value)]
        self.process = subprocess.Popen(command + flags + ["--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not found:
            raise RuntimeError(f"{name} did not start: {line!r} {self.process.stderr.read()[:500]}")
        self.port = int(found.group(1))

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.process.terminate()
        self.process.wait(timeout=10)


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_answer(s, timeout=HANG_GUARD):
    """(status, head, body) of one answer (0 when none came in time or the peer closed first)."""
    s.settimeout(timeout)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                return 0, data, b""
            data += chunk
        head, body = data.split(b"\r\n\r\n", 1)
        length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
        while length and len(body) < int(length.group(1)):
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.") else 0
        return status, head, body
    except (socket.timeout, ConnectionError):
        return 0, data, b""


def closed_within(s, seconds):
    """Whether the peer closes the connection within `seconds` (bytes before the close dropped)."""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            if not s.recv(65536):
                return True
    except socket.timeout:
        return False
    except ConnectionError:
        return True
    return False


def check(front, name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {front.name}: {name}" + (f" ({detail})" if detail else ""))
    if not ok:
        FAILED.append(f"{front.name}: {name}")


ENDLESS_BYTES = 256 << 20  # what the endless POST offers: a front that reads bodies to their end takes it all


def endless_chunked(front):
    """Chunks sent (up to 256 MiB, or until refused) while the answer is awaited: 413 once --max-body (1 MiB)
    is passed, before the client has sent more than a few MiB (the body cap plus the sockets' buffers)."""
    s = connect(front.port)
    s.sendall(b"POST /edw/api/entities-images/ HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    sent = [0]
    stop = threading.Event()

    def send():
        chunk = b"10000\r\n" + b"x" * 0x10000 + b"\r\n"
        try:
            while not stop.is_set() and sent[0] < ENDLESS_BYTES:
                s.sendall(chunk)
                sent[0] += len(chunk)
        except OSError:
            pass

    sender = threading.Thread(target=send)
    sender.start()
    status, _, body = read_answer(s)
    sent_before_answer = sent[0]
    stop.set()
    sender.join()
    check(front, "an endless chunked POST: 413 once over --max-body",
          status == 413 and sent_before_answer < (32 << 20), f"{status} after {sent_before_answer >> 20} MiB sent")
    check(front, "... then closed", closed_within(s, HANG_GUARD))
    s.close()


def announced_body(front):
    """A POST announcing 100 MiB with only its head sent: 413 from the Content-Length alone."""
    s = connect(front.port)
    s.sendall(b"POST /edw/api/entities-images/ HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
              b"Content-Length: 104857600\r\n\r\n" + b"x" * 65536)
    # Only 64 KiB of the body ever comes: a front that waited for it would answer 408 (--head-timeout) or never.
    status, _, _ = read_answer(s)
    check(front, "a 100 MiB Content-Length: 413 before the body is read", status == 413, str(status))
    s.close()


def whole_refused_body(front):
    """A client that sends 16 MiB (over --max-body) before it reads still reads its 413."""
    s = connect(front.port)
    body = b"x" * (16 << 20)
    try:
        s.settimeout(HANG_GUARD)
        s.sendall(b"POST /edw/api/entities-images/ HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body) + body)
        sent = True
    except OSError:
        sent = False
    status, _, _ = read_answer(s)
    check(front, "a whole 16 MiB body sent before reading: its 413 still read", sent and status == 413,
          f"sent {sent}, {status}")
    s.close()


def long_head(front):
    """40 header lines of 4,000 bytes: a head over --max-head (64 KiB), 431 and a close."""
    s = connect(front.port)
    head = b"GET /edw/api/entities-images/ HTTP/1.1\r\nHost: x\r\n" + b"".join(
        b"X-%d: %s\r\n" % (i, b"c" * 4000) for i in range(40))
    try:
        s.sendall(head)
    except OSError:
        pass
    status, _, _ = read_answer(s)
    check(front, "a head over --max-head: 431", status == 431, str(status))
    check(front, "... then closed", closed_within(s, HANG_GUARD))
    s.close()


def slow_head(front):
    """A head not whole within --head-timeout (1 s): 408 naming the flag, then a close; a silent connection
    closed; a keep-alive connection idle past --keep-alive-timeout (1.5 s) closed."""
    s = connect(front.port)
    s.sendall(b"GET /edw/api/entities-images/ HTTP/1.1\r\nHost")
    status, _, body = read_answer(s)
    check(front, "a head not whole within --head-timeout: 408 naming it", status == 408 and b"--head-timeout" in body,
          f"{status} {body[:80]!r}")
    check(front, "... then closed", closed_within(s, HANG_GUARD))
    s.close()
    silent = connect(front.port)
    started = time.monotonic()
    closed = closed_within(silent, HANG_GUARD)
    check(front, "a silent connection closed after --head-timeout", closed and time.monotonic() - started >= 0.8,
          f"after {time.monotonic() - started:.2f} s")
    silent.close()
    kept = connect(front.port)
    kept.sendall(PAGE)
    status, _, _ = read_answer(kept)
    started = time.monotonic()
    closed = closed_within(kept, HANG_GUARD)
    check(front, "an idle keep-alive connection closed after --keep-alive-timeout",
          status == 200 and closed and time.monotonic() - started >= 1.2, f"after {time.monotonic() - started:.2f} s")
    kept.close()


def idle_make_room(front):
    """--max-connections 6: three silent connections, then three kept alive; each new one is answered while
    the one idle longest is closed for it."""
    held = []
    for _ in range(3):
        held.append(connect(front.port))
        time.sleep(0.02)
    for _ in range(3):
        held.append(connect(front.port))
        held[-1].sendall(PAGE)
        read_answer(held[-1])
        time.sleep(0.02)
    for round in range(3):
        fresh = connect(front.port)
        fresh.sendall(PAGE.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        status, _, _ = read_answer(fresh)
        fresh.close()
        check(front, f"at --max-connections a new client is answered (round {round})", status == 200, str(status))
        check(front, f"... and the one idle longest made room (round {round})", closed_within(held[round], HANG_GUARD))
        held.append(connect(front.port))
        time.sleep(0.05)
    for s in held:
        s.close()


def none_idle(front):
    """--max-connections 2, both in the middle of a head: a new connection gets 503 naming the flag."""
    busy = [connect(front.port) for _ in range(2)]
    for s in busy:
        s.sendall(b"GET /edw/api/entities-images/ HTTP/1.1\r\n")
    time.sleep(0.2)
    s = connect(front.port)
    try:
        s.sendall(PAGE)
    except OSError:
        pass
    status, _, body = read_answer(s)
    check(front, "at --max-connections with none idle: 503 naming it",
          status == 503 and b"more than 2 connections (--max-connections), none of them idle" in body,
          f"{status} {body[:100]!r}")
    for c in busy + [s]:
        c.close()


def bind_warning(name, command):
    """Issue 43: --admin or --user on an address other machines reach says so, in one line, before it loads
    (a missing --dataset ends the run there, so nothing is bound to a public address by the test)."""
    cases = [(["--host", "0.0.0.0", "--admin"], "warning: --host 0.0.0.0 with --admin: any machine"),
             (["--host", "0.0.0.0", "--user", "alice:s3cret"], "warning: --host 0.0.0.0 with --user: the password"),
             (["--host", "127.0.0.1", "--admin"], None)]
    for flags, expected in cases:
        done = subprocess.run(command + flags + ["--port", "0", "--dataset", "/nonexistent/records.jsonl"],
                              capture_output=True, text=True, timeout=HANG_GUARD, stdin=subprocess.DEVNULL)
        warnings = [line for line in done.stderr.splitlines() if "warning:" in line]
        ok = done.returncode == 1 and (len(warnings) == 1 and expected in warnings[0] if expected else not warnings)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {' '.join(flags)}: {'one line of warning' if expected else 'no warning'}"
              + ("" if ok else f" (exit {done.returncode}: {done.stderr.strip()[:300]!r})"))
        if not ok:
            FAILED.append(f"{name}: warning for {' '.join(flags)}")


def probe_front(name, command):
    try:
        Front(name, command).__exit__()
    except RuntimeError as e:  # e.g. a front that does not take the flags
        print(f"FAIL {name}: {e}")
        FAILED.append(f"{name}: does not start")
        return
    bind_warning(name, command)
    with Front(name, command) as front:
        for probe in (endless_chunked, announced_body, whole_refused_body, long_head, slow_head):
            probe(front)
    # Timeouts far above HANG_GUARD: only making room closes a connection, and the busy stay busy.
    long_timeouts = {"--head-timeout": "600000", "--keep-alive-timeout": "600000"}
    with Front(name, command, {"--max-connections": "6", **long_timeouts}) as front:
        idle_make_room(front)
    with Front(name, command, {"--max-connections": "2", **long_timeouts}) as front:
        none_idle(front)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--native", help="the native mock's binary")
    parser.add_argument("--npx", help="an app folder with entities-images-mock installed")
    args = parser.parse_args()
    started = time.monotonic()
    if args.native:
        probe_front("native", [args.native])
    if args.npx:
        probe_front("npx", ["node", os.path.join(args.npx, "node_modules", "entities-images-mock", "bin",
                                                 "entities-images-mock.js")])
    print(f"{len(FAILED)} failed in {time.monotonic() - started:.1f} s" + (": " + "; ".join(FAILED) if FAILED else ""))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
