// The browsable API page as a person sees it (headless Chromium): no console error, the title, heading,
// breadcrumb, request line, status and headers, the JSON with its links, page controls that lead to the
// next page, a format switcher, escaped echoes of the query, and the upload form only for the user, who
// uploads a picture through it.
// Usage: node browsable.mjs --mock BINARY
import { check, run, startServer } from "./lib.mjs";

const mock = process.argv[process.argv.indexOf("--mock") + 1];
const LIST = "/edw/api/entities-images/";

// The JSON of the response block: what follows the headers' blank line.
async function shownJson(page) {
  const text = await page.locator(".response-info pre").innerText();
  return JSON.parse(text.slice(text.indexOf("\n\n") + 2));
}

await run(async (browser) => {
  const api = await startServer(mock, ["--port", "0", "--records", "100", "--seed", "7", "--user", "alice:s3cret",
                                       "--quiet"]);
  const anonymous = await browser.newContext();
  const page = await anonymous.newPage();
  const problems = [];
  // Console errors, but for the browser's own /favicon.ico request when it shows the JSON view (the page
  // itself declares no icon to fetch; Django answers /favicon.ico with 404 too).
  const watch = (p) => p.on("console", (message) => {
    if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico"))
      problems.push(`${message.text()} (${message.location().url})`);
  });
  watch(page);
  page.on("pageerror", (error) => problems.push(String(error)));

  const first = await page.goto(`${api}${LIST}?format=api`);
  check("the page is HTML with status 200", first.status() === 200 &&
        first.headers()["content-type"] === "text/html; charset=utf-8", `${first.status()} ${first.headers()["content-type"]}`);
  check("title", await page.title() === "Entity Image List \u2013 Django REST framework", await page.title());
  check("heading", (await page.locator("h1").innerText()) === "Entity Image List");
  const crumbs = await page.locator(".breadcrumb li").allInnerTexts();
  check("breadcrumb", JSON.stringify(crumbs) === JSON.stringify(["Api Root", "Entity Image List"]), JSON.stringify(crumbs));
  const requestLine = await page.locator(".request-info pre").innerText();
  check("request line", requestLine === `GET ${LIST}?format=api`, requestLine);
  const block = await page.locator(".response-info pre").innerText();
  check("status and headers", block.startsWith("HTTP 200 OK\nAllow: GET, POST, HEAD, OPTIONS\n" +
        "Content-Type: application/json\nVary: Accept\n\n"), block.slice(0, 120));
  check("the JSON is indented by 4", block.includes('\n    "count": 100,\n'));
  const body = await shownJson(page);
  check("the JSON holds the first page", body.count === 100 && body.results.length === 12 && body.previous === null,
        `count ${body.count}, ${body.results.length} results`);
  const nextHref = await page.locator(".response-info a", { hasText: "offset=12" }).first().getAttribute("href");
  check("URLs in the JSON are links", nextHref === body.next, `${nextHref} vs ${body.next}`);
  const pictureLinks = await page.locator(".response-info a[href*='/media/']").count();
  check("each record's image is a link", pictureLinks === 12, String(pictureLinks));
  check("the first page is the active page control",
        (await page.locator(".pagination li.active").innerText()).trim() === "1");
  check("no upload form for an anonymous visitor", (await page.locator("form.upload").count()) === 0);

  // Follow the next link as a person would.
  await page.locator(".pagination a[aria-label='Next']").click();
  await page.waitForURL(/offset=12/);
  const second = await shownJson(page);
  check("the next control leads to the second page", second.previous !== null &&
        second.results[0].id > body.results[11].id && page.url().endsWith(`${LIST}?format=api&limit=12&offset=12`),
        page.url());
  check("page 2 is active", (await page.locator(".pagination li.active").innerText()).trim() === "2");
  check("the request line follows", (await page.locator(".request-info pre").innerText()) ===
        `GET ${LIST}?format=api&limit=12&offset=12`);

  // The format switcher leads to the same page as JSON.
  await page.locator("details.format-selection summary").click();
  await page.locator("a.format-option", { hasText: "json" }).click();
  await page.waitForURL(/format=json/);
  const asJson = JSON.parse(await page.locator("body").innerText());
  check("the json format link shows the same page as JSON", asJson.results[0].id === second.results[0].id,
        page.url());

  // Query values are echoed escaped: a script in the query never runs and reads as text.
  await page.goto(`${api}${LIST}?format=api&q=%3Cscript%3Ewindow.injected%3D1%3C%2Fscript%3E&x=%22%3E%3Cb%3E`);
  check("an echoed script does not run", await page.evaluate(() => window.injected === undefined));
  check("echoed markup is text", (await page.locator(".response-info b").count()) === 4,
        `${await page.locator(".response-info b").count()} <b> elements (the status and 3 header names)`);

  // The user allowed to POST gets the upload form.
  const user = await browser.newContext({
    extraHTTPHeaders: { Authorization: "Basic " + Buffer.from("alice:s3cret").toString("base64") } });
  const userPage = await user.newPage();
  watch(userPage);
  await userPage.goto(`${api}${LIST}?format=api`);
  check("the user sees the upload form", await userPage.locator("form.upload input[type=file][name=image]").isVisible());

  // The user uploads a picture through the form: the 201 comes back as a page, and the picture is served.
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
                          "base64");
  await userPage.setInputFiles("form.upload input[name=image]", { name: "Holiday Photo.PNG", mimeType: "image/png",
                                                                  buffer: png });
  await userPage.fill("form.upload input[name=entity]", String(body.results[0].entity));
  await Promise.all([userPage.waitForNavigation(), userPage.click("form.upload button[type=submit]")]);
  const createdBlock = await userPage.locator(".response-info pre").innerText();
  check("the form's upload is answered 201 on a page", createdBlock.startsWith("HTTP 201 Created\n"),
        createdBlock.slice(0, 60));
  const created = await shownJson(userPage);
  check("the new record has filer's name and the upload's size",
        created.file.endsWith("/holiday_photo.png") && created.original_filename === "Holiday Photo.PNG" &&
        created.file_size === png.length && created.mime_type === "image/png", JSON.stringify(created));
  const shown = await userPage.evaluate(async (url) => {
    const response = await fetch(url);
    const bitmap = await createImageBitmap(await response.blob());
    return [response.headers.get("content-type"), bitmap.width, bitmap.height];
  }, created.image);
  check("its picture is served and decodes", JSON.stringify(shown) === JSON.stringify(["image/png", 1, 1]),
        JSON.stringify(shown));
  await userPage.goto(`${api}${LIST}?format=api&offset=100`);
  check("it is listed after the collection", (await shownJson(userPage)).results[0]?.id === created.id);

  check("no console error", problems.length === 0, problems.join(" | "));
  await user.close();
  await anonymous.close();
});
