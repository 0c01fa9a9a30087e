// Jest's plain jsdom environment, as Create React App and `jest --env=jsdom` set it up (mock.npm.jest_plain_jsdom):
// testEnvironment "jsdom" (jest-environment-jsdom), no setup file, the default CommonJS mode. Its global object is
// jsdom's window: no TextEncoder, TextDecoder, Fetch API or ReadableStream, which the package takes from Node.
module.exports = {
  displayName: "jsdom (plain)",
  testEnvironment: "jsdom",
  testMatch: ["<rootDir>/plain_jsdom.test.cjs"],
  modulePathIgnorePatterns: ["<rootDir>/bundle"],  // mock.npm.bundlers builds there at the same time
};
