/**
 * A crawl reads the PDFs it finds on the site, within an uploaded file's
 * limits: a linked PDF with headings becomes a page of the url source, titled
 * by its file name, whose passages reach the prompt with the PDF's URL; an
 * encrypted PDF, a PDF without text and one over 20 MiB are counted as
 * failed pages, not indexed, and the crawl still ends ready.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { parseSse } from "../widget/widget_client.ts";
import { pollUntil } from "../portal/poll.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { encryptedPdf, pdfWithHeadings, textlessPdf } from "../helpers/knowledge_files.ts";

const PDF = "application/pdf";
const guide = await pdfWithHeadings([
  [{
    heading: "Installing the heat pump",
    paragraphs: ["Mount the outdoor unit on the north wall."],
  }],
  [{
    heading: "Frost protection",
    paragraphs: ["Below minus fifteen degrees the pump switches to the pelican defrost cycle."],
  }],
]);
const site = startLocalSite({
  "/robots.txt": { contentType: "text/plain", body: "User-agent: *\nAllow: /\n" },
  "/": page("Downloads", ["Manuals for every heat pump we sell."], [
    "/files/heat%20pump%20guide.pdf",
    "/files/locked.pdf",
    "/files/scan.pdf",
    "/files/huge.pdf",
  ]),
  "/files/heat%20pump%20guide.pdf": { contentType: PDF, body: guide },
  "/files/locked.pdf": { contentType: PDF, body: await encryptedPdf() },
  "/files/scan.pdf": { contentType: PDF, body: await textlessPdf() },
  "/files/huge.pdf": { contentType: PDF, body: new Uint8Array(20 * 1024 * 1024 + 1) },
});
const ai = startFakeAi({ reply: "Noted." });
const s = await startTestServer({ seed: dashboardSeed(), env: { AI_BASE_URL: ai.baseUrl } });
const LIST = "/api/dashboard/chatbots/acme-helper/knowledge";

Deno.test("a crawl reads the PDFs it finds", serverTestOptions, async (t) => {
  let id = 0;
  await t.step("the url source ends ready with the readable PDF as a page", async () => {
    const r = await http(s.url, "POST", "/api/portal/chatbots/acme-helper/knowledge", {
      token: T.acme.owner.portal,
      body: { type: "url", source_url: `${site.url}/` },
    });
    assertEquals(r.status, 201);
    id = r.body.data.id;
    const done = await pollUntil(
      async () => {
        const list = await http(s.url, "GET", LIST, { token: D.acme.owner });
        const found = list.body.data.find((x: { id: number }) => x.id === id);
        return found && (found.status === "ready" || found.status === "failed") ? found : null;
      },
      "the crawl to settle",
      60_000,
    );
    assertEquals(done.status, "ready", done.error ?? "");
    assertEquals(done.pages_found, 5);
    assertEquals(done.pages_indexed, 2);
    assertEquals(done.pages_failed, 3, "encrypted, text-less and oversized PDFs");
    const pages = await s.deps.sql<{ title: string; source_url: string }[]>`
      SELECT title, source_url FROM knowledge_sources WHERE parent_id = ${id} ORDER BY id`;
    const pdf = pages.find((p) => p.source_url.endsWith(".pdf"));
    assertEquals(pdf?.title, "heat pump guide.pdf");
    assertEquals(pages.length, 2);
  });

  await t.step("its passages reach the prompt under their heading, citing the PDF", async () => {
    const res = await fetch(`${s.url}/api/dashboard/chatbots/acme-helper/try`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${D.acme.owner}` },
      body: JSON.stringify({ question: "What does the pelican defrost cycle do in frost?" }),
    });
    const passages = parseSse(await res.text())[0]!.data.passages as {
      title: string;
      url: string;
      content: string;
    }[];
    const hit = passages.find((p) => p.url?.endsWith("heat%20pump%20guide.pdf"));
    assertOk(hit, JSON.stringify(passages));
    assertOk(hit.title.includes("Frost protection"), hit.title);
    assertOk(hit.content.includes("pelican defrost cycle"));
    assertOk(JSON.stringify(ai.requests.at(-1)!).includes("pelican defrost cycle"));
  });
});

Deno.test("stop the PDF crawl test servers", serverTestOptions, async () => {
  await ai.close();
  await site.close();
  await s.stop();
});
