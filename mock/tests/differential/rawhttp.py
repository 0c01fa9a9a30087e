"""A raw-socket HTTP/1.1 client: the request goes on the wire exactly as written, the answer comes back unparsed."""

import socket
import time
from dataclasses import dataclass, field

# Hang guards far above what a loopback answer (Django's included) takes on a busy machine (issue 43).
CONNECT_TIMEOUT = 30.0
READ_TIMEOUT = 30.0
HEAD_BODY_GRACE = 0.3  # how long to wait for bytes a server should not send after a HEAD answer


@dataclass
class RawResponse:
    status_line: str = ""
    headers: list = field(default_factory=list)  # [(name, value)] in wire order
    body: bytes = b""
    error: str = ""  # set when the exchange itself failed (refused, timeout, malformed answer)
    interim: list = field(default_factory=list)  # status lines of 1xx answers before this one ("100 Continue")

    @property
    def framing(self):
        """How the body is delimited: "chunked", "length" (Content-Length) or "close" (neither)."""
        if any("chunked" in value.lower() for value in self.header("Transfer-Encoding")):
            return "chunked"
        return "length" if self.header("Content-Length") else "close"

    @property
    def status(self):
        parts = self.status_line.split(" ", 2)
        return parts[1] if len(parts) > 1 else ""

    def header(self, name):
        """All values of a header (case-insensitive name), in wire order."""
        return [value for key, value in self.headers if key.lower() == name.lower()]


def build_request(method, target, host, headers, body=b""):
    """`headers` are "Name: value" lines; one starting with "Host:" replaces the default Host line.

    `body` (bytes) follows the header block as it is. Unless a "Content-Length:" line is among `headers` (to send
    a wrong one on purpose), a non-empty body gets a Content-Length line of its true length.
    """
    lines = [f"{method} {target} HTTP/1.1"]
    if not any(line.lower().startswith("host:") for line in headers):
        lines.append(f"Host: {host}")
    lines.extend(headers)
    if body and not any(line.lower().startswith("content-length:") for line in headers):
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + body


MULTIPART_BOUNDARY = "edwsimBoundary7MA4YWxkTrZu0gW"


def multipart(parts, boundary=MULTIPART_BOUNDARY):
    """A multipart/form-data body as browsers and curl write it; returns (Content-Type header line, body bytes).

    Each part is (name, value) for a text field or (name, filename, content_type, data) for a file; names,
    values and file names go out as UTF-8, unescaped (as browsers do), data (bytes) as it is.
    """
    body = b""
    for part in parts:
        if len(part) == 2:
            name, value = part
            head = f'Content-Disposition: form-data; name="{name}"'
            data = value.encode("utf-8") if isinstance(value, str) else value
        else:
            name, filename, content_type, data = part
            head = (f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                    f"Content-Type: {content_type}")
        body += f"--{boundary}\r\n{head}\r\n\r\n".encode("utf-8") + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode("ascii")
    return f"Content-Type: multipart/form-data; boundary={boundary}", body


def _recv_until(sock, buffer, predicate, deadline):
    """Reads until predicate(buffer) holds; returns (buffer, "done" | "eof" | "timeout")."""
    while not predicate(buffer):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return buffer, "timeout"
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return buffer, "timeout"
        if not chunk:
            return buffer, "eof"
        buffer += chunk
    return buffer, "done"


def _parse_head(raw_head):
    lines = raw_head.decode("iso-8859-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    return lines[0], headers


def _dechunk(data):
    body, rest = b"", data
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        body, rest = body + rest[:size], rest[size + 2:]
    return body


def exchange(port, request_bytes, is_head):
    """Sends one request on a fresh connection and reads one response (all of it, even a body after HEAD)."""
    response = RawResponse()
    deadline = time.monotonic() + READ_TIMEOUT
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=CONNECT_TIMEOUT) as sock:
            sock.sendall(request_bytes)
            data = b""
            while True:  # interim answers (1xx, e.g. "100 Continue") come before the answer
                data, state = _recv_until(sock, data, lambda b: b"\r\n\r\n" in b, deadline)
                if state != "done":
                    response.error = f"no complete header block ({state}); got {data[:200]!r}"
                    return response
                raw_head, _, data = data.partition(b"\r\n\r\n")
                response.status_line, response.headers = _parse_head(raw_head)
                if not response.status.startswith("1") or response.status == "101":
                    break
                response.interim.append(response.status_line.split(" ", 1)[-1])
            lengths = response.header("Content-Length")
            chunked = any("chunked" in v.lower() for v in response.header("Transfer-Encoding"))
            if is_head or response.status in ("204", "304"):
                # Nothing should follow: wait briefly so that stray bytes are caught, then stop.
                data, state = _recv_until(sock, data, lambda b: False, time.monotonic() + HEAD_BODY_GRACE)
            elif chunked:
                data, state = _recv_until(sock, data, lambda b: b.endswith(b"0\r\n\r\n"), deadline)
                data = _dechunk(data)
            elif lengths and lengths[0].isdigit():
                data, state = _recv_until(sock, data, lambda b: len(b) >= int(lengths[0]), deadline)
            else:
                data, state = _recv_until(sock, data, lambda b: False, deadline)
            if state == "timeout" and not is_head:
                response.error = f"timed out after {READ_TIMEOUT:.0f} s reading the body ({len(data)} bytes so far)"
            response.body = data
    except OSError as error:
        response.error = f"{type(error).__name__}: {error}"
    return response
