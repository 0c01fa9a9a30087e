// The scenarios in Jest's default CommonJS mode: require() loads the package's index.cjs, and the app's
// fetch is createMock().fetch (MSW 2 cannot be required here before Node 24.9: scenarios.cjs).
const { createMock } = require("entities-images-mock");
const { scenarios, jsdomUpload } = require("./scenarios.cjs");

scenarios({ test, expect, beforeAll, afterAll }, { createMock });
if (globalThis.jsdom) jsdomUpload({ test, expect }, globalThis.jsdom, { createMock });
