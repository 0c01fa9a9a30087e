"""Starting and always stopping the servers the black-box tests point the suite at."""

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time

READY = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")


@contextlib.contextmanager
def serve(command, timeout=30.0):
    """Runs a server that prints 'listening on URL' when ready; yields the URL; stops it at the end."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        url = None
        lines = []
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            match = READY.search(line)
            if match:
                url = match.group(1)
                break
        if url is None:
            raise RuntimeError("server did not start: %s\n%s" % (" ".join(command), "".join(lines)))
        # The mock logs a line a request: keep reading, or a full pipe would stall it.
        threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run(command, timeout=600, env=None):
    """Runs the contract tool (in env, if given); returns (exit code, stdout, stderr)."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    return done.returncode, done.stdout, done.stderr


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)
