// Uploads as a test environment hands them over. A FormData given to mock.fetch is written out here from each
// Blob's own bytes, whichever implementation it is (Node's, undici's, jsdom's: jsdom's has no arrayBuffer(),
// so undici's Request would write its parts as text). And a multipart body in which a file has already become
// text ('[object File]' from a FormData that did not take the File, 'undefined' from a Request that could
// not read it) is refused with a 400 that says so, instead of a picture of those bytes stored and listed.
import { web } from "./environment.js";

const tag = (value) => Object.prototype.toString.call(value);
const isBlob = (value) => typeof value === "object" && value !== null && /^\[object (Blob|File)\]$/.test(tag(value));

/// Whether a fetch body is a FormData (of any realm) that this module writes out itself.
export const isFormData = (body) => tag(body) === "[object FormData]" && typeof body.entries === "function";

async function blobBytes(name, blob) {
  if (typeof blob.arrayBuffer === "function") return new Uint8Array(await blob.arrayBuffer());
  if (typeof globalThis.FileReader === "function") {  // jsdom's Blob: its own FileReader reads it
    return new Promise((resolve, reject) => {
      const reader = new globalThis.FileReader();
      reader.onload = () => resolve(new Uint8Array(reader.result));
      reader.onerror = () => reject(reader.error);
      reader.readAsArrayBuffer(blob);
    });
  }
  const error = new TypeError(`cannot read the bytes of form field '${name}' (${tag(blob)} without arrayBuffer(), and no FileReader)`);
  throw Object.assign(error, { unreadableUpload: true });  // mock.fetch answers it with a 400
}

// The HTML standard's escaping of names in a multipart/form-data header.
const quoted = (text) => String(text).replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");

/// { body, contentType }: the multipart/form-data encoding of `form`, each file's bytes read from its Blob.
export async function formDataBody(form) {
  const boundary = `----entities-images-mock-${Math.random().toString(16).slice(2)}`;
  const utf8 = new web.TextEncoder();
  const parts = [];
  for (const [name, value] of form.entries()) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"`;
    if (isBlob(value)) {
      head += `; filename="${quoted(value.name ?? "blob")}"\r\nContent-Type: ${value.type || "application/octet-stream"}`;
      parts.push(utf8.encode(`${head}\r\n\r\n`), await blobBytes(name, value), utf8.encode("\r\n"));
    } else {
      parts.push(utf8.encode(`${head}\r\n\r\n${value}\r\n`));
    }
  }
  parts.push(utf8.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (body.set(p, at), at + p.length), 0);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

// What a Blob becomes when the code in between writes it as text.
const BLOB_AS_TEXT = new Set(["undefined", "[object File]", "[object Blob]", "[object Object]"]);

/// A message when a multipart body holds a file that arrived as text, else undefined.
export function unreadableUpload(contentType, body) {
  const boundary = /^multipart\/form-data;.*boundary="?([^";]+)"?/i.exec(contentType ?? "")?.[1];
  if (!boundary || body.length > 1 << 20) return undefined;  // a real picture: nothing to suspect
  const text = new web.TextDecoder("latin1").decode(body);  // only ASCII is compared
  for (const part of text.split(`--${boundary}`)) {
    const at = part.indexOf("\r\n\r\n");
    if (at < 0) continue;
    const head = part.slice(0, at), value = part.slice(at + 4).replace(/\r\n$/, "");
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const file = /filename="/.test(head);
    if (name === undefined || !BLOB_AS_TEXT.has(value) || (!file && value === "undefined")) continue;
    return `form field '${name}' arrived as the text '${value}', not a file's bytes: the FormData or Request of this ` +
           `test environment could not read its File (jsdom's File under Node's FormData or fetch). Give it a File ` +
           `of the same implementation as FormData, e.g. globalThis.File = require("node:buffer").File in a Jest ` +
           `setup file (docs/npm.md#jest-and-vitest)`;
  }
  return undefined;
}
