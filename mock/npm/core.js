// Loads the mock's WebAssembly core (built from mock/src by the wasm preset) and speaks its C ABI
// (mock/wasm/binding.cpp): a request in as bytes, its plan and answer back as bytes. pako does the core's
// deflate and gzip (mock/wasm/deflate_js.cpp). One instance a mock; the module is compiled once.
import pako from "pako";
import createCore from "./core/core.mjs";
import wasmBase64 from "./core/core-wasm.js";

let compiled;

function wasmBytes() {
  if (typeof Buffer !== "undefined") return Buffer.from(wasmBase64, "base64");
  const text = atob(wasmBase64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/// The compiled module, shared by every mock of this process or page.
export function compileCore() {
  compiled ??= WebAssembly.compile(wasmBytes());
  return compiled;
}

const latin1 = (text) => {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
};
const utf8 = new TextEncoder();
// Not TextDecoder("latin1"): the Encoding standard reads that label as windows-1252.
const latin1Text = (bytes) => {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return text;
};

export class Core {
  static async create(optionsJson, onLog) {
    const module = await compileCore();
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
    const reply = core.#call("mock_create", utf8.encode(optionsJson));
    core.id = Number(latin1Text(reply.subarray(1)));
    return core;
  }

  /// Bytes of memory the instance holds (WebAssembly memory only grows).
  memoryBytes() {
    return this.module.HEAPU8.buffer.byteLength;
  }

  describe() {
    const m = this.module;
    const reply = this.#reply(m._mock_describe(this.id));
    return new TextDecoder().decode(reply.subarray(1));
  }

  /// { ticket, delayMs, drop, slowBodyBps, response? } for a request
  /// { method, target, authority, headers: [[name, value]] (latin-1 text), body: Uint8Array }.
  admit(request) {
    const parts = [latin1(request.method), latin1(request.target), latin1(request.authority), request.body];
    let size = 4 * 5 + parts.reduce((n, p) => n + p.length, 0);
    const headers = request.headers.map(([n, v]) => [latin1(n), latin1(v)]);
    for (const [n, v] of headers) size += 8 + n.length + v.length;
    const buffer = new Uint8Array(size);
    const view = new DataView(buffer.buffer);
    let at = 0;
    const put = (bytes) => {
      view.setUint32(at, bytes.length, true);
      buffer.set(bytes, at + 4);
      at += 4 + bytes.length;
    };
    parts.forEach(put);
    view.setUint32(at, headers.length, true);
    at += 4;
    for (const [n, v] of headers) {
      put(n);
      put(v);
    }
    const reply = this.#call("mock_admit", buffer);
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

  #call(name, bytes) {
    const m = this.module;
    const at = m._malloc(bytes.length || 1);
    m.HEAPU8.set(bytes, at);
    try {
      return this.#reply(name === "mock_create" ? m._mock_create(at, bytes.length) : m[`_${name}`](this.id, at, bytes.length));
    } finally {
      m._free(at);
    }
  }

  // A copy of the call's result; "E" + message is the core's error.
  #reply() {
    const m = this.module;
    const at = m._wasm_result(), size = m._wasm_result_size();
    const bytes = m.HEAPU8.slice(at, at + size);
    if (bytes[0] === 0x45) throw new Error(new TextDecoder().decode(bytes.subarray(1)));
    return bytes;
  }
}

// status, content type, headers, body (u32 lengths); header text is latin-1, as HTTP carries it.
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
  const reason = text();
  const contentType = text();
  const headers = [];
  for (let n = u32(); n > 0; --n) headers.push([text(), text()]);
  const body = raw();  // `bytes` is already the call's own copy
  return { status, reason, contentType, headers, body };
}
