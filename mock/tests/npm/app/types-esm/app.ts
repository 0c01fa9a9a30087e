// An ES module project's TypeScript under `module: node16` ("type": "module"): index.d.ts and msw.d.ts, the
// types of the import condition. Checked by mock.npm.types_node16, with types-cjs/app.ts (the require condition).
import { createMock, type ImageRecord, type Mock } from "entities-images-mock";
import { handlers } from "entities-images-mock/msw";

const mock: Mock = createMock({ records: 3, baseUrl: "http://localhost:8000" });

export async function first(): Promise<ImageRecord | undefined> {
  const response: Response = await mock.fetch("/edw/api/entities-images/?limit=1");
  const page = (await response.json()) as { results: ImageRecord[] };
  return page.results[0];
}

export const apiHandlers = handlers({ baseUrl: new URL("http://localhost:8000"), records: 3 });
