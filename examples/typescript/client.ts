// A small typed client of GET /edw/api/entities-images/: fetch a page, follow `next` until it is null, with a
// bound on the pages so a server whose links loop cannot keep it walking. The types are generated from
// schema/ (schema/types/entities-images.d.ts); copy both into an app. docs/typescript.md.
import type { ImageRecord, PageOfImageRecords } from "../../schema/types/entities-images.js";

/** What a walk collected: the records in the order served, the pages fetched and the last page's `count`. */
export interface Walk {
  records: ImageRecord[];
  pages: number;
  count: number;
}

// Array.isArray narrows to any[]; this keeps the elements unknown until checked.
function isArray(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

/** The envelope's shape and each record's `id`, checked at run time: the types say what a page is, not what a
 *  server sent (validate with the schema to check every field). */
export function isPage(body: unknown): body is PageOfImageRecords {
  if (typeof body !== "object" || body === null) return false;
  const page = body as Record<string, unknown>;
  const link = (value: unknown): boolean => value === null || typeof value === "string";
  return Number.isInteger(page.count) && link(page.next) && link(page.previous) && isArray(page.results) &&
         page.results.every((record) => typeof record === "object" && record !== null &&
                                        Number.isInteger((record as Record<string, unknown>).id));
}

/** One page as JSON; an HTTP error or a body that is no page is an Error naming the URL. */
export async function fetchPage(url: string, init: RequestInit = {}): Promise<PageOfImageRecords> {
  const headers = new Headers(init.headers);
  headers.set("Accept", "application/json");
  const response = await fetch(url, { ...init, headers });
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status} ${response.statusText}`);
  const body: unknown = await response.json();
  if (!isPage(body)) throw new Error(`GET ${url}: the body is not a page of image records`);
  return body;
}

/** Fetches `first` and every page its `next` links lead to; fails rather than fetch more than `maxPages`. */
export async function walk(first: string, maxPages: number, init: RequestInit = {}): Promise<Walk> {
  const records: ImageRecord[] = [];
  let next: string | null = first;
  let pages = 0;
  let count = 0;
  while (next !== null) {
    if (pages === maxPages) throw new Error(`stopped after ${maxPages} pages; next was still ${next}`);
    const page: PageOfImageRecords = await fetchPage(next, init);
    pages += 1;
    count = page.count;
    records.push(...page.results);
    next = page.next;
  }
  return { records, pages, count };
}
