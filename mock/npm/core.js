// Loads the mock's WebAssembly core (its layers below front/, built by the wasm preset) and speaks its C ABI
// (mock/wasm/binding.cpp): a request in as bytes, its plan and answer back as bytes. pako does the core's
// deflate and gzip (mock/wasm/deflate_js.cpp). One instance a mock; the module is compiled once (wasm.js).
import pako from "pako";
import createCore from "./core/core.mjs";
import { compileCore } from "./wasm.js";

const utf8 = new TextEncoder();
// Not TextDecoder("latin1"): the Encoding standard reads that label as windows-1252. ASCII text (nearly every
// header) is read by the UTF-8 decoder, which agrees with latin-1 below 0x80: 0.3 µs a header instead of 1.9
// for String.fromCharCode(...bytes), which took a fifth of a page's time in the core (bench/npm.sh).
const asciiDecoder = new TextDecoder();
const latin1Text = (bytes) => {
  let ascii = true;
  for (let i = 0; i < bytes.length && ascii; ++i) ascii = bytes[i] < 0x80;
  if (ascii) return asciiDecoder.decode(bytes);
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
    const options = utf8.encode(optionsJson);
    const at = core.#input(options.length);  // first: it may grow memory, detaching the old HEAPU8
    core.module.HEAPU8.set(options, at);
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
    const heap = this.module.HEAPU8;  // after #input, which may grow memory (issue 36)
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
    // Read where the core wrote it (no copy: a copy a call cost more than the fields), the body copied out.
    const at0 = this.#replyAt(this.module._mock_admit(this.id, size));
    const r = new DataView(this.module.HEAPU8.buffer);
    const plan = {
      ticket: r.getUint32(at0 + 1, true),
      delayMs: r.getUint32(at0 + 5, true),
      drop: r.getUint32(at0 + 9, true) === 1,
      slowBodyBps: r.getUint32(at0 + 13, true),
    };
    if (r.getUint32(at0 + 17, true) === 1) plan.response = readResponse(this.module.HEAPU8, at0 + 21, true);
    return plan;
  }

  respond(ticket) {
    const at = this.#replyAt(this.module._mock_respond(this.id, ticket));
    return readResponse(this.module.HEAPU8, at + 1, true);  // the heap after the call: memory may have grown
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
    at = this.#replyAt(at);
    const heap = this.module.HEAPU8;
    const size = (heap[at - 4] | (heap[at - 3] << 8) | (heap[at - 2] << 16) | (heap[at - 1] << 24)) >>> 0;
    return heap.slice(at, at + size);
  }

  // Where a call's result starts in the heap (after its u32 length), valid until the next call; "E" + message
  // is the core's error, thrown.
  #replyAt(at) {
    const heap = this.module.HEAPU8;  // after the call: memory may have grown
    if (heap[at + 4] === 0x45) {
      const size = (heap[at] | (heap[at + 1] << 8) | (heap[at + 2] << 16) | (heap[at + 3] << 24)) >>> 0;
      throw new Error(new TextDecoder().decode(heap.subarray(at + 5, at + 4 + size)));
    }
    return at + 4;
  }
}

// status, flags, reason, content type, headers, body (u32 lengths); header text is latin-1, as HTTP carries it.
// `bytes` may be the core's heap (`copyBody`: the body is copied out, the rest read in place).
function readResponse(bytes, at, copyBody = false) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = () => {
    const v = view.getUint32(at, true);
    at += 4;
    return v;
  };
  const status = u32();
  const withoutContentLength = (u32() & 1) !== 0;  // framed by the server without Content-Length (Django's bad-Host 400)
  const { texts, count, end } = readTexts(bytes, view, at);
  at = end;
  const [reason, contentType] = texts;
  const headers = [];
  for (let i = 0; i < count; ++i) headers.push([texts[2 + 2 * i], texts[3 + 2 * i]]);
  const n = u32();
  const body = copyBody ? copyOut(bytes, at, n) : bytes.subarray(at, at + n);
  return { status, reason, contentType, headers, body, withoutContentLength };
}

// Bodies leave the core's memory as slices of a shared 256 KiB block (a new one when the rest is too small; a body
// over 64 KiB gets its own), as Node pools its small Buffers: an ArrayBuffer of its own for each page's 5 KB cost
// 2.5 µs, a fifth of a page's time in the core. Each body is a Uint8Array view (mind its byteOffset).
let pool = new Uint8Array(0);
let poolAt = 0;
function copyOut(bytes, at, n) {
  if (n > 65536) return bytes.slice(at, at + n);
  if (poolAt + n > pool.length) {
    pool = new Uint8Array(262144);
    poolAt = 0;
  }
  const out = pool.subarray(poolAt, poolAt + n);
  out.set(bytes.subarray(at, at + n));
  poolAt += (n + 7) & ~7;
  return out;
}

// The reason, content type and headers: u32-length texts, with the header count after the first two. Where the
// whole block is ASCII (lengths under 128 and the text: nearly always) it is decoded in one call and cut, a byte
// a character; else each text is read as latin-1.
function readTexts(bytes, view, start) {
  const spans = [];  // where each text starts, and its length
  let at = start;
  const take = () => {
    const n = view.getUint32(at, true);
    spans.push(at + 4, n);
    at += 4 + n;
  };
  take();
  take();
  const count = view.getUint32(at, true);
  at += 4;
  for (let i = 0; i < 2 * count; ++i) take();
  let ascii = true;
  for (let i = start; i < at && ascii; ++i) ascii = bytes[i] < 0x80;
  const block = ascii ? asciiDecoder.decode(bytes.subarray(start, at)) : null;
  const texts = [];
  for (let i = 0; i < spans.length; i += 2) {
    const from = spans[i], n = spans[i + 1];
    texts.push(ascii ? block.substring(from - start, from - start + n) : latin1Text(bytes.subarray(from, from + n)));
  }
  return { texts, count, end: at };
}
