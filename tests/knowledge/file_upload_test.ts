/**
 * Knowledge from uploaded files (docs/knowledge.md, "Files"): a multi-page
 * PDF with headings, a Word document, a Q&A CSV and an HTML page uploaded
 * through the portal's and the dashboard's multipart endpoint become `text`
 * or `qa` sources titled by the file's name, and their passages reach the
 * prompt (try-it's passages and the AI stub's recorded request) under their
 * headings, a PDF's running footer left out; an encrypted PDF, a PDF without text, a damaged Word file and a
 * file that is not the PDF it says end `failed` with the reason, never stuck;
 * type, count, size, title and role are refused before anything is read;
 * deleting a source deletes its stored file and every chunk.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { parseSse } from "../widget/widget_client.ts";
import { pollUntil } from "../portal/poll.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import {
  corruptDocx,
  corruptPdf,
  docxWithHeadings,
  encryptedPdf,
  pdfWithHeadings,
  textlessPdf,
  uploadFile,
} from "../helpers/knowledge_files.ts";

const ai = startFakeAi({ reply: "Noted." });
const s = await startTestServer({ seed: dashboardSeed(), env: { AI_BASE_URL: ai.baseUrl } });
const PORTAL = "/api/portal/chatbots/acme-helper/knowledge";
const DASHBOARD = "/api/dashboard/chatbots/acme-helper/knowledge";
const portalOwner: string = T.acme.owner.portal;

interface Source {
  id: number;
  type: string;
  title: string;
  status: string;
  chunk_count: number;
  error: string | null;
}

const upload = (
  name: string,
  bytes: Uint8Array,
  opts: { title?: string; dashboard?: boolean } = {},
) =>
  uploadFile(
    s.url,
    `${opts.dashboard ? DASHBOARD : PORTAL}/files`,
    opts.dashboard ? D.acme.owner : portalOwner,
    { name, bytes },
    opts.title,
  );

/** The source once indexing has finished with it: `ready` or `failed`, never left `processing`. */
const settled = (id: number) =>
  pollUntil(
    async () => {
      const r = await http(s.url, "GET", PORTAL, { token: portalOwner });
      const found = (r.body.data as Source[]).find((x) => x.id === id);
      return found && (found.status === "ready" || found.status === "failed") ? found : null;
    },
    `source ${id} to be indexed or failed`,
    60_000,
  );

async function passagesFor(question: string) {
  const res = await fetch(`${s.url}/api/dashboard/chatbots/acme-helper/try`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${D.acme.owner}` },
    body: JSON.stringify({ question }),
  });
  const events = parseSse(await res.text());
  return events[0]!.data.passages as {
    source_id: number;
    source_title: string;
    title: string;
    content: string;
  }[];
}

const storedFiles = async (id: number) =>
  (await s.deps.sql<{ n: number }[]>`
    SELECT (SELECT count(*) FROM knowledge_files WHERE source_id = ${id})::int +
           (SELECT count(*) FROM knowledge_file_parts WHERE source_id = ${id})::int AS n`)[0]!.n;
const storedChunks = async (id: number) =>
  (await s.deps.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM knowledge_chunks WHERE source_id = ${id}`)[0]!.n;

const manual = () =>
  pdfWithHeadings([
    [
      {
        heading: "Getting started",
        paragraphs: ["Unpack the kettle and rinse it twice before the first boil."],
      },
      {
        heading: "Descaling the kettle",
        paragraphs: [
          "Descale the kettle every month with citric acid dissolved in warm water. " +
          "Leave the solution for twenty minutes, then rinse three times.",
        ],
      },
    ],
    [{
      heading: "Warranty",
      paragraphs: ["The heating plate carries a warranty of seven years from the day of purchase."],
    }],
    [{
      heading: "Spare parts",
      paragraphs: ["Replacement lids in marigold orange are sold in the online shop."],
    }],
  ], (n) => `Kettle manual, edition 2 - page ${n}`);

let pdfId = 0;

Deno.test("knowledge from uploaded files", serverTestOptions, async (t) => {
  await t.step(
    "a multi-page PDF with headings: 201 pending, then its passages reach the prompt",
    async () => {
      const r = await upload("kettle-manual.pdf", await manual());
      assertEquals(r.status, 201, JSON.stringify(r.body));
      assertEquals(r.body.data.status, "pending");
      assertEquals(r.body.data.type, "text");
      assertEquals(r.body.data.title, "kettle-manual.pdf");
      assertEquals(r.body.data.chunk_count, 0);
      pdfId = r.body.data.id;
      const done = await settled(pdfId);
      assertEquals(done.status, "ready", done.error ?? "");
      assertOk(done.chunk_count >= 3, `chunks ${done.chunk_count}`);
      const passages = await passagesFor("How often should I descale with citric acid?");
      const hit = passages.find((p) => p.source_id === pdfId);
      assertOk(hit, JSON.stringify(passages));
      // The passage stays under its heading, which is searched and shown with it.
      assertOk(hit.title.includes("Descaling the kettle"), hit.title);
      assertOk(hit.content.includes("every month with citric acid"), hit.content);
      assertOk(!hit.content.includes("seven years"), "a passage never spans two sections");
      const [all] = await s.deps.sql<{ text: string }[]>`
      SELECT string_agg(content, ' ') AS text FROM knowledge_chunks WHERE source_id = ${pdfId}`;
      assertOk(!all!.text.includes("Kettle manual, edition"), "the running footer is dropped");
      const prompt = JSON.stringify(ai.requests.at(-1)!);
      assertOk(
        prompt.includes("citric acid dissolved in warm water"),
        "the passage is in the prompt",
      );
      // A later page is read too.
      const parts = await passagesFor("Are marigold lids sold as spare parts?");
      assertOk(parts.some((p) => p.source_id === pdfId && p.content.includes("marigold")));
    },
  );

  await t.step("a Word document uploaded from the dashboard keeps its headings", async () => {
    const bytes = docxWithHeadings([
      { heading: "Returns", paragraphs: ["Returns are free within thirty days of delivery."] },
      {
        heading: "Returning by post",
        level: 2,
        paragraphs: ["Print the prepaid label and drop the parcel at any quokka depot."],
      },
    ]);
    const r = await upload("returns.docx", bytes, { dashboard: true, title: "Returns guide" });
    assertEquals(r.status, 201, JSON.stringify(r.body));
    assertEquals(r.body.data.title, "Returns guide");
    assertOk("updated_at" in r.body.data, "the dashboard's own source shape");
    const done = await settled(r.body.data.id);
    assertEquals(done.status, "ready", done.error ?? "");
    const hit = (await passagesFor("Where do I drop my parcel, which quokka depot?"))
      .find((p) => p.source_id === r.body.data.id);
    assertOk(hit, "the docx passage is retrieved");
    assertOk(hit.title.includes("Returning by post"), hit.title);
    assertOk(hit.content.includes("quokka depot"), hit.content);
  });

  await t.step(
    "a CSV of question and answer columns becomes a qa source of its pairs",
    async () => {
      const csv = "Question,Answer\n" +
        '"Do you ship to Svalbard?","Yes, by the weekly cargo flight, in about nine days."\n' +
        "Can I pay with a gift card?,Gift cards pay for anything except other gift cards.\n";
      const r = await upload("faq.csv", new TextEncoder().encode(csv));
      assertEquals(r.status, 201, JSON.stringify(r.body));
      assertEquals(r.body.data.type, "qa");
      const done = await settled(r.body.data.id);
      assertEquals(done.status, "ready", done.error ?? "");
      assertEquals(done.chunk_count, 2);
      const hit = (await passagesFor("Do you ship to Svalbard?"))
        .find((p) => p.source_id === r.body.data.id);
      assertOk(hit?.content.includes("weekly cargo flight"), JSON.stringify(hit));
    },
  );

  await t.step("HTML, Markdown and plain text files are read", async () => {
    const files: [string, string, string][] = [
      [
        "hours.html",
        "<html><body><h1>Hours</h1><p>The shop opens at nine on weekdays.</p></body></html>",
        "nine on weekdays",
      ],
      ["care.md", "# Care\n\nWipe the wombat-leather case with a dry cloth.", "wombat-leather"],
      ["notes.txt", "Parking is free behind the building after six.", "behind the building"],
    ];
    for (const [name, text, phrase] of files) {
      const r = await upload(name, new TextEncoder().encode(text));
      assertEquals(r.status, 201, `${name}: ${JSON.stringify(r.body)}`);
      assertEquals(r.body.data.type, "text");
      const done = await settled(r.body.data.id);
      assertEquals(done.status, "ready", `${name}: ${done.error}`);
      const [row] = await s.deps.sql<{ content: string }[]>`
        SELECT string_agg(content, ' ') AS content FROM knowledge_chunks WHERE source_id = ${done.id}`;
      assertOk(row!.content.includes(phrase), `${name}: ${row!.content}`);
    }
  });

  await t.step("each unreadable file fails with its reason, none stays processing", async () => {
    const cases: [string, Uint8Array, RegExp][] = [
      ["locked.pdf", await encryptedPdf(), /encrypted with a password/],
      ["scan.pdf", await textlessPdf(), /no text layer/],
      ["broken.docx", corruptDocx(), /not a readable Word document/],
      ["fake.pdf", corruptPdf(), /not a readable PDF/],
      ["blob.txt", new Uint8Array([0x41, 0, 0x42, 0, 0x43]), /binary data/],
    ];
    for (const [name, bytes, reason] of cases) {
      const r = await upload(name, bytes);
      assertEquals(r.status, 201, `${name}: ${JSON.stringify(r.body)}`);
      const done = await settled(r.body.data.id);
      assertEquals(done.status, "failed", name);
      assertOk(reason.test(done.error ?? ""), `${name}: ${done.error}`);
      assertEquals(done.chunk_count, 0);
    }
  });

  await t.step(
    "type, missing file, title and body format are refused with 422 naming the field",
    async () => {
      const exe = await upload("setup.exe", new Uint8Array([0x4d, 0x5a, 1, 2]));
      assertEquals(exe.status, 422);
      assertOk(
        (exe.body.errors as Record<string, string[]>).file![0]!.includes(".pdf"),
        JSON.stringify(exe.body),
      );
      const empty = await upload("empty.txt", new Uint8Array());
      assertEquals(empty.status, 422);
      assertOk((empty.body.errors as Record<string, string[]>).file, JSON.stringify(empty.body));
      const title = await upload("a.txt", new TextEncoder().encode("Hi there"), {
        title: "t".repeat(201),
      });
      assertEquals(title.status, 422);
      assertOk((title.body.errors as Record<string, string[]>).title, JSON.stringify(title.body));
      const nul = await upload("b.txt", new TextEncoder().encode("Hi there"), {
        title: "a\u0000b",
      });
      assertEquals(nul.status, 422);
      assertOk((nul.body.errors as Record<string, string[]>).title, JSON.stringify(nul.body));
      const form = new FormData();
      form.append("title", "No file");
      const none = await fetch(`${s.url}${PORTAL}/files`, {
        method: "POST",
        headers: { authorization: `Bearer ${portalOwner}` },
        body: form,
      });
      assertEquals(none.status, 422);
      assertOk((await none.json()).errors.file);
      const json = await http(s.url, "POST", `${PORTAL}/files`, {
        token: portalOwner,
        body: { a: 1 },
      });
      assertEquals(json.status, 422);
      assertOk((json.body.errors as Record<string, string[]>).file);
    },
  );

  await t.step("a file over 20 MiB is refused with 413 and nothing is stored", async () => {
    const before =
      (await s.deps.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM knowledge_files`)[0]!.n;
    const big = await upload("huge.txt", new Uint8Array(20 * 1024 * 1024 + 1).fill(0x61));
    assertEquals(big.status, 413);
    assertOk(String(big.body.message).includes("20 MiB"), String(big.body.message));
    const after =
      (await s.deps.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM knowledge_files`)[0]!.n;
    assertEquals(after, before);
  });

  await t.step(
    "a 19 MiB file is stored whole; its text over the limit fails with the reason",
    async () => {
      const line = new TextEncoder().encode(
        "Lorem ipsum dolor sit amet, consectetur adipiscing.\n",
      );
      const bytes = new Uint8Array(19 * 1024 * 1024);
      for (let at = 0; at + line.length <= bytes.length; at += line.length) bytes.set(line, at);
      bytes.fill(0x20, bytes.length - (bytes.length % line.length));
      const r = await upload("long.txt", bytes);
      assertEquals(r.status, 201, JSON.stringify(r.body));
      const [stored] = await s.deps.sql<{ byte_size: number; n: number }[]>`
      SELECT f.byte_size, (SELECT sum(length(p.bytes))::int FROM knowledge_file_parts p
                            WHERE p.source_id = f.source_id) AS n
        FROM knowledge_files f WHERE f.source_id = ${r.body.data.id}`;
      assertEquals(stored, { byte_size: bytes.length, n: bytes.length });
      const done = await settled(r.body.data.id);
      assertEquals(done.status, "failed");
      assertOk(/at most 2,000,000/.test(done.error ?? ""), done.error ?? "");
    },
  );

  await t.step("a bot holding 200 files takes no more (422)", async () => {
    // The bot's files are made directly: two hundred uploads would only slow the suite.
    await s.deps.sql`
      WITH src AS (
        INSERT INTO knowledge_sources (workspace_id, chatbot_id, type, title, status)
        SELECT b.workspace_id, b.id, 'text', 'f' || g, 'ready'
          FROM chatbots b, generate_series(1, 200) g WHERE b.public_key = 'acme-sleeper'
        RETURNING id, workspace_id, chatbot_id)
      INSERT INTO knowledge_files (source_id, workspace_id, chatbot_id, file_name, format,
                                   byte_size, sha256)
      SELECT id, workspace_id, chatbot_id, 'f.txt', 'text', 1, '' FROM src`;
    const r = await uploadFile(
      s.url,
      "/api/portal/chatbots/acme-sleeper/knowledge/files",
      portalOwner,
      {
        name: "one-more.txt",
        bytes: new TextEncoder().encode("One file too many."),
      },
    );
    assertEquals(r.status, 422);
    assertOk(
      (r.body.errors as Record<string, string[]>).file![0]!.includes("200"),
      JSON.stringify(r.body),
    );
  });

  await t.step(
    "roles and surfaces: a viewer, an agent, another workspace's bot, no token, no portal",
    async () => {
      const bytes = new TextEncoder().encode("Hello.");
      const viewer = await uploadFile(s.url, `${DASHBOARD}/files`, D.acme.viewer, {
        name: "v.txt",
        bytes,
      });
      assertEquals(viewer.status, 403);
      const agent = await uploadFile(s.url, `${PORTAL}/files`, T.acme.agent.portal, {
        name: "a.txt",
        bytes,
      });
      assertEquals(agent.status, 403);
      const other = await uploadFile(
        s.url,
        "/api/portal/chatbots/globex-bot/knowledge/files",
        portalOwner,
        {
          name: "o.txt",
          bytes,
        },
      );
      assertEquals(other.status, 404);
      const anon = await uploadFile(s.url, `${PORTAL}/files`, "nope", { name: "n.txt", bytes });
      assertEquals(anon.status, 401);
      // A workspace without the white-label portal: its portal token opens nothing.
      const noPortal = await uploadFile(
        s.url,
        "/api/portal/chatbots/globex-bot/knowledge/files",
        T.globex.owner.portal,
        { name: "g.txt", bytes },
      );
      assertEquals(noPortal.status, 403);
      const dashboardToken = await uploadFile(s.url, `${PORTAL}/files`, D.acme.owner, {
        name: "d.txt",
        bytes,
      });
      assertEquals(dashboardToken.status, 403, "a dashboard token is not a portal token");
    },
  );

  await t.step("deleting the source removes its stored file and every chunk", async () => {
    assertEquals(await storedFiles(pdfId), 2, "the file and its one part");
    assertOk((await storedChunks(pdfId)) > 0);
    const r = await http(s.url, "DELETE", `${PORTAL}/${pdfId}`, { token: portalOwner });
    assertEquals(r.status, 200);
    assertEquals(await storedFiles(pdfId), 0);
    assertEquals(await storedChunks(pdfId), 0);
    const passages = await passagesFor("How often should I descale with citric acid?");
    assertOk(!passages.some((p) => p.source_id === pdfId), "nothing of it is retrieved");
  });

  await t.step("the upload is in the OpenAPI document as multipart/form-data", async () => {
    // deno-lint-ignore no-explicit-any
    const doc = (await http(s.url, "GET", "/api/openapi.json")).body as any;
    const op = doc.paths["/api/portal/chatbots/{key}/knowledge/files"].post;
    assertOk(op.requestBody.content["multipart/form-data"].schema.properties.file);
    assertOk(op.responses["201"] && op.responses["413"] && op.responses["422"]);
  });
});

Deno.test("stop the file upload test server", serverTestOptions, async () => {
  await ai.close();
  await s.stop();
});
