// A deployment under a path prefix (Django's FORCE_SCRIPT_NAME, e.g. https://example.org/backend): handlers()
// hands the core the path without the prefix (index.js), and puts the prefix back into what the core built from the
// request's URL, as Django under a prefix builds it: links, `image` URLs (MEDIA_URL gets the prefix too),
// the browsable page's hrefs and redirects' Location. Bytes are compared as latin-1 text: the patterns are ASCII.
import pako from "pako";

const latin1 = (bytes) => {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return text;
};
const bytesOf = (text) => Uint8Array.from(text, (c) => c.charCodeAt(0));

function prefixed(text, prefix) {
  return text.replace(/(https?:\/\/[^/"'\s<>]+)\/(edw|media)\//g, `$1${prefix}/$2/`)
    .replace(/(["'])\/(edw|media)\//g, `$1${prefix}/$2/`);
}

/// The core's answer with the prefix put back (a gzipped body unzipped and zipped again).
export function withPrefix(answer, prefix) {
  const headers = answer.headers.map(([n, v]) => [n, n.toLowerCase() === "location" && v.startsWith("/") ? prefix + v : v]);
  if (!/json|html|text/.test(answer.contentType)) return { ...answer, headers };
  const gzipped = headers.some(([n, v]) => n.toLowerCase() === "content-encoding" && v === "gzip");
  const text = prefixed(latin1(gzipped ? pako.ungzip(answer.body) : answer.body), prefix);
  return { ...answer, headers, body: gzipped ? pako.gzip(bytesOf(text), { level: 6 }) : bytesOf(text) };
}
