// The scenarios under Vitest, in the node and jsdom environments (vitest.config.mjs).
import { afterAll, beforeAll, expect, test } from "vitest";
import { setupServer } from "msw/node";
import { handlers } from "entities-images-mock/msw";
import { createMock } from "entities-images-mock";
import scenarioModule from "./scenarios.cjs";

const { jsdomUpload, scenarios } = scenarioModule;

scenarios({ test, expect, beforeAll, afterAll }, { setupServer, handlers, createMock });
if (globalThis.jsdom) jsdomUpload({ test, expect }, globalThis.jsdom, { createMock });
