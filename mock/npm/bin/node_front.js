// The npx server's front: Node's http server with the native front's limits (mock/front/connection_front.cpp,
// docs/mock.md "Connections"): a body over --max-body gets nginx's 413 from its Content-Length alone or as soon
// as a chunked body passes it; a head over --max-head 431; a head not whole within --head-timeout (or a body
// pausing as long) 408; a connection silent that long, or kept alive idle past --keep-alive-timeout, closed; at
// --max-connections the connection idle longest makes room, 503 when none is idle. Each refusal is the native
// front's (a text/plain line naming the flag, or nginx's 413 page) with a close, after which the connection
// is read out until its client pauses (nginx's lingering close), so that the client reads the answer.
import { createServer } from "node:http";

const LINGER_PAUSE_MS = 2000;  // kLingerTime
const LINGER_MAX_MS = 30000;   // kLingerMax
const REASONS = { 408: "Request Timeout", 413: "Request Entity Too Large", 431: "Request Header Fields Too Large", 503: "Service Unavailable" };
// What Node's own server writes to a request its parser refuses (other than a head over --max-head).
const NODE_BAD_REQUEST = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n";

/// The native front's answer to a request it refuses: the status and a line naming the limit.
export function refusal(status, message) {
  const body = Buffer.from(`${status} ${REASONS[status]}\n${message}\n`);
  return { status, reason: REASONS[status], contentType: "text/plain; charset=utf-8", headers: [], body };
}

function rawAnswer(answer) {
  const head = `HTTP/1.1 ${answer.status} ${answer.reason}\r\nDate: ${new Date().toUTCString()}\r\n` +
    `Content-Type: ${answer.contentType}\r\nContent-Length: ${answer.body.length}\r\nConnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), answer.body]);
}

/// Node's server around `handle(req, res, body)`, bounded by `limits` ({ maxBody, maxHead, headTimeout,
/// keepAliveTimeout, maxConnections }); `tooLarge()` is the 413 answer (nginx's page, from the core).
export function createFront(limits, handle, tooLarge) {
  const conns = new Map();  // socket -> its state, for the timers and --max-connections
  const server = createServer({
    maxHeaderSize: limits.maxHead,
    // The timers below are the native front's; Node's own would answer 408 without a word, or not at all.
    headersTimeout: 0,
    requestTimeout: 0,
    keepAliveTimeout: 0,
  });

  // After a refusal: the answer, then no more writes, then the client's bytes read and dropped until it
  // pauses, so that closing does not reset the answer away.
  function linger(conn) {
    const now = performance.now();
    conn.lingerSince ??= now;
    conn.progressAt = now;
    conn.socket.end();
    conn.socket.resume();
  }

  function refuseRaw(conn, answer) {
    if (conn.lingerSince !== undefined || !conn.socket.writable) return;
    conn.socket.write(rawAnswer(answer));
    // The rest is dropped unparsed: through Node's parser each chunk after its error would be an error again
    // (a fresh client's p50 under 50 header floods: 313 ms so, 99 ms unparsed).
    const parser = conn.socket.parser;
    if (parser?._consumed) {
      parser.unconsume();
      parser._consumed = false;
    }
    conn.socket.removeAllListeners("data");
    conn.socket.on("data", () => {});
    linger(conn);
  }

  function refuse(conn, res, answer) {
    if (res.headersSent) return conn.socket.destroy();
    conn.socket.destroySoon = () => linger(conn);  // Node closes at once after Connection: close
    res.writeHead(answer.status, answer.reason, [...answer.headers.flat(), "Content-Type", answer.contentType,
      "Content-Length", String(answer.body.length), "Connection", "close"]);
    res.end(answer.body);
  }

  server.on("connection", (socket) => {
    const now = performance.now();
    if (conns.size >= limits.maxConnections) {
      let idlest;
      for (const c of conns.values())
        if (!c.busy && c.lingerSince === undefined && c.socket.bytesRead === c.doneBytes && (!idlest || c.idleSince < idlest.idleSince))
          idlest = c;
      if (idlest) {
        idlest.socket.destroy();  // closed without a word, as nginx closes an idle keep-alive connection
        conns.delete(idlest.socket);
      } else {
        socket.end(rawAnswer(refusal(503, `more than ${limits.maxConnections} connections (--max-connections), none of them idle`)));
        socket.on("error", () => {});
        setTimeout(() => socket.destroy(), LINGER_PAUSE_MS).unref();
        return;
      }
    }
    const conn = { socket, busy: false, doneBytes: 0, readAt: 0, idleSince: now, progressAt: now, headStart: undefined };
    conns.set(socket, conn);
    socket.on("close", () => conns.delete(socket));
  });

  function onRequest(req, res) {
    const conn = conns.get(req.socket);
    if (!conn) return req.socket.destroy();
    conn.busy = true;
    conn.req = req;
    conn.res = res;
    res.on("close", () => {
      conn.busy = false;
      conn.req = conn.res = undefined;
      conn.headStart = undefined;
      conn.doneBytes = req.socket.bytesRead;
      conn.idleSince = performance.now();
    });
    const length = req.headers["content-length"];
    if (length !== undefined && /^\d+$/.test(length) && BigInt(length) > BigInt(limits.maxBody))
      return tooLarge().then((answer) => refuse(conn, res, answer));
    const chunks = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk) => {
      if (refused) return;
      size += chunk.length;
      if (size <= limits.maxBody) return chunks.push(chunk);
      refused = true;
      chunks.length = 0;
      tooLarge().then((answer) => refuse(conn, res, answer));
    });
    req.on("end", () => {
      if (!refused) handle(req, res, Buffer.concat(chunks));
    });
  }
  server.on("request", onRequest);
  // Expect: 100-continue: the interim answer only for a body that will be read (not before a 413).
  server.on("checkContinue", (req, res) => {
    const length = req.headers["content-length"];
    if (!(length !== undefined && /^\d+$/.test(length) && BigInt(length) > BigInt(limits.maxBody))) res.writeContinue();
    onRequest(req, res);
  });

  server.on("clientError", (error, socket) => {
    const conn = conns.get(socket);
    if (!conn) return socket.destroy();
    if (error.code === "HPE_HEADER_OVERFLOW")
      return refuseRaw(conn, refusal(431, `request head longer than ${limits.maxHead} bytes (--max-head)`));
    if (conn.lingerSince !== undefined) return;
    if (socket.writable && socket.bytesWritten === 0) socket.write(NODE_BAD_REQUEST);  // as Node's own
    socket.destroy();
  });

  // One timer for every connection, as the native front's timer thread: heads and bodies that stall, silent and
  // idle connections, lingering closes.
  const tick = Math.max(10, Math.min(250, Math.floor(Math.min(limits.headTimeout, limits.keepAliveTimeout) / 10)));
  const timer = setInterval(() => {
    const now = performance.now();
    for (const conn of conns.values()) {
      const read = conn.socket.bytesRead;
      if (read !== conn.readAt) {
        conn.readAt = read;
        conn.progressAt = now;
      }
      if (conn.lingerSince !== undefined) {
        if (now - conn.progressAt > LINGER_PAUSE_MS || now - conn.lingerSince > LINGER_MAX_MS) conn.socket.destroy();
      } else if (conn.busy) {
        if (conn.req && !conn.req.complete && now - conn.progressAt > limits.headTimeout)
          refuse(conn, conn.res, refusal(408, `the body paused longer than ${limits.headTimeout} ms (--head-timeout)`));
      } else if (read > conn.doneBytes) {  // a head under way
        conn.headStart ??= now;
        if (now - conn.headStart > limits.headTimeout)
          refuseRaw(conn, refusal(408, `the request head took longer than ${limits.headTimeout} ms (--head-timeout)`));
      } else if (now - conn.idleSince > (conn.doneBytes === 0 ? limits.headTimeout : limits.keepAliveTimeout)) {
        conn.socket.destroy();  // silent since its accept, or idle between requests
      }
    }
  }, tick);
  timer.unref();
  server.on("close", () => clearInterval(timer));
  return server;
}
