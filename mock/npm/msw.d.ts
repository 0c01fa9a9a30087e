import type { HttpHandler } from "msw";
import type { Mock, MockOptions } from "./index.js";

export interface HandlersOptions extends MockOptions {
  /** Where the app calls the API: an absolute http(s) URL (default "http://localhost:8000"); a path in it is a prefix links and image URLs carry. */
  baseUrl?: string;
}

/** MSW handlers for /edw/ (the API), /media/ (pictures) and, with admin, /__mock/ under baseUrl. */
export function handlers(options?: HandlersOptions): HttpHandler[] & { mock: Mock };
