// Loads the mock's WebAssembly core (its layers below front/, built by the wasm preset) and speaks its C ABI
// (mock/wasm/binding.cpp): a request in as bytes, its plan and answer back as bytes. pako does the core's
// gzip (mock/wasm/deflate_js.cpp). One instance a mock; the module is compiled once (wasm.js).
import pako from "pako";
import createCore from "./core/core.mjs";
import { load, web } from "./environment.js";
import { compileCore } from "./wasm.js";

// Made once the environment's classes are known (environment.js: Jest's plain jsdom has no TextEncoder).
let utf8;
// Not TextDecoder("latin1"): the Encoding standard reads that label as windows-1252. ASCII text (nearly every
// header) is read by the UTF-8 decoder, which agrees with latin-1 below 0x80: 0.3 µs a header instead of 1.9
// for String.fromCharCode(...bytes), which took a fifth of a page's time in the core (bench/npm.sh).
let asciiDecoder;
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
    await load();
    utf8 ??= new web.TextEncoder();
    asciiDecoder ??= new web.TextDecoder();
    const module = await compileCore(wasm);
    const core = new Core();
    core.head = { serial: 0, reason: "", contentType: "", pairs: [] };  // the last answer's head read (readResponse)
    core.module = await createCore({
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module));
        return {};
      },
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
    return asciiDecoder.decode(reply.subarray(1));
  }

  /// { ticket, delayMs, drop, slowBodyBps, response?, served? } for a request
  /// { method, target, authority, headers: [[name, value]] (latin-1 text), body: Uint8Array }. With `serve` (a
  /// front with no log or journal, answering at once), a request that is not held back is answered and finished
  /// in the same call: `served`, its body read in place (valid until the next call into the core).
  admit(request, serve = false) {
    const { method, target, authority, headers, body } = request;
    let size = 4 * 5 + body.length + method.length + target.length + authority.length;
    for (let i = 0; i < headers.length; ++i) size += 8 + headers[i][0].length + headers[i][1].length;
    let to = this.#input(size);
    const heap = this.module.HEAPU8;  // after #input, which may grow memory (issue 36)
    to = putText(heap, to, method);
    to = putText(heap, to, target);
    to = putText(heap, to, authority);
    to = putU32(heap, to, body.length);
    heap.set(body, to);
    to = putU32(heap, to + body.length, headers.length);
    for (let i = 0; i < headers.length; ++i) to = putText(heap, putText(heap, to, headers[i][0]), headers[i][1]);
    // Read where the core wrote it (no copy: a copy a call cost more than the fields), the body copied out.
    const at = this.#replyAt(this.module._mock_admit(this.id, size, serve ? 1 : 0));
    const reply = this.module.HEAPU8;
    const plan = {
      ticket: u32(reply, at + 1),
      delayMs: u32(reply, at + 5),
      drop: u32(reply, at + 9) === 1,
      slowBodyBps: u32(reply, at + 13),
    };
    const known = u32(reply, at + 17);
    if (known === 1) plan.response = readResponse(reply, at + 21, this.head, true);
    else if (known === 2) plan.served = readResponse(reply, at + 21, this.head, false);
    return plan;
  }

  /// The answer; its body copied out, or with `copyBody` false read where the core wrote it: valid only until
  /// the next call into the core (the Response constructor copies it at once).
  respond(ticket, copyBody = true) {
    const at = this.#replyAt(this.module._mock_respond(this.id, ticket));
    return readResponse(this.module.HEAPU8, at + 1, this.head, copyBody);  // the heap after the call: memory may have grown
  }

  /// The answer a failing deployment gives for `status` (413: nginx's, for a body over the limit).
  failure(status) {
    return readResponse(this.module.HEAPU8, this.#replyAt(this.module._mock_failure(status)) + 1, this.head, true);
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
    return heap.slice(at, at + u32(heap, at - 4));
  }

  // Where a call's result starts in the heap (after its u32 length), valid until the next call; "E" + message
  // is the core's error, thrown.
  #replyAt(at) {
    const heap = this.module.HEAPU8;  // after the call: memory may have grown
    if (heap[at + 4] === 0x45)
      throw new Error(asciiDecoder.decode(heap.subarray(at + 5, at + 4 + u32(heap, at))));
    return at + 4;
  }
}

// Little-endian u32s and latin-1 texts (a byte a character, as HTTP carries them) in a byte array, without a
// DataView: one a call cost more than the fields it read.
const u32 = (bytes, at) => (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
function putU32(bytes, at, v) {
  bytes[at] = v;
  bytes[at + 1] = v >>> 8;
  bytes[at + 2] = v >>> 16;
  bytes[at + 3] = v >>> 24;
  return at + 4;
}
function putText(bytes, at, text) {
  at = putU32(bytes, at, text.length);
  for (let i = 0; i < text.length; ++i) bytes[at + i] = text.charCodeAt(i);
  return at + text.length;
}

// status, flags, the head's serial, the body's length and address in the heap, then the head (reason, content
// type, header count, headers: u32-length texts, latin-1 as HTTP carries them). `bytes`: the core's heap, read in
// place; `head`: the Core's last head read ({ serial, reason, contentType, pairs }), used again while the serial
// is the same;
// `copyBody`: the body copied out (else a view of the heap, valid until the next call into the core).
function readResponse(bytes, at, head, copyBody) {
  const status = u32(bytes, at);
  const withoutContentLength = (u32(bytes, at + 4) & 1) !== 0;  // framed without Content-Length (Django's bad-Host 400)
  const serial = u32(bytes, at + 8);
  if (serial !== head.serial) {
    const { texts, count } = readTexts(bytes, at + 20);
    const pairs = [];
    for (let i = 0; i < count; ++i) pairs.push([texts[2 + 2 * i], texts[3 + 2 * i]]);
    Object.assign(head, { serial, reason: texts[0], contentType: texts[1], pairs });
  }
  const n = u32(bytes, at + 12), from = u32(bytes, at + 16);  // the body where the core keeps it
  // An answer handed out (copyBody) gets pairs of its own; the front's own Response reads the shared ones.
  const headers = copyBody ? head.pairs.map(([name, value]) => [name, value]) : head.pairs.slice();
  const body = copyBody ? copyOut(bytes, from, n) : bytes.subarray(from, from + n);
  return { status, reason: head.reason, contentType: head.contentType, headers, body, withoutContentLength };
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

// The head's texts (reason, content type, then each header's name and value) and header count. Where the whole
// head is ASCII (lengths under 128 and the text: nearly always) it is decoded in one call and cut, a byte a
// character; else each text is read as latin-1.
function readTexts(bytes, start) {
  let end = start + 4 + u32(bytes, start);
  end += 4 + u32(bytes, end);
  const count = u32(bytes, end);
  end += 4;
  for (let i = 0; i < 2 * count; ++i) end += 4 + u32(bytes, end);
  let ascii = true;
  for (let i = start; i < end && ascii; ++i) ascii = bytes[i] < 0x80;
  const block = ascii ? asciiDecoder.decode(bytes.subarray(start, end)) : null;
  const texts = [];
  for (let from = start; from < end;) {
    const n = u32(bytes, from);
    from += 4;
    texts.push(ascii ? block.substring(from - start, from - start + n) : latin1Text(bytes.subarray(from, from + n)));
    from += n + (texts.length === 2 ? 4 : 0);  // the header count after the content type
  }
  return { texts, count };
}
