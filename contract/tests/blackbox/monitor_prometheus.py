"""The monitor scraped by Debian's real Prometheus (docs/monitor.md).

A mock on a free port is watched by `entities-images-contract monitor --interval 500ms`, which Prometheus
scrapes every half second with ci/examples/prometheus-rules.yml loaded. The test asks Prometheus' HTTP API
what it scraped: the deployment passing; then, the mock restarted on the same port with every answer a 503,
status_ok failing and the rules file's alert pending; then, the mock gone, entimg_contract_up 0 while the monitor goes on. At
last SIGTERM stops the monitor: exit 0. Every process it starts it stops.

Usage: monitor_prometheus.py --contract BINARY --mock BINARY --rules FILE
"""

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.read().decode()


# A hang guard, not a speed check (issue 43): each state comes within a few scrape intervals (500 ms) on a quiet
# machine; a busy one may take several times that, and a broken monitor never gets there.
HANG_GUARD = 90.0


def wait_for(what, probe, timeout=HANG_GUARD):
    """Polls probe() until it returns something true; fails the test, saying what, if it never does."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError, KeyError, IndexError):
            last = probe()
            if last:
                print("ok: " + what)
                return last
        time.sleep(0.25)
    fail("%s: not within %.0f s (last seen: %r)" % (what, timeout, last))


class Processes:
    """Starts programs with their output in a log file each; stop() or the end of the test stops them."""

    def __init__(self, work):
        self.work, self.running = work, {}

    def start(self, name, command):
        log = open(os.path.join(self.work, name + ".log"), "w+")
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.running[name] = (proc, log)
        return proc

    def url(self, name):
        """The URL a program printed as 'listening on URL'."""
        log = self.running[name][1].name
        return wait_for(name + " listens", lambda: next(
            (line.split()[2] for line in open(log) if line.startswith("listening on ")), None))

    def stop(self, name, sig=signal.SIGTERM):
        proc, log = self.running.pop(name)
        if proc.poll() is None:
            os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.seek(0)
        return proc.returncode, log.read()

    def stop_all(self, show):
        for name in list(self.running):
            code, output = self.stop(name)
            if show:
                print("--- %s (exit %s):\n%s" % (name, code, output[-3000:]))


class Prometheus:
    def __init__(self, url):
        self.url = url

    def query(self, expr):
        """The instant vector of expr as {labels without __name__: value}."""
        data = json.loads(get(self.url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})))
        if data["status"] != "success":
            fail("Prometheus refused %s: %s" % (expr, data))
        return {tuple(sorted((k, v) for k, v in r["metric"].items() if k != "__name__")): float(r["value"][1])
                for r in data["data"]["result"]}

    def value(self, expr):
        """The value of a query that gives one series; None when it gives none."""
        values = list(self.query(expr).values())
        return values[0] if len(values) == 1 else None

    def alert_states(self):
        return {a["labels"]["alertname"]: a["state"]
                for a in json.loads(get(self.url + "/api/v1/alerts"))["data"]["alerts"]}


def check(p, processes, mock, mock_port, target):
    wait_for("Prometheus scrapes the monitor",
             lambda: p.value('up{job="entities-images-contract"}') == 1)
    wait_for("the rules file is loaded", lambda: json.loads(get(p.url + "/api/v1/rules"))["data"]["groups"])
    wait_for("a passing deployment: up 1, status_ok passing, no rule failing, count 60", lambda:
             p.value("entimg_contract_up") == 1 and p.value('entimg_contract_rule_passed{rule="status_ok"}') == 1
             and p.value("sum(entimg_contract_rule_failed)") == 0 and p.value("entimg_contract_count") == 60)
    wait_for("request latencies in the histogram",
             lambda: p.value("entimg_contract_request_duration_seconds_count") >= 20
             and p.value('entimg_contract_request_duration_seconds_bucket{le="+Inf"}')
             == p.value("entimg_contract_request_duration_seconds_count"))

    # The same port, every answer a 503: the deployment is reachable but breaks the contract.
    processes.stop("mock")
    processes.start("faulty mock", [mock, "--port", str(mock_port), "--records", "60", "--seed", "7", "--quiet",
                                    "--fail-rate", "1", "--fail-status", "503"])
    processes.url("faulty mock")
    wait_for("a breaking deployment: status_ok failing, up still 1", lambda:
             p.value('entimg_contract_rule_failed{rule="status_ok"}') == 1
             and p.value('entimg_contract_rule_failures{rule="status_ok"}') > 0
             and p.value("entimg_contract_up") == 1)
    wait_for("the rules file's alert on a failing rule is pending",
             lambda: p.alert_states().get("EntitiesImagesContractRuleFailing") == "pending")
    wait_for("the monitor's JSON report names the failing rule", lambda: any(
        r["name"] == "status_ok" and r["status"] == "fail"
        for r in json.loads(get("http://" + target + "/report.json"))["rules"]))

    # Nothing listens: a run that cannot check, not the end of the monitor.
    processes.stop("faulty mock")
    wait_for("an unreachable deployment: up 0, and the monitor still scraped", lambda:
             p.value("entimg_contract_up") == 0 and p.value('entimg_contract_runs_total{result="error"}') >= 1
             and p.value('up{job="entities-images-contract"}') == 1)
    code, output = processes.stop("monitor")
    if code != 0 or not output.rstrip().endswith("stopped"):
        fail("SIGTERM should stop the monitor cleanly, exit 0 after 'stopped'; got exit %s:\n%s" % (code, output))
    print("ok: SIGTERM stops the monitor, exit 0")


def main():
    parser = argparse.ArgumentParser()
    for name in ("--contract", "--mock", "--rules"):
        parser.add_argument(name, required=True)
    a = parser.parse_args()
    binary = shutil.which("prometheus")
    if binary is None:
        fail("the prometheus binary is not on PATH: install Debian's prometheus package (ci/setup.sh does)")
    work = tempfile.mkdtemp(prefix="monitor-prometheus-")
    processes = Processes(work)
    passed = False
    try:
        processes.start("mock", [a.mock, "--port", "0", "--records", "60", "--seed", "7", "--quiet"])
        mock_url = processes.url("mock")
        processes.start("monitor", [a.contract, "monitor", "--base-url", mock_url, "--interval", "500ms",
                                    "--listen", "127.0.0.1:0", "--retries", "0", "--timeout", "30"])
        target = processes.url("monitor").split("//")[1]
        web = "127.0.0.1:%d" % free_port()
        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global: {scrape_interval: 500ms, evaluation_interval: 500ms}\n"
                    "rule_files: [%s]\n"
                    "scrape_configs:\n"
                    "  - job_name: entities-images-contract\n"
                    "    static_configs: [{targets: ['%s']}]\n" % (json.dumps(os.path.abspath(a.rules)), target))
        processes.start("prometheus", [binary, "--config.file", config, "--storage.tsdb.path",
                                       os.path.join(work, "data"), "--web.listen-address", web, "--log.level",
                                       "warn"])
        check(Prometheus("http://" + web), processes, a.mock, int(mock_url.rsplit(":", 1)[1]), target)
        passed = True
    finally:
        processes.stop_all(show=not passed)
        shutil.rmtree(work, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
