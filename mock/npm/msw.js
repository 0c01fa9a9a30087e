// entities-images-mock/msw: Mock Service Worker handlers that answer with the mock's core, for msw/node's
// setupServer and the browser's setupWorker. Latency is MSW's delay(), a dropped request MSW's network error.
import { delay, http, HttpResponse } from "msw";
import { createMock, PLAN_UNDER } from "./index.js";
import { baseUrlParts } from "./options.js";

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/// Handlers for the API under /edw/ and the pictures under /media/ (and /__mock/ with admin) of baseUrl
/// (default http://localhost:8000; a path in it is the prefix a deployment answers under); the other options
/// are createMock()'s.
export function handlers({ baseUrl = "http://localhost:8000", ...options } = {}) {
  const { origin, prefix } = baseUrlParts(baseUrl);
  const mock = createMock(options);
  const prefixes = options.admin ? "edw|media|__mock" : "edw|media";
  const paths = new RegExp(`^${escape(origin + prefix)}/(${prefixes})(/|$)`);
  const handler = http.all(paths, async ({ request }) => {
    const planned = await mock[PLAN_UNDER](prefix, request);
    if (planned.delayMs > 0) await delay(planned.delayMs);
    if (planned.drop) {
      planned.dropped();
      return HttpResponse.error();
    }
    return planned.response();
  });
  const list = [handler];
  list.mock = mock;  // the mock behind the handlers, for `await handlers().mock.ready`
  return list;
}
