// The Vitest setup docs/npm.md shows (setupFiles), for the jsdom environment: Node's File, Blob and FormData
// in place of jsdom's, so that fetch (Node's) sends an upload's bytes. The suite keeps jsdom's first, to show
// what happens to an upload of them (scenarios.cjs, jsdomUpload).
import { Blob, File } from "node:buffer";

if (typeof window !== "undefined") {
  globalThis.jsdom = { File: globalThis.File, FormData: globalThis.FormData };
  globalThis.File = File;
  globalThis.Blob = Blob;
  globalThis.FormData = (await new Response(new URLSearchParams()).formData()).constructor;  // Node's, unexported
}
