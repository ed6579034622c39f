/**
 * The API reference's costs: generating /api/openapi.json from the procedures
 * (once per server start, on its first request), and the reference page's
 * assets (Swagger UI's script and stylesheet read from the package, hashed
 * and gzipped on their first request, then served from memory).
 */
import { buildOpenApiDocument } from "../routers/openapi/document.ts";
import { apiOperations } from "../routers/openapi/api_operations.ts";
import { apiDocsResponse } from "../routers/doors/api_docs_page.ts";
import { gzip } from "../routers/doors/static_files.ts";

const RUNS = 20;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function generate(): string {
  return JSON.stringify(buildOpenApiDocument(
    apiOperations(),
    { baseUrl: "http://localhost:8080", version: "1.0.0" },
  ));
}

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

export async function run(): Promise<string> {
  const first = await timed(generate);
  const warm: number[] = [];
  for (let i = 0; i < RUNS; i++) warm.push(await timed(generate));
  const doc = new TextEncoder().encode(generate());
  const rows: string[] = [];
  for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
    const req = () =>
      new Request(`http://localhost/api/docs/${file}`, {
        headers: { "accept-encoding": "gzip" },
      });
    let gzBytes = 0;
    const cold = await timed(async () => {
      const res = (await apiDocsResponse(req(), `/api/docs/${file}`))!;
      gzBytes = (await res.arrayBuffer()).byteLength;
    });
    const cached: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      cached.push(
        await timed(async () => {
          await (await apiDocsResponse(req(), `/api/docs/${file}`))!.arrayBuffer();
        }),
      );
    }
    const raw = (await apiDocsResponse(
      new Request(`http://localhost/api/docs/${file}`),
      `/api/docs/${file}`,
    ))!;
    const rawBytes = (await raw.arrayBuffer()).byteLength;
    rows.push(
      `| ${file} | ${rawBytes} B | ${gzBytes} B | ${cold.toFixed(0)} ms | ${
        median(cached).toFixed(2)
      } ms |`,
    );
  }
  const docGz = await gzip(doc);
  return [
    "### API reference",
    "",
    "| Measure | Value |",
    "|---|---|",
    `| /api/openapi.json: size (gzip) | ${doc.byteLength} B (${docGz.byteLength} B) |`,
    `| generating it, first call in the process | ${first.toFixed(1)} ms |`,
    `| generating it, warm, median of ${RUNS} | ${median(warm).toFixed(1)} ms |`,
    "",
    "| Asset | Size | Gzipped | First request (read + SHA-256 + gzip) | Later requests, median |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

if (import.meta.main) console.log(await run());
