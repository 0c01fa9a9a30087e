// Vitest's projects for the package (mock.npm.vitest): the same tests in the node and jsdom environments.
import { defineConfig } from "vitest/config";

const project = (name, environment) => ({ test: { name, environment, include: ["vitest.test.mjs"], setupFiles: ["vitest.setup.mjs"] } });
export default defineConfig({ test: { projects: [project("node", "node"), project("jsdom", "jsdom")] } });
