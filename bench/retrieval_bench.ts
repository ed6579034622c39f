/**
 * Retrieval quality, measured as recall into the prompt: a corpus is loaded
 * into a bot through `POST /api/v1/chatbots/{key}/knowledge`, each question is
 * asked through `POST /api/v1/chatbots/{key}/messages` (a new conversation
 * each), and the prompt the fake AI provider received is searched for the
 * question's gold passage. Reported per category (plain, inflection,
 * misspelling, synonym), with the median knowledge block and prompt sizes and
 * the retrieval time (the same questions through `retrieveChunks`, in
 * process, with the bot's provider as the messages path passes it).
 *
 * Two corpora, each with two question sets (bench/retrieval/*.json): one over
 * the help centre in `../shared/quality/corpus/` beside the repository (read
 * at run time, never copied here; skipped with a note when absent) and one
 * over our own docs/. The older sets are the tuning sets; the `*_fresh_*`
 * sets (issue 27) were written before the changes they judge and are never
 * tuned on: their misses are not listed, only their counts. The "issue 42"
 * sets (help centre and postgres.js manual) judge issue 42's passage choice
 * the same way.
 * Runs on embedded PGlite (pgvector: full-text fused with the stub's hash
 * embeddings) and, when one answers, on PostgreSQL (full-text only unless it
 * has pgvector). Then the speed goals of the same code: the v1 knowledge
 * bench (training 1,000,000 characters, retrieval p50 over 100,000 chunks on
 * PostgreSQL); `BENCH_RETRIEVAL_SCALE=0` leaves that part out.
 */
import postgres from "postgres";
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed, T } from "../tests/helpers/fixtures.ts";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { retrieveChunks } from "../domain/knowledge/retrieve_chunks.ts";
import { chunksWithinBudget } from "../domain/ai/build_prompt.ts";
import { openProviderClient } from "../domain/ai/provider_client.ts";
import { realPostgresUrl, withDatabase } from "./support.ts";
import { run as runKnowledgeBench } from "./v1_knowledge_bench.ts";

export const CATEGORIES = ["plain", "inflection", "misspelling", "synonym"] as const;
export type Category = typeof CATEGORIES[number];

export interface Question {
  category: Category;
  q: string;
  gold: string[];
}

interface Doc {
  title: string;
  content: string;
}

/** A corpus loaded into one bot, asked its tuning and its fresh (judging) questions. */
export interface QuestionSet {
  name: string;
  botKey: string;
  docs: Doc[];
  sets: { role: Role; questions: Question[] }[];
}

/** "issue 42": the judging set of issue 42's passage choice, written before it (never tuned on). */
export type Role = "tuning" | "fresh" | "issue 42";

const repoRoot = new URL("../", import.meta.url);

async function readQuestions(file: string): Promise<Question[]> {
  const raw = JSON.parse(await Deno.readTextFile(new URL(`./retrieval/${file}`, import.meta.url)));
  return raw.questions as Question[];
}

/** The help centre beside the repository, or null (with the reason) when it is absent. */
export async function helpCentreSet(): Promise<QuestionSet | string> {
  // Beside the repository, or the machine's shared copy (a worktree sits one level deeper).
  const dirs = [
    Deno.env.get("BENCH_HELP_CENTRE_DIR"),
    new URL("../shared/quality/corpus/", repoRoot).pathname,
    "/work/shared/quality/corpus/",
  ].filter((d): d is string => !!d).map((d) => new URL(`file://${d.replace(/\/?$/, "/")}`));
  const dir = dirs.find((d) => exists(new URL("pages.json", d))) ?? dirs[0]!;
  let pages: { title: string; file: string }[];
  try {
    pages = JSON.parse(await Deno.readTextFile(new URL("pages.json", dir))).pages;
  } catch {
    return `Help centre set skipped: ${dir.pathname} is absent.`;
  }
  const docs = await Promise.all(pages.map(async (p) => ({
    title: p.title,
    content: await Deno.readTextFile(new URL(p.file, dir)),
  })));
  return {
    name: "help centre (../shared/quality/corpus)",
    botKey: "bench-help",
    docs,
    sets: [
      { role: "tuning", questions: await readQuestions("help_centre_questions.json") },
      { role: "fresh", questions: await readQuestions("help_centre_fresh_questions.json") },
      { role: "issue 42", questions: await readQuestions("help_centre_issue42_questions.json") },
    ],
  };
}

function exists(file: URL): boolean {
  try {
    return Deno.statSync(file).isFile;
  } catch {
    return false;
  }
}

export async function docsSet(): Promise<QuestionSet> {
  const dir = new URL("docs/", repoRoot);
  const docs: Doc[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile || !e.name.endsWith(".md") || e.name === "BENCHMARKS.md") continue;
    const content = await Deno.readTextFile(new URL(e.name, dir));
    const title = /^#\s+(.+)$/m.exec(content)?.[1] ?? e.name;
    docs.push({ title, content });
  }
  docs.sort((a, b) => a.title.localeCompare(b.title));
  return {
    name: "Parley docs/",
    botKey: "bench-docs",
    docs,
    sets: [
      { role: "tuning", questions: await readQuestions("docs_questions.json") },
      { role: "fresh", questions: await readQuestions("docs_fresh_questions.json") },
    ],
  };
}

/**
 * The third corpus (issue 42): the postgres.js manual, one page per `## `
 * section titled by its heading (what precedes the first section is the
 * introduction). Judged only: it has no tuning set (bench/retrieval/corpus/postgres_js/SOURCE.md).
 */
export async function manualSet(): Promise<QuestionSet> {
  const text = await Deno.readTextFile(
    new URL("./retrieval/corpus/postgres_js/README.md", import.meta.url),
  );
  const docs: Doc[] = [];
  for (const part of text.split(/^(?=## )/m)) {
    const content = part.trim();
    if (!content) continue;
    const title = /^##\s+(.+)$/m.exec(content)?.[1] ?? "Postgres.js introduction";
    docs.push({ title: `Postgres.js: ${title}`, content });
  }
  return {
    name: "postgres.js manual (bench/retrieval/corpus/postgres_js)",
    botKey: "bench-manual",
    docs,
    sets: [
      { role: "fresh", questions: await readQuestions("postgres_js_fresh_questions.json") },
      { role: "issue 42", questions: await readQuestions("postgres_js_issue42_questions.json") },
    ],
  };
}

export const squash = (s: string) => s.replace(/\s+/g, " ");

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : 0;
}

export function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))]! : 0;
}

export function seed(sets: QuestionSet[]) {
  const s = standardSeed();
  s.workspaces[0]!.plan = "unlimited";
  for (const set of sets) {
    (s.workspaces[0]!.chatbots as unknown[]).push({
      name: set.name,
      public_key: set.botKey,
      provider: "provider_1",
      model: "gpt-4o-mini",
    });
  }
  return s;
}

interface SetResult {
  set: QuestionSet;
  role: Role;
  found: Record<Category, number>;
  total: Record<Category, number>;
  stale: string[];
  missed: string[];
  knowledgeChars: number[];
  promptChars: number[];
  retrievalMs: number[];
  /** Distinct documents, and passages, among the chunks that fit the knowledge budget. */
  promptPages: number[];
  promptPassages: number[];
  loadMs: number;
}

/** POSTs JSON to the server as acme's API token; throws on a status of 300 or more. */
export function apiPoster(baseUrl: string) {
  return async (path: string, body: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${T.acme.owner.api}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    if (res.status >= 300) {
      throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
    }
    return json;
  };
}

async function measure(sets: QuestionSet[]): Promise<{ db: string; results: SetResult[] }> {
  const fake = startFakeAi({ reply: "ok" });
  const s = await startTestServer({
    seed: seed(sets),
    env: { AI_BASE_URL: fake.baseUrl, LOG_LEVEL: "error" },
  });
  const results: SetResult[] = [];
  try {
    const post = apiPoster(s.url);
    for (const set of sets) {
      const t0 = performance.now();
      for (const doc of set.docs) {
        await post(`/api/v1/chatbots/${set.botKey}/knowledge`, doc);
      }
      const loadMs = performance.now() - t0;
      const corpus = squash(set.docs.map((d) => d.content).join("\n"));
      const [bot] = await s.deps.sql<{ id: number; workspace_id: number; language: string }[]>`
        SELECT id, workspace_id, language FROM chatbots WHERE public_key = ${set.botKey}`;
      const provider = openProviderClient(s.deps, bot!.workspace_id, "provider_1");
      const retrieve = (query: string) =>
        retrieveChunks(s.deps, {
          workspaceId: bot!.workspace_id,
          bot: { id: bot!.id, language: bot!.language },
          query,
          provider,
        });
      let n = 0;
      for (const { role, questions } of set.sets) {
        const r: SetResult = {
          set,
          role,
          found: { plain: 0, inflection: 0, misspelling: 0, synonym: 0 },
          total: { plain: 0, inflection: 0, misspelling: 0, synonym: 0 },
          stale: [],
          missed: [],
          knowledgeChars: [],
          promptChars: [],
          retrievalMs: [],
          promptPages: [],
          promptPassages: [],
          loadMs,
        };
        for (const q of questions) {
          if (!q.gold.some((g) => corpus.includes(squash(g)))) {
            r.stale.push(q.q);
            continue;
          }
          const before = fake.requests.length;
          await post(`/api/v1/chatbots/${set.botKey}/messages`, {
            message: q.q,
            visitor_id: `bench-${set.botKey}-${n++}`,
          });
          const req = fake.requests.slice(before).at(-1);
          if (!req) throw new Error(`no provider call for "${q.q}"`);
          const system = req.messages[0]?.content ?? "";
          const knowledge = system.slice(system.indexOf("KNOWLEDGE\n"));
          r.total[q.category]++;
          if (q.gold.some((g) => squash(knowledge).includes(squash(g)))) r.found[q.category]++;
          else r.missed.push(`${q.category}: ${q.q}`);
          r.knowledgeChars.push(knowledge.length);
          r.promptChars.push(req.messages.reduce((sum, m) => sum + m.content.length, 0));
          const fitted = chunksWithinBudget(await retrieve(q.q));
          r.promptPages.push(new Set(fitted.map((c) => c.sourceId)).size);
          r.promptPassages.push(fitted.length);
        }
        // Retrieval time alone, as the messages path runs it (query embedding included).
        for (const q of questions.slice(0, 5)) await retrieve(q.q);
        for (const q of questions) {
          const t = performance.now();
          await retrieve(q.q);
          r.retrievalMs.push(performance.now() - t);
        }
        results.push(r);
      }
    }
    return { db: s.deps.db.embedded ? "embedded PGlite" : "PostgreSQL", results };
  } finally {
    await s.stop();
    await fake.close();
  }
}

function report(db: string, vector: boolean, results: SetResult[]): string {
  const f1 = (x: number) => x.toFixed(1);
  const lines = [
    `### Recall into the prompt on ${db} (${vector ? "full-text + vectors" : "full-text only"})`,
    "",
    "| Question set | plain | inflection | misspelling | synonym | all | knowledge block p50 | prompt p50 | pages / passages in prompt p50 | retrieval p50 / p90 |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  const cell = (found: number, total: number) =>
    total ? `${found}/${total} (${Math.round((found / total) * 100)}%)` : "–";
  for (const r of results) {
    const found = CATEGORIES.reduce((n, c) => n + r.found[c], 0);
    const total = CATEGORIES.reduce((n, c) => n + r.total[c], 0);
    lines.push(
      `| ${r.set.name}, ${r.set.docs.length} documents, ${r.role} | ` +
        CATEGORIES.map((c) => cell(r.found[c], r.total[c])).join(" | ") +
        ` | **${cell(found, total)}** | ${median(r.knowledgeChars)} chars | ` +
        `${median(r.promptChars)} chars | ${median(r.promptPages)} / ${
          median(r.promptPassages)
        } | ` +
        `${f1(pct(r.retrievalMs, 0.5))} / ${f1(pct(r.retrievalMs, 0.9))} ms |`,
    );
  }
  lines.push("");
  for (const r of results) {
    const label = `${r.set.name} (${r.role})`;
    if (r.stale.length) {
      lines.push(
        `Stale questions in ${label} (gold no longer in the corpus, not scored): ` +
          (r.role === "fresh" ? `${r.stale.length}` : r.stale.join("; ")),
      );
    }
    // A judging set's misses stay unlisted, so that no change is tuned on them.
    if (r.missed.length && r.role === "tuning") {
      lines.push(`Missed in ${label}: ${r.missed.join("; ")}`);
    }
    if (r.role === "tuning") {
      lines.push(`Loading ${r.set.name} over HTTP: ${Math.round(r.loadMs)} ms.`);
    }
  }
  return lines.join("\n");
}

export async function run(): Promise<string> {
  const sets: QuestionSet[] = [];
  const notes: string[] = [];
  const help = await helpCentreSet();
  if (typeof help === "string") notes.push(help);
  else sets.push(help);
  sets.push(await docsSet());
  sets.push(await manualSet());
  const out: string[] = [...notes];
  const embedded = await withDatabase(null, () => measure(sets));
  out.push(report(embedded.db, true, embedded.results));
  const real = await realPostgresUrl();
  if (real) {
    const pg = await withDatabase(real, () => measure(sets));
    out.push(report(pg.db, await hasVector(real), pg.results));
  } else {
    out.push("PostgreSQL: none answered (set BENCH_DATABASE_URL); embedded figures only.");
  }
  if (Deno.env.get("BENCH_RETRIEVAL_SCALE") !== "0") out.push(await runKnowledgeBench());
  return out.join("\n\n");
}

/** Whether the PostgreSQL server offers pgvector (then its bots fuse vectors too). */
export async function hasVector(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ ok: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS ok`;
    return row?.ok ?? false;
  } finally {
    await sql.end();
  }
}

if (import.meta.main) console.log(await run());
