// The scenarios in Jest's ESM mode (node --experimental-vm-modules): import loads index.js and msw.js,
// core.wasm found through import.meta.url; the app's fetch goes through MSW's handlers.
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { setupServer } from "msw/node";
import { handlers } from "entities-images-mock/msw";
import { createMock } from "entities-images-mock";
import scenarioModule from "./scenarios.cjs";

const { scenarios, jsdomUpload } = scenarioModule;
scenarios({ test, expect, beforeAll, afterAll }, { setupServer, handlers, createMock });
if (globalThis.jsdom) jsdomUpload({ test, expect }, globalThis.jsdom, { createMock });
