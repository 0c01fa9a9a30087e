// What an app's TypeScript writes against the package's types, checked by tsc --strict (mock.npm_types).
import { createMock, type Mock, type MockOptions } from "entities-images-mock";
import { handlers } from "entities-images-mock/msw";

const options: MockOptions = { records: 120, seed: 7n, latency: "50:10", cors: ["http://localhost:3000"], gzip: true };
const mock: Mock = createMock(options);

export async function firstIds(): Promise<number[]> {
  await mock.ready;
  const response: Response = await mock.fetch("http://localhost:8000/edw/api/entities-images/?limit=3");
  const page = (await response.json()) as { results: { id: number }[] };
  return page.results.map((record) => record.id);
}

export const apiHandlers = handlers({ baseUrl: "http://localhost:8000", user: { name: "alice", password: "s3cret" } });
export const describe: Promise<string> = apiHandlers.mock.describe();
