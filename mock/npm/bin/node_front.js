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

// After a refusal: the answer, then no more writes, then the client's bytes read and dropped until it pauses, so
// that closing does not reset the answer away.
function linger(conn) {
  const now = performance.now();
  conn.lingerSince ??= now;
  conn.progressAt = now;
  conn.socket.end();
  conn.socket.resume();
}

// A refusal before Node has a request to answer (a head not whole, or over --max-head).
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

// A refusal of a request Node has handed over (413, or 408 for a body that paused).
function refuse(conn, res, answer) {
  if (res.headersSent) return conn.socket.destroy();
  conn.socket.destroySoon = () => linger(conn);  // Node closes at once after Connection: close
  res.writeHead(answer.status, answer.reason, [...answer.headers.flat(), "Content-Type", answer.contentType,
    "Content-Length", String(answer.body.length), "Connection", "close"]);
  res.end(answer.body);
}

function announcesTooMuch(front, req) {
  const length = req.headers["content-length"];
  return length !== undefined && /^\d+$/.test(length) && BigInt(length) > BigInt(front.limits.maxBody);
}

// A new connection: at --max-connections the one idle longest (nothing read since its last answer, or since
// its accept) makes room, closed without a word as nginx closes an idle keep-alive connection; 503 when none is.
function admit(front, socket) {
  const now = performance.now();
  if (front.conns.size >= front.limits.maxConnections) {
    let idlest;
    for (const c of front.conns.values())
      if (!c.busy && c.lingerSince === undefined && c.socket.bytesRead === c.doneBytes && (!idlest || c.idleSince < idlest.idleSince))
        idlest = c;
    if (!idlest) {
      const max = front.limits.maxConnections;
      socket.end(rawAnswer(refusal(503, `more than ${max} connections (--max-connections), none of them idle`)));
      socket.on("error", () => {});
      setTimeout(() => socket.destroy(), LINGER_PAUSE_MS).unref();
      return;
    }
    idlest.socket.destroy();
    front.conns.delete(idlest.socket);
  }
  const conn = { socket, busy: false, doneBytes: 0, readAt: 0, idleSince: now, progressAt: now, headStart: undefined };
  front.conns.set(socket, conn);
  socket.on("close", () => front.conns.delete(socket));
}

// A request whose head is whole: 413 from its Content-Length, or as its body passes --max-body; else the body
// read and the request handed on.
function onRequest(front, req, res) {
  const conn = front.conns.get(req.socket);
  if (!conn) return req.socket.destroy();
  Object.assign(conn, { busy: true, req, res });
  res.on("close", () => Object.assign(conn, {
    busy: false, req: undefined, res: undefined, headStart: undefined, doneBytes: req.socket.bytesRead, idleSince: performance.now(),
  }));
  if (announcesTooMuch(front, req)) return front.tooLarge().then((answer) => refuse(conn, res, answer));
  const chunks = [];
  let size = 0;
  let refused = false;
  req.on("data", (chunk) => {
    if (refused) return;
    size += chunk.length;
    if (size <= front.limits.maxBody) return chunks.push(chunk);
    refused = true;
    chunks.length = 0;
    front.tooLarge().then((answer) => refuse(conn, res, answer));
  });
  req.on("end", () => {
    if (!refused) front.handle(req, res, Buffer.concat(chunks));
  });
}

// What Node's parser refuses: a head over --max-head is the native front's 431; the rest Node's own 400.
function onClientError(front, error, socket) {
  const conn = front.conns.get(socket);
  if (!conn) return socket.destroy();
  if (error.code === "HPE_HEADER_OVERFLOW")
    return refuseRaw(conn, refusal(431, `request head longer than ${front.limits.maxHead} bytes (--max-head)`));
  if (conn.lingerSince !== undefined) return;
  if (socket.writable && socket.bytesWritten === 0) socket.write(NODE_BAD_REQUEST);  // as Node's own
  socket.destroy();
}

// One timer for every connection, as the native front's timer thread: heads and bodies that stall, silent and
// idle connections, lingering closes.
function sweep(front) {
  const { headTimeout, keepAliveTimeout } = front.limits;
  const now = performance.now();
  for (const conn of front.conns.values()) {
    const read = conn.socket.bytesRead;
    if (read !== conn.readAt) Object.assign(conn, { readAt: read, progressAt: now });
    if (conn.lingerSince !== undefined) {
      if (now - conn.progressAt > LINGER_PAUSE_MS || now - conn.lingerSince > LINGER_MAX_MS) conn.socket.destroy();
    } else if (conn.busy) {
      if (conn.req && !conn.req.complete && now - conn.progressAt > headTimeout)
        refuse(conn, conn.res, refusal(408, `the body paused longer than ${headTimeout} ms (--head-timeout)`));
    } else if (read > conn.doneBytes) {  // a head under way
      conn.headStart ??= now;
      if (now - conn.headStart > headTimeout)
        refuseRaw(conn, refusal(408, `the request head took longer than ${headTimeout} ms (--head-timeout)`));
    } else if (now - conn.idleSince > (conn.doneBytes === 0 ? headTimeout : keepAliveTimeout)) {
      conn.socket.destroy();  // silent since its accept, or idle between requests
    }
  }
}

/// Node's server around `handle(req, res, body)`, bounded by `limits` ({ maxBody, maxHead, headTimeout,
/// keepAliveTimeout, maxConnections }); `tooLarge()` is the 413 answer (nginx's page, from the core).
export function createFront(limits, handle, tooLarge) {
  const front = { limits, handle, tooLarge, conns: new Map() };  // conns: socket -> its state
  const server = createServer({
    maxHeaderSize: limits.maxHead,
    // The timers here are the native front's; Node's own would answer 408 without a word, or not at all.
    headersTimeout: 0,
    requestTimeout: 0,
    keepAliveTimeout: 0,
  });
  server.on("connection", (socket) => admit(front, socket));
  server.on("request", (req, res) => onRequest(front, req, res));
  // Expect: 100-continue: the interim answer only for a body that will be read (not before a 413).
  server.on("checkContinue", (req, res) => {
    if (!announcesTooMuch(front, req)) res.writeContinue();
    onRequest(front, req, res);
  });
  server.on("clientError", (error, socket) => onClientError(front, error, socket));
  const tick = Math.max(10, Math.min(250, Math.floor(Math.min(limits.headTimeout, limits.keepAliveTimeout) / 10)));
  const timer = setInterval(() => sweep(front), tick);
  timer.unref();
  server.on("close", () => clearInterval(timer));
  return server;
}
