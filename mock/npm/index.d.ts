// Types of entities-images-mock (docs/npm.md). The options are the native mock's flags, camel-cased.

import type { ImageRecord, PageOfImageRecords } from "./entities-images.js";

/** The schema's types (schema/types/entities-images.d.ts, generated from the JSON Schema), shipped along. */
export type { ImageRecord, PageOfImageRecords };

/** A record of a dataset: `image` may be left out (it is rebuilt from each request's origin). */
export type DatasetRecord = Omit<ImageRecord, "image"> & { image?: string };

export interface MockOptions {
  /** createMock(): what a relative URL given to fetch() resolves against (else the environment's location, as under
   *  jsdom); handlers(): where the app calls the API (default "http://localhost:8000"). An absolute http(s) URL, the
   *  deployment's, not the endpoint's: a path in it is a prefix links and image URLs carry (FORCE_SCRIPT_NAME). */
  baseUrl?: string | URL;
  /** Size of the generated collection (default 300000). Not with `dataset`. */
  records?: number;
  /** Seed of the generated collection and of the faults (default 1); up to 2^64-1 as a bigint or a string. */
  seed?: number | bigint | string;
  /** Serve these records instead: an array, or JSON Lines / JSON array text. */
  dataset?: DatasetRecord[] | string;
  /** --sized-pictures: each record's picture at its file_size in bytes (padding inside the picture), as a
   *  deployment's storage serves it; by default a small placeholder. Made whole in WebAssembly memory here. */
  sizedPictures?: boolean;
  /** The user HTTP Basic authenticates (uploads): "NAME:PASSWORD" or { name, password }. */
  user?: string | { name: string; password: string };
  /** --upload-bytes: the uploads kept in memory, at most this many bytes (default 256 MiB; each its file, its
   *  names and 1 KiB); one more is answered 507 naming it. POST /__mock/reset (admin) removes them. */
  uploadBytes?: number;
  /** Allowed origins for CORS, or "*". */
  cors?: string | string[];
  /** Every answer waits ms, plus 0..jitter (seeded): 300, "300:200" or { ms: 300, jitter: 200 }. */
  latency?: number | string | { ms?: number; jitter?: number };
  /** The longest X-Mock-Latency a request may ask for, in ms (default 60000). */
  maxDelay?: number;
  /** This share of requests gets failStatus instead (0..1). */
  failRate?: number;
  /** 500, 502, 503 (default) or 429. */
  failStatus?: 500 | 502 | 503 | 429;
  /** This share of requests is dropped: a network error (0..1). */
  dropRate?: number;
  /** Bodies arrive at this many bytes a second. */
  slowBody?: number;
  /** A live collection: records inserted and deleted a minute, "30:10" or { inserts, deletes }. Not with `user`. */
  churn?: string | { inserts?: number; deletes?: number };
  /** Django's GZipMiddleware: gzip for clients that accept it. */
  gzip?: boolean;
  /** The admin routes under /__mock/ (journal, reset, faults). */
  admin?: boolean;
  /** Requests the journal keeps (default 10000). */
  journalSize?: number;
  /** --journal-bytes: and at most this many bytes of them (default 32 MiB; an entry counts as its JSON). */
  journalBytes?: number;
  /** --journal-credentials: keep Authorization, Cookie and other credential headers in clear in the journal (default: "*****"). */
  journalCredentials?: boolean;
  /** --admin-host: a Host the admin routes also accept ("*": any), besides localhost, *.localhost, 127.0.0.1 and [::1]. */
  adminHost?: string;
  /** The request log: "none" (default), "text" or "json", to onLog or else console.error. */
  log?: "none" | "text" | "json";
  /** Where each line of the log goes (default console.error). */
  onLog?: (line: string) => void;
  /** The core's WebAssembly where core/core.wasm cannot be fetched: its bytes (entities-images-mock/inline-wasm), a module, a URL. */
  wasm?: WebAssembly.Module | ArrayBuffer | ArrayBufferView | URL | string | Promise<WebAssembly.Module | ArrayBuffer | ArrayBufferView>;
}

/** An answer in the core's terms: what every front turns into its own response. */
export interface CoreAnswer {
  status: number;
  reason: string;
  contentType: string;
  headers: [string, string][];
  body: Uint8Array;
  /** Sent without Content-Length (chunked, or closed on HTTP/1.0), as gunicorn frames Django's bad-Host 400. */
  withoutContentLength: boolean;
}

/** One request's plan: wait delayMs (the front's own way), then response(), or dropped() when drop. */
export interface Plan {
  delayMs: number;
  drop: boolean;
  slowBodyBps: number;
  dropped(): void;
  answer(sentBytes?: number): CoreAnswer;
  response(): Response;
}

export interface Mock {
  /** Resolves to the mock once its core is compiled and its collection made; rejects saying why not. */
  readonly ready: Promise<Mock>;
  /** Answers as the native mock answers the same request (status, headers, body bytes). */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  plan(input: Request | string | URL, init?: RequestInit): Promise<Plan>;
  planRaw(request: { method: string; target: string; authority: string; headers: [string, string][]; body: Uint8Array }): Promise<Omit<Plan, "response">>;
  /** "300000 generated records (seed 1)" */
  describe(): Promise<string>;
  /** Bytes of WebAssembly memory this mock holds. */
  memoryBytes(): Promise<number>;
  failure(status: number): Promise<CoreAnswer>;
}

/** Creates a mock at once; a bad option throws a TypeError or RangeError naming it. Its methods return Promises. */
export function createMock(options?: MockOptions): Mock;

/** The options as declared once: [name, CLI flag, value kind, help, check]. */
export const OPTIONS: ReadonlyArray<readonly [string, string, string, string, (value: unknown) => object]>;

/** Headers every front adds to a core answer (Content-Type, Content-Length unless the core frames it without, Date),
 *  added to `headers` (a copy of the answer's by default), which it returns. */
export function answerHeaders(answer: CoreAnswer, headers?: [string, string][]): [string, string][];
