#!/usr/bin/python3
"""Range requests on the mock's pictures against a real nginx (Debian's nginx-light) serving the very same bytes as
files: for the small placeholders and the sized pictures (--sized-pictures) of every type, hand-written cases (one
range, a suffix, an open end, several, overlapping, unsatisfiable, malformed, another unit, If-Range, two Range
headers, HEAD) and seeded random ones; status, Content-Type, Content-Length, Content-Range, Accept-Ranges and body
must be nginx's (a multipart answer's boundary masked: nginx numbers it, the mock draws it from the request).

Usage: range_vs_nginx.py --mock PATH --dataset FILE [--seed S] [--random N]. Exit 0 when every answer matches, 1
naming those that do not (each with a curl command against the mock), 2 when a server did not start.
"""

import argparse
import grp
import os
import pwd
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "differential"))

from rawhttp import build_request, exchange  # noqa: E402
from servers import Server  # noqa: E402

TYPES = {"png": "image/png", "jpg": "image/jpeg", "gif": "image/gif", "bmp": "image/bmp",
         "ico": "image/vnd.microsoft.icon", "tif": "image/tiff", "webp": "image/webp", "svg": "image/svg+xml"}
NGINX_CONF = """{user}daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 64; }}
http {{
  access_log off;
  server_tokens off;
  types {{ {types} }}
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  server {{
    listen 127.0.0.1:{port};
    root {dir}/www;
  }}
}}
"""
BOUNDARY = re.compile(rb"boundary=(\d+)")


def cases(length):
    """(label, method, header lines) of the hand-written cases for a file of `length` bytes."""
    n = length
    ranges = ["bytes=0-0", "bytes=0-99", f"bytes={n - 100}-", "bytes=-100", "bytes=-0", "bytes=0-", f"bytes={n}-",
              f"bytes={n - 1}-{n + 10}", f"bytes={n}-{n + 10}", "bytes=5-2", "bytes=-99999999999", "bytes=0-0,-1",
              "bytes=0-9,20-29,5-14", "bytes=0-,0-", "bytes= 1 - 2 , 4-5", "Bytes=0-9", "BYTES=3-4", "bytes=abc",
              "bytes=", "bytes=0-9;", "bytes=0-9,", "items=0-9", "bytes=99999999999999999999-", "bytes=-",
              "bytes=0-0,1-1,2-2,3-3", f"bytes=0-0,{n}-"]
    out = [("no Range", "GET", [])]
    out += [(r, "GET", [f"Range: {r}"]) for r in ranges]
    out += [("HEAD " + r, "HEAD", [f"Range: {r}"]) for r in ("bytes=0-99", "bytes=0-0,-1", f"bytes={n}-")]
    out += [("two Range headers", "GET", ["Range: bytes=0-0", "Range: bytes=1-1"]),
            ("If-Range, another ETag", "GET", ["Range: bytes=0-9", 'If-Range: "not-it"']),
            ("If-Range, another date", "GET", ["Range: bytes=0-9", "If-Range: Thu, 01 Jan 1970 00:00:01 GMT"])]
    return out


def random_cases(rng, length, count):
    def one():
        kind = rng.randrange(4)
        a, b = rng.randrange(length + 50), rng.randrange(length + 50)
        return [f"{a}-{b}", f"{a}-", f"-{a}", f"{min(a, b)}-{max(a, b)}"][kind]
    out = []
    for _ in range(count):
        spec = ",".join(one() for _ in range(rng.choice([1, 1, 1, 2, 3])))
        out.append(("random bytes=" + spec, rng.choice(["GET", "GET", "HEAD"]), [f"Range: bytes={spec}"]))
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(tmp):
    types = " ".join(f"{mime} {ext};" for ext, mime in TYPES.items())
    for _ in range(3):
        port = free_port()
        with open(os.path.join(tmp, "nginx.conf"), "w", encoding="ascii") as f:
            # As root, workers would drop to 'nobody' and lose the temp dir: they keep the current user.
            user = "user %s %s;\n" % (pwd.getpwuid(os.geteuid()).pw_name, grp.getgrgid(os.getegid()).gr_name) \
                if os.geteuid() == 0 else ""
            f.write(NGINX_CONF.format(user=user, dir=tmp, port=port, types=types))
        process = subprocess.Popen(["nginx", "-p", tmp + "/", "-e", os.path.join(tmp, "error.log"), "-c",
                                    os.path.join(tmp, "nginx.conf")], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return process, port
            except OSError:
                time.sleep(0.05)
        process.kill()
        process.wait()
    raise RuntimeError("nginx did not start: " + open(os.path.join(tmp, "error.log"), encoding="utf-8").read())


def seen(port, method, target, lines):
    r = exchange(port, build_request(method, target, f"127.0.0.1:{port}", lines), method == "HEAD")
    if r.error:
        return {"error": r.error}
    body = r.body
    content_type = (r.header("Content-Type") or [""])[0].encode("latin-1")
    match = BOUNDARY.search(content_type)
    if match:  # masked, and its width kept as a check
        body = body.replace(match.group(1), b"B" * len(match.group(1)))
        content_type = content_type.replace(match.group(1), b"B" * len(match.group(1)))
    return {"status": r.status, "content-type": content_type.decode("latin-1"), "body": body,
            **{h: (r.header(h) or [None])[0] for h in ("Content-Length", "Content-Range", "Accept-Ranges")}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mock", required=True)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("ENTIMG_TEST_SEED", "1").split(",")[0]))
    parser.add_argument("--random", type=int, default=12, help="random Range headers a picture")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"seed {args.seed}; replay: {' '.join(sys.argv)} --seed {args.seed}")
    tmp = tempfile.mkdtemp(prefix="entimg-ranges-")
    servers, nginx, failed, compared = [], None, [], 0
    try:
        for mode, flags in (("small", []), ("sized", ["--sized-pictures"])):
            server = Server(f"mock ({mode})", [args.mock, "--host", "127.0.0.1", "--port", "0", "--quiet",
                                               "--memo-bytes", "0", "--dataset", args.dataset] + flags)
            server.start()
            servers.append((mode, server))
        nginx, nginx_port = None, None
        pictures = []  # (mode, mock port, path)
        for mode, server in servers:
            page = urllib.request.urlopen(f"http://127.0.0.1:{server.port}/edw/api/entities-images/?limit=100",
                                          timeout=10).read().decode("utf-8")
            for path in sorted(set(re.findall(r'"image":"http://[^/]+(/media/[^"]+)"', page))):
                ext, number = path.rsplit(".", 1)[-1], int(re.search(r"pic-(\d+)\.", path).group(1))
                # each type once a mode: the small placeholder, and the picture of 300,001 bytes (pictures.jsonl)
                if ext not in TYPES or number % 10 != (2 if mode == "sized" else 1):
                    continue
                data = urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=30).read()
                target = os.path.join(tmp, "www", mode, path.lstrip("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(data)
                pictures.append((mode, server.port, path, len(data)))
        nginx, nginx_port = start_nginx(tmp)
        for mode, port, path, length in pictures:
            for label, method, lines in cases(length) + random_cases(rng, length, args.random):
                mock, reference = seen(port, method, path, lines), seen(nginx_port, method, f"/{mode}{path}", lines)
                compared += 1
                if mock != reference:
                    keys = [k for k in reference if mock.get(k) != reference.get(k)]
                    failed.append(f"{mode} {path} ({length} bytes), {label}: differs in {', '.join(keys)}: "
                                  f"mock {[(k, str(mock.get(k))[:120]) for k in keys]} vs nginx "
                                  f"{[(k, str(reference.get(k))[:120]) for k in keys]}\n    curl -s -D - -o /dev/null "
                                  + ("-I " if method == "HEAD" else "") + " ".join(f"-H '{line}'" for line in lines)
                                  + f" 'http://127.0.0.1:PORT{path}'")
        kinds = sorted({p[2].rsplit(".", 1)[-1] for p in pictures})
        if len([p for p in pictures if p[0] == "sized"]) < len(TYPES) or len(kinds) < len(TYPES):
            failed.append(f"pictures compared: {len(pictures)} ({', '.join(kinds)}); every type in both sizes expected")
    except RuntimeError as error:
        print(f"ERROR {error}")
        return 2
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(10)
        for _, server in servers:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    for line in failed[:20]:
        print("FAIL " + line)
    if len(failed) > 20:
        print(f"... and {len(failed) - 20} more")
    print(f"{compared} answers compared with nginx's, {len(failed)} different")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
