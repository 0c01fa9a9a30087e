// Loads the mock's WebAssembly core (its layers below front/, built by the wasm preset) and speaks its C ABI
// (mock/wasm/binding.cpp): a request in as bytes, its plan and answer back as bytes. pako does the core's
// deflate and gzip (mock/wasm/deflate_js.cpp). One instance a mock; the module is compiled once (wasm.js).
import pako from "pako";
import createCore from "./core/core.mjs";
import { compileCore } from "./wasm.js";

// Not TextDecoder("latin1"): the Encoding standard reads that label as windows-1252.
const latin1Text = (bytes) => {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return text;
};

export class Core {
  static async create(optionsJson, onLog, wasm) {
    const module = await compileCore(wasm);
    const core = new Core();
    core.module = await createCore({
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module));
        return {};
      },
      deflate: (input, level) => pako.deflate(input, { level }),
      gzip: (input) => pako.gzip(input, { level: 6 }),
      onLog: (line) => onLog?.(line),
    });
    const options = new TextEncoder().encode(optionsJson);
    core.module.HEAPU8.set(options, core.#input(options.length));
    const reply = core.#reply(core.module._mock_create(options.length));
    core.id = Number(latin1Text(reply.subarray(1)));
    return core;
  }

  /// Bytes of memory the instance holds (WebAssembly memory only grows).
  memoryBytes() {
    return this.module.HEAPU8.buffer.byteLength;
  }

  describe() {
    const reply = this.#reply(this.module._mock_describe(this.id));
    return new TextDecoder().decode(reply.subarray(1));
  }

  /// { ticket, delayMs, drop, slowBodyBps, response? } for a request
  /// { method, target, authority, headers: [[name, value]] (latin-1 text), body: Uint8Array }.
  admit(request) {
    const texts = [request.method, request.target, request.authority];
    for (const [n, v] of request.headers) texts.push(n, v);
    let size = 4 * 5 + request.body.length + 8 * request.headers.length;
    for (const t of texts) size += t.length;
    const at = this.#input(size);
    const heap = this.module.HEAPU8;
    const view = new DataView(heap.buffer);
    let to = at;
    const put = (text) => {
      view.setUint32(to, text.length, true);
      to += 4;
      for (let i = 0; i < text.length; ++i) heap[to + i] = text.charCodeAt(i);  // latin-1: one byte a char
      to += text.length;
    };
    put(texts[0]);
    put(texts[1]);
    put(texts[2]);
    view.setUint32(to, request.body.length, true);
    heap.set(request.body, to + 4);
    to += 4 + request.body.length;
    view.setUint32(to, request.headers.length, true);
    to += 4;
    for (let i = 3; i < texts.length; ++i) put(texts[i]);
    const reply = this.#reply(this.module._mock_admit(this.id, size));
    const r = new DataView(reply.buffer, reply.byteOffset, reply.byteLength);
    const plan = {
      ticket: r.getUint32(1, true),
      delayMs: r.getUint32(5, true),
      drop: r.getUint32(9, true) === 1,
      slowBodyBps: r.getUint32(13, true),
    };
    if (r.getUint32(17, true) === 1) plan.response = readResponse(reply, 21);
    return plan;
  }

  respond(ticket) {
    return readResponse(this.#reply(this.module._mock_respond(this.id, ticket)), 1);
  }

  /// The answer a failing deployment gives for `status` (413: nginx's, for a body over the limit).
  failure(status) {
    return readResponse(this.#reply(this.module._mock_failure(status)), 1);
  }

  finished(ticket, status, bodyBytes, milliseconds) {
    this.module._mock_finished(this.id, ticket, status, bodyBytes, milliseconds);
  }

  // The core's input buffer, at least `size` bytes (asked for again only when it must grow).
  #input(size) {
    if (size > (this.inputSize ?? -1)) {
      this.inputSize = Math.max(size, 2 * (this.inputSize ?? 4096));
      this.inputAt = this.module._mock_input(this.inputSize);
    }
    return this.inputAt;
  }

  // A copy of a call's result (a u32 length, then the bytes); "E" + message is the core's error.
  #reply(at) {
    const heap = this.module.HEAPU8;  // after the call: memory may have grown
    const size = (heap[at] | (heap[at + 1] << 8) | (heap[at + 2] << 16) | (heap[at + 3] << 24)) >>> 0;
    const bytes = heap.slice(at + 4, at + 4 + size);
    if (bytes[0] === 0x45) throw new Error(new TextDecoder().decode(bytes.subarray(1)));
    return bytes;
  }
}

// status, flags, reason, content type, headers, body (u32 lengths); header text is latin-1, as HTTP carries it.
function readResponse(bytes, at) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = () => {
    const v = view.getUint32(at, true);
    at += 4;
    return v;
  };
  const raw = () => {
    const n = u32();
    const b = bytes.subarray(at, at + n);
    at += n;
    return b;
  };
  const text = () => latin1Text(raw());
  const status = u32();
  const withoutContentLength = (u32() & 1) !== 0;  // framed by the server without Content-Length (Django's bad-Host 400)
  const reason = text();
  const contentType = text();
  const headers = [];
  for (let n = u32(); n > 0; --n) headers.push([text(), text()]);
  const body = raw();  // `bytes` is already the call's own copy
  return { status, reason, contentType, headers, body, withoutContentLength };
}
