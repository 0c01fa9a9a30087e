// The Jest setup docs/npm.md shows (setupFiles): Node's File, so that an upload's FormData (Node's, under
// jest-fixed-jsdom) keeps the picture's bytes. Under jsdom the suite keeps jsdom's own File first, to show
// what happens to an upload of one (scenarios.cjs, jsdomUpload).
if (typeof window !== "undefined") globalThis.jsdom = { File: globalThis.File };
globalThis.File = require("node:buffer").File;
