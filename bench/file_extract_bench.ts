/**
 * Reading uploaded knowledge files (domain/knowledge/files/): pages per
 * second for a generated 200-page PDF with headings (pdf-lib; 2 sections of
 * 3 paragraphs a page, about 2,400 characters of text each), read with
 * unpdf as the indexing job does; beside it, in the same run, the chunking
 * of the text it yields (the next step of the job) and a Word document of
 * the same text. Medians of BENCH_ROUNDS (default 5) after one warm-up.
 * Then the upload itself through a test server (POST …/knowledge/files,
 * stored in 1 MiB parts) for files of 1, 5 and 19 MiB, against
 * `GET /api/status` right after it, on the database the environment names
 * (embedded without DATABASE_URL).
 */
import { type PdfSection, pdfWithHeadings } from "../tests/helpers/knowledge_files.ts";
import { docxWithHeadings } from "../tests/helpers/knowledge_files.ts";
import { extractFile } from "../domain/knowledge/files/extract_file.ts";
import { chunkText } from "../domain/knowledge/chunk_text.ts";
import { percentile } from "./support.ts";
import { startTestServer } from "../tests/helpers/test_server.ts";
import { T } from "../tests/helpers/fixtures.ts";
import { dashboardSeed } from "../tests/dashboard/dashboard_seed.ts";
import { uploadFile } from "../tests/helpers/knowledge_files.ts";

const PAGES = Number(Deno.env.get("BENCH_PAGES") ?? 200);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);

const WORDS = ("kettle descaling warranty plate lid filter spout handle water boil citric " +
  "acid rinse minutes months years shop order parcel return refund label depot").split(" ");

function paragraph(seed: number): string {
  const out: string[] = [];
  for (let i = 0; i < 60; i++) out.push(WORDS[(seed * 7 + i * 13) % WORDS.length]!);
  return out.join(" ") + ".";
}

function document(): PdfSection[][] {
  return Array.from({ length: PAGES }, (_, p) =>
    [0, 1].map((s) => ({
      heading: `Chapter ${p + 1}.${s + 1} Section about item ${p * 2 + s}`,
      paragraphs: [0, 1, 2].map((k) => paragraph(p * 6 + s * 3 + k)),
    })));
}

async function median(fn: () => Promise<unknown> | unknown): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return percentile(times, 50);
}

/** Upload times (ms) of 1, 5 and 19 MiB text files, with a status request after each. */
async function uploads(): Promise<string[]> {
  const s = await startTestServer({ seed: dashboardSeed() });
  const rows: string[] = [];
  try {
    for (const mib of [1, 5, 19]) {
      const bytes = new Uint8Array(mib * 1024 * 1024).fill(0x61);
      for (let i = 0; i < bytes.length; i += 80) bytes[i] = 0x0a;
      const t0 = performance.now();
      const r = await uploadFile(
        s.url,
        "/api/portal/chatbots/acme-helper/knowledge/files",
        T.acme.owner.portal,
        { name: `f${mib}.txt`, bytes },
      );
      const upload = performance.now() - t0;
      const t1 = performance.now();
      await (await fetch(`${s.url}/api/status`)).text();
      const status = performance.now() - t1;
      rows.push(
        `| upload of ${mib} MiB (${r.status}) | ${upload.toFixed(0)} ms | status after it ${
          status.toFixed(1)
        } ms |`,
      );
    }
  } finally {
    await s.stop();
  }
  return rows;
}

export async function run(): Promise<string> {
  const pages = document();
  const pdf = await pdfWithHeadings(pages);
  const docx = docxWithHeadings(pages.flat());
  const sample = await extractFile("pdf", pdf);
  const text = sample.kind === "text" ? sample.text : "";
  const headings = text.split("\n").filter((l) => l.startsWith("#")).length;
  const pdfMs = await median(() => extractFile("pdf", pdf));
  const docxMs = await median(() => extractFile("docx", docx));
  const chunkMs = await median(() => chunkText(text));
  const chunks = chunkText(text).length;
  const load = (await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ")
    .slice(0, 3).join(" ");
  const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 1 });
  return [
    "### Reading uploaded files",
    "",
    `Generated PDF: ${PAGES} pages, ${fmt(pdf.byteLength / 1024)} KiB, ` +
    `${fmt(text.length)} characters of text, ${headings} headings found (of ${PAGES * 2}), ` +
    `${chunks} chunks. Medians of ${ROUNDS} after a warm-up; load average ${load}.`,
    "",
    "| step | median | rate |",
    "| --- | --- | --- |",
    `| PDF text with headings (unpdf) | ${fmt(pdfMs)} ms | **${
      fmt(PAGES / (pdfMs / 1000))
    } pages/s** |`,
    `| Word document of the same text (fflate) | ${fmt(docxMs)} ms | ${
      fmt(PAGES / (docxMs / 1000))
    } pages/s |`,
    `| chunking the PDF's text (baseline: the job's next step) | ${fmt(chunkMs)} ms | ${
      fmt(PAGES / (chunkMs / 1000))
    } pages/s |`,
    "",
    `Uploads (${Deno.env.get("DATABASE_URL") ? "PostgreSQL" : "embedded"}):`,
    "",
    "| upload | time | baseline |",
    "| --- | --- | --- |",
    ...(await uploads()),
  ].join("\n");
}

if (import.meta.main) console.log(await run());
