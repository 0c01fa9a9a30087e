import type { HttpHandler } from "msw";
import type { Mock, MockOptions } from "./index.js";

/** The options of createMock(), baseUrl among them: where the app calls the API (default "http://localhost:8000"). */
export type HandlersOptions = MockOptions;

/** MSW handlers for /edw/ (the API), /media/ (pictures) and, with admin, /__mock/ under baseUrl. */
export function handlers(options?: HandlersOptions): HttpHandler[] & { mock: Mock };
