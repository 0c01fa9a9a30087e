// A CommonJS project's TypeScript under `module: node16` ("type": "commonjs"): its imports become require()
// calls, so TypeScript must find CommonJS types (index.d.cts), not index.d.ts, which it reads as an
// ES module and refuses from CommonJS (TS1479). Checked by mock.npm.types_node16, with types-esm/app.ts.
// Not entities-images-mock/msw (types-esm/ checks it): MSW 2's own types import ES-only packages (rettime),
// which TypeScript refuses from CommonJS under node16 (TS1479 inside node_modules/msw), as Node refuses MSW
// in CommonJS before 24.9 (docs/npm.md#jest-and-vitest).
import { createMock, type ImageRecord, type Mock, type MockOptions } from "entities-images-mock";

const mock: Mock = createMock({ records: 3, baseUrl: "http://localhost:8000" });

export async function first(): Promise<ImageRecord | undefined> {
  const response: Response = await mock.fetch("/edw/api/entities-images/?limit=1");
  const page = (await response.json()) as { results: ImageRecord[] };
  return page.results[0];
}

export const options: MockOptions = { baseUrl: new URL("http://localhost:8000"), records: 3, dataset: [] };
