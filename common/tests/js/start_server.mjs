// Starts one of the project's servers (the mock, a broken server) on an ephemeral loopback port, as the tests
// do: `--port 0`, then the URL it prints ("listening on URL"). Resolves to { url, stop }; rejects when it exits first.
import { spawn } from "node:child_process";

export function startServer(binary, args = []) {
  const server = spawn(binary, ["--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ url: m[1], stop: () => server.kill() });
    });
    server.on("exit", (code) => reject(new Error(`${binary} stopped (${code}) before it listened`)));
  });
}
