// The Web platform's classes the package uses, from the global object, or from Node where the global object
// lacks them. Jest's plain `jsdom` environment (Create React App's) makes the test's global object jsdom's
// window, which has no TextEncoder, TextDecoder, Request, Response, Headers or ReadableStream (issue 44: the
// package failed on load with "ReferenceError: TextEncoder is not defined"); the Node process running the
// tests has them all. Outside Node (a browser, a worker) nothing is taken: what is missing is named with the fix.
import { nodeGlobal } from "./node-global.js";

const NAMES = ["TextEncoder", "TextDecoder", "Request", "Response", "Headers", "ReadableStream", "WebAssembly"];

/// The classes, once load() has run: web.Request, web.Response, ... (the global object's where it has them).
export const web = {};

// The Fetch API's classes come from one realm, all or none (Jest's jsdom has a Headers of its own, no Request).
const FETCH = ["Request", "Response", "Headers"];
const missing = () => {
  const absent = NAMES.filter((name) => typeof globalThis[name] === "undefined");
  return absent.some((name) => FETCH.includes(name)) ? [...new Set([...absent, ...FETCH])] : absent;
};
for (const name of NAMES) web[name] = globalThis[name];

/// What the package cannot do without, and how to give it: a message for an Error.
export function missingMessage(names) {
  return `entities-images-mock needs the global ${names.join(", ")} (the Fetch API and encoding classes of Node 18+ ` +
         `or a browser), which this environment lacks. Under Jest's jsdom in Node the package takes Node's own; ` +
         `elsewhere use testEnvironment "jest-fixed-jsdom" (jsdom with Node's Fetch API), or set them on globalThis ` +
         `in a setup file (docs/npm.md#jest-and-vitest)`;
}

let loading;

/// Fills `web` with Node's classes where the global object lacks them; rejects naming the fix where it cannot.
/// Resolves at once where nothing is missing (Node, a browser, Vitest's jsdom, jest-fixed-jsdom).
export function load() {
  return (loading ??= (async () => {
    const absent = missing();
    if (absent.length === 0) return web;
    const node = await nodeGlobal();
    for (const name of absent) web[name] = node?.[name];
    const still = NAMES.filter((name) => typeof web[name] === "undefined");
    if (still.length > 0) throw new Error(missingMessage(still));
    return web;
  })());
}

/// Whether load() has anything to do: some class is missing from the global object.
export const incomplete = () => missing().length > 0;
