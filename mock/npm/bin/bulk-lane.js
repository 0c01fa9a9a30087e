// The npx server's bulk lane (issue 36): a GET or HEAD asking for more than 1,000 records (?limit=, as the
// native mock's --bulk-records) is answered by a second core in a worker thread, so Node's event loop keeps
// answering everyone else while the page is built (one ?limit=300000&format=api page held it for seconds).
// Only where the answer depends on the request alone, so that the worker's core, made with the same options,
// gives the same bytes: no user (uploads), no admin routes (journal), no faults or churn, no X-Mock-* header.
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { createMock } from "../index.js";

const BULK_RECORDS = 1000;

if (!isMainThread && workerData?.bulkLane) {
  const mock = createMock({ ...workerData.options, onLog: (line) => parentPort.postMessage({ log: line }) });
  parentPort.on("message", async ({ id, request }) => {
    try {
      const answer = (await mock.planRaw(request)).answer();
      const body = answer.body.slice();  // a buffer of its own, handed over (not copied: a page may be 300 MB)
      parentPort.postMessage({ id, answer: { ...answer, body } }, [body.buffer]);
    } catch (e) {
      parentPort.postMessage({ id, error: e.message });
    }
  });
}

const STATEFUL = ["user", "admin", "failRate", "failStatus", "dropRate", "latency", "slowBody", "churn"];

/// The lane for the CLI's options (onLog: where the worker's request log goes), or null when its answers
/// could depend on more than the request.
export function bulkLane(options, onLog) {
  if (STATEFUL.some((name) => options[name] !== undefined && options[name] !== false)) return null;
  const { onLog: _, ...plain } = options;
  let worker, nextId = 1;
  const waiting = new Map();
  const start = () => {
    worker = new Worker(new URL(import.meta.url), { workerData: { bulkLane: true, options: plain } });
    worker.unref();
    worker.on("message", ({ id, answer, error, log }) => {
      if (log !== undefined) return onLog?.(log);
      const { resolve, reject } = waiting.get(id);
      waiting.delete(id);
      if (error === undefined) resolve(answer);
      else reject(new Error(error));
    });
  };
  return {
    /// Whether this request goes to the lane: GET or HEAD, ?limit= above 1,000, no X-Mock-* header.
    wants(method, target, headers) {
      if (method !== "GET" && method !== "HEAD") return false;
      if (headers.some(([name]) => /^x-mock-/i.test(name))) return false;
      const query = target.indexOf("?");
      if (query < 0) return false;
      const limit = new URLSearchParams(target.slice(query + 1)).getAll("limit").at(-1);
      return limit !== undefined && /^\d+$/.test(limit) && Number(limit) > BULK_RECORDS;
    },
    /// The answer, computed in the worker: { status, reason, contentType, headers, body, withoutContentLength }.
    answer(request) {
      if (!worker) start();
      return new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, request });
      });
    },
  };
}
