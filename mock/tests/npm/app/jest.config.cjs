// Jest's projects for the package (mock.npm.jest): the same tests in the node environment and in jsdom
// (jest-fixed-jsdom: jsdom with Node's Fetch API, as MSW asks); *.test.cjs in the default CommonJS mode,
// *.test.mjs in ESM mode (node --experimental-vm-modules).
const project = (displayName, testEnvironment) => ({
  displayName, testEnvironment, setupFiles: ["<rootDir>/jest.setup.cjs"],
  testMatch: ["<rootDir>/jest*.test.{cjs,mjs}"],
  modulePathIgnorePatterns: ["<rootDir>/bundle"],  // mock.npm.bundlers builds there at the same time
});
module.exports = { projects: [project("node", "node"), project("jsdom", "jest-fixed-jsdom")] };
