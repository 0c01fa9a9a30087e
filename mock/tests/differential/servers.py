"""Starts a server subprocess that prints `listening on http://127.0.0.1:PORT`, and always stops it."""

import ctypes
import re
import signal
import subprocess
import threading
import time

READY = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")
START_TIMEOUT = 20.0
STOP_TIMEOUT = 5.0


def _die_with_parent():
    # PR_SET_PDEATHSIG: the server gets SIGTERM if this runner dies without cleaning up (e.g. SIGKILL by ctest).
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except OSError:
        pass


class Server:
    """One server process; `port` is known once start() returns."""

    def __init__(self, label, argv):
        self.label = label
        self.argv = argv
        self.process = None
        self.port = None
        self.ready_seconds = None
        self.stdout_lines = []
        self.stderr_lines = []
        self._ready = threading.Event()

    def _drain(self, stream, sink, watch_ready):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            sink.append(line)
            match = READY.search(line) if watch_ready and self.port is None else None
            if match:
                self.port = int(match.group(1))
                self._ready.set()
        self._ready.set()  # stream closed: the process ended, wake the waiter

    def start(self):
        started = time.monotonic()
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
        for stream, sink, watch in ((self.process.stdout, self.stdout_lines, True),
                                    (self.process.stderr, self.stderr_lines, False)):
            threading.Thread(target=self._drain, args=(stream, sink, watch), daemon=True).start()
        self._ready.wait(START_TIMEOUT)
        if self.port is None:
            code = self.process.poll()
            state = f"it exited with {code}" if code is not None else f"still silent after {START_TIMEOUT:.0f} s"
            raise RuntimeError(f"{self.label} did not print 'listening on http://127.0.0.1:PORT' ({state}): "
                               " ".join(self.argv) + ("\n" + self.output_tail() if self.output_tail() else ""))
        self.ready_seconds = time.monotonic() - started

    def output_tail(self, lines=20):
        out = [f"  [{self.label} stdout] {line}" for line in self.stdout_lines[-lines:]]
        err = [f"  [{self.label} stderr] {line}" for line in self.stderr_lines[-lines:]]
        return "\n".join(out + err)

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self):
        """SIGTERM, then SIGKILL if it does not exit in time; returns the exit code, None if it was not running."""
        if self.process is None or self.process.poll() is not None:
            return None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.process.returncode
