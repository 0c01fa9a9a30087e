import type { HttpHandler } from "msw";
import type { Mock, MockOptions } from "./index.js";

export interface HandlersOptions extends MockOptions {
  /** The API's origin the app calls (default "http://localhost:8000"). */
  baseUrl?: string;
}

/** MSW handlers for /edw/ (the API), /media/ (pictures) and, with admin, /__mock/ under baseUrl. */
export function handlers(options?: HandlersOptions): HttpHandler[] & { mock: Mock };
