/**
 * Retrieval before and after a change, from one run: the base commit's
 * retrieval and prompt code (extracted by base_tree.ts) and this tree's, in
 * one process, on one server and one database, question by question, the
 * order of the two sides alternating. Issue 27's base is 115f3af, main just
 * before passages (neighbouring chunks, migration 0140) were merged; set
 * RETRIEVAL_AB_BASE to judge another change.
 *
 * 1. Recall into the prompt on the tuning and the fresh (judging) question
 *    sets of the retrieval bench, each side's KNOWLEDGE block built by its own
 *    `buildPrompt` from its own `retrieveChunks`. Every question is also asked
 *    over HTTP (`POST /api/v1/chatbots/{key}/messages`), and the change's
 *    in-process block is checked to be the one the fake provider received.
 * 2. Retrieval time over the v1 knowledge bench's synthetic chunks (100,000
 *    on both backends; BENCH_CHUNKS to change; loading them takes minutes),
 *    each question asked of both sides in turn, and where the time goes:
 *    EXPLAIN ANALYZE of each side's ranked statement for the same questions
 *    (planning, execution, the neighbours' part of the plan, the rows sent).
 *
 * Embedded PGlite first, then PostgreSQL when one answers. Figures:
 * docs/BENCHMARKS.md.
 */
import { startTestServer, type TestServer } from "../tests/helpers/test_server.ts";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { openProviderClient } from "../domain/ai/provider_client.ts";
import type { retrieveChunks } from "../domain/knowledge/retrieve_chunks.ts";
import type { buildPrompt } from "../domain/ai/build_prompt.ts";
import type { AppDeps } from "../domain/deps.ts";
import { baseTree, shortCommit } from "./base_tree.ts";
import { realPostgresUrl, withDatabase } from "./support.ts";
import {
  apiPoster,
  CATEGORIES,
  type Category,
  docsSet,
  hasVector,
  helpCentreSet,
  manualSet,
  median,
  pct,
  type QuestionSet,
  type Role,
  seed as questionSeed,
  squash,
} from "./retrieval_bench.ts";
import { loadSyntheticChunks, seed as scaleSeed } from "./v1_knowledge_bench.ts";

const BASE = Deno.env.get("RETRIEVAL_AB_BASE") ?? "115f3af";
/** Questions of each kind (topical, random) asked of both sides at scale. */
const SCALE_QUESTIONS = Number(Deno.env.get("BENCH_AB_QUESTIONS") ?? "300");
/** Questions whose ranked statement is explained, per kind and side. */
const EXPLAINED = 60;

interface Side {
  name: "base" | "change";
  retrieve: typeof retrieveChunks;
  prompt: typeof buildPrompt;
}

async function loadSides(): Promise<Side[]> {
  const dir = await baseTree(BASE, ["domain", "db"]);
  const here = new URL("../", import.meta.url);
  const load = async (root: URL, name: Side["name"]): Promise<Side> => ({
    name,
    retrieve: (await import(new URL("domain/knowledge/retrieve_chunks.ts", root).href))
      .retrieveChunks,
    prompt: (await import(new URL("domain/ai/build_prompt.ts", root).href)).buildPrompt,
  });
  return [await load(dir, "base"), await load(here, "change")];
}

/** Both sides, the order alternating with `i`. */
function inTurn<S>(sides: S[], i: number): S[] {
  return i % 2 ? [...sides].reverse() : sides;
}

const knowledgeOf = (system: string) => system.slice(system.indexOf("KNOWLEDGE\n"));

interface SideRecall {
  found: Record<Category, number>;
  total: Record<Category, number>;
  pages: number[];
  knowledgeChars: number[];
  ms: number[];
}

interface RecallRow {
  set: string;
  role: Role;
  sides: Record<Side["name"], SideRecall>;
  /** Questions whose in-process block (change) was exactly the one the server sent. */
  agree: number;
  asked: number;
  /** Questions whose two blocks were the same. */
  same: number;
}

function emptyRecall(): SideRecall {
  const zero = () => ({ plain: 0, inflection: 0, misspelling: 0, synonym: 0 });
  return { found: zero(), total: zero(), pages: [], knowledgeChars: [], ms: [] };
}

async function recallAB(sides: Side[], sets: QuestionSet[]): Promise<RecallRow[]> {
  const fake = startFakeAi({ reply: "ok" });
  const s = await startTestServer({
    seed: questionSeed(sets),
    env: { AI_BASE_URL: fake.baseUrl, LOG_LEVEL: "error" },
  });
  const rows: RecallRow[] = [];
  try {
    const post = apiPoster(s.url);
    let n = 0;
    for (const set of sets) {
      for (const doc of set.docs) await post(`/api/v1/chatbots/${set.botKey}/knowledge`, doc);
      const corpus = squash(set.docs.map((d) => d.content).join("\n"));
      const [bot] = await s.deps.sql<
        {
          id: number;
          workspace_id: number;
          language: string;
          name: string;
          persona: string;
          instructions: string;
        }[]
      >`SELECT id, workspace_id, language, name, persona, instructions
          FROM chatbots WHERE public_key = ${set.botKey}`;
      const provider = openProviderClient(s.deps, bot!.workspace_id, "provider_1");
      for (const { role, questions } of set.sets) {
        const row: RecallRow = {
          set: set.name,
          role,
          sides: { base: emptyRecall(), change: emptyRecall() },
          agree: 0,
          asked: 0,
          same: 0,
        };
        for (const [i, q] of questions.entries()) {
          if (!q.gold.some((g) => corpus.includes(squash(g)))) continue;
          const before = fake.requests.length;
          await post(`/api/v1/chatbots/${set.botKey}/messages`, {
            message: q.q,
            visitor_id: `ab-${set.botKey}-${n++}`,
          });
          const served = knowledgeOf(fake.requests.slice(before).at(-1)!.messages[0]!.content);
          row.asked++;
          const blocks: string[] = [];
          for (const side of inTurn(sides, i)) {
            const t0 = performance.now();
            const chunks = await side.retrieve(s.deps, {
              workspaceId: bot!.workspace_id,
              bot: { id: bot!.id, language: bot!.language },
              query: q.q,
              provider,
            });
            const ms = performance.now() - t0;
            const system = side.prompt({ bot: bot!, chunks, history: [], question: q.q })[0]!
              .content;
            const knowledge = knowledgeOf(system);
            const r = row.sides[side.name];
            r.ms.push(ms);
            r.total[q.category]++;
            if (q.gold.some((g) => squash(knowledge).includes(squash(g)))) r.found[q.category]++;
            r.knowledgeChars.push(knowledge.length);
            r.pages.push(
              new Set(chunks.filter((c) => knowledge.includes(c.content)).map((c) => c.sourceId))
                .size,
            );
            if (side.name === "change" && knowledge === served) row.agree++;
            blocks.push(knowledge);
          }
          if (blocks[0] === blocks[1]) row.same++;
        }
        rows.push(row);
      }
    }
    return rows;
  } finally {
    await s.stop();
    await fake.close();
  }
}

function recallTable(db: string, vector: boolean, rows: RecallRow[]): string {
  const cell = (found: number, total: number) =>
    total ? `${found}/${total} (${Math.round((found / total) * 100)}%)` : "–";
  const all = (r: SideRecall) =>
    cell(
      CATEGORIES.reduce((n, c) => n + r.found[c], 0),
      CATEGORIES.reduce((n, c) => n + r.total[c], 0),
    );
  const lines = [
    `### Recall into the prompt, base and change, on ${db} (${
      vector ? "full-text + vectors" : "full-text only"
    })`,
    "",
    "| Question set | base | **change** | change by category (plain / inflection / misspelling / synonym) | pages in prompt p50, base → change | knowledge block p50, base → change | retrieval p50, base → change | change's block = served | same block on both sides |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const b = r.sides.base;
    const c = r.sides.change;
    lines.push(
      `| ${r.set}, ${
        r.role === "fresh"
          ? "**fresh (judging)**"
          : r.role === "issue 42"
          ? "**issue 42 (judging)**"
          : "tuning"
      } | ${all(b)} | **${all(c)}** | ${
        CATEGORIES.map((k) => `${c.found[k]}/${c.total[k]}`).join(" / ")
      } | ${median(b.pages)} → ${median(c.pages)} | ${median(b.knowledgeChars)} → ${
        median(c.knowledgeChars)
      } chars | ${median(b.ms).toFixed(1)} → ${
        median(c.ms).toFixed(1)
      } ms | ${r.agree}/${r.asked} | ${r.same}/${r.asked} |`,
    );
  }
  return lines.join("\n");
}

/** The ranked statement a retrieval sends, caught on its way (sql.unsafe). */
function catching(deps: AppDeps): { deps: AppDeps; last(): { text: string; params: unknown[] } } {
  let caught: { text: string; params: unknown[] } | null = null;
  const sql = new Proxy(deps.sql, {
    get(target, key, receiver) {
      if (key !== "unsafe") return Reflect.get(target, key, receiver);
      return (text: string, params: unknown[], opts?: unknown) => {
        caught = { text, params };
        // deno-lint-ignore no-explicit-any
        return (target.unsafe as any)(text, params, opts);
      };
    },
  });
  return {
    deps: { ...deps, sql },
    last: () => {
      if (!caught) throw new Error("no statement was caught");
      return caught;
    },
  };
}

interface PlanNode {
  "Node Type": string;
  "Subplan Name"?: string;
  "Actual Total Time"?: number;
  "Actual Loops"?: number;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/** Whether a plan node (or one below it) is the neighbours' VALUES (-1), (1). */
function readsNeighbours(node: PlanNode): boolean {
  return node["Node Type"] === "Values Scan" || (node.Plans ?? []).some(readsNeighbours);
}

/** Milliseconds in the statement's neighbours part: the init/sub plan holding the VALUES scan. */
function neighboursMs(node: PlanNode): number {
  if (node["Subplan Name"] && readsNeighbours(node)) {
    return (node["Actual Total Time"] ?? 0) * (node["Actual Loops"] ?? 1);
  }
  return (node.Plans ?? []).reduce((sum, p) => sum + neighboursMs(p), 0);
}

interface Explained {
  planning: number[];
  execution: number[];
  neighbours: number[];
  /** Characters of the statement's JSON result, what travels and is parsed. */
  resultChars: number[];
  /** The statement alone from this process: sent, planned, run, sent back, parsed. */
  roundTrip: number[];
}

async function explainSide(
  s: TestServer,
  side: Side,
  bot: { id: number; workspaceId: number },
  queries: string[],
): Promise<Explained> {
  const out: Explained = {
    planning: [],
    execution: [],
    neighbours: [],
    resultChars: [],
    roundTrip: [],
  };
  const caught = catching(s.deps);
  for (const query of queries) {
    await side.retrieve(caught.deps, {
      workspaceId: bot.workspaceId,
      bot: { id: bot.id, language: "english" },
      query,
    });
    const { text, params } = caught.last();
    const [row] = await s.deps.sql.unsafe<{ "QUERY PLAN": unknown }[]>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
      params as never[],
    );
    const raw = row!["QUERY PLAN"];
    const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as {
      Plan: PlanNode;
      "Planning Time": number;
      "Execution Time": number;
    }[];
    out.planning.push(plan[0]!["Planning Time"]);
    out.execution.push(plan[0]!["Execution Time"]);
    out.neighbours.push(neighboursMs(plan[0]!.Plan));
    const t0 = performance.now();
    const [result] = await s.deps.sql.unsafe<Record<string, unknown>[]>(text, params as never[]);
    out.roundTrip.push(performance.now() - t0);
    out.resultChars.push(JSON.stringify(result).length);
  }
  return out;
}

async function scaleAB(sides: Side[], chunkTotal: number): Promise<string> {
  const s = await startTestServer({ seed: scaleSeed(), env: { LOG_LEVEL: "error" } });
  try {
    const t0 = performance.now();
    const { bot, topical, random } = await loadSyntheticChunks(s.deps, "acme-bench", chunkTotal);
    const loadS = (performance.now() - t0) / 1000;
    const ask = (side: Side, query: string) =>
      side.retrieve(s.deps, {
        workspaceId: bot.workspaceId,
        bot: { id: bot.id, language: "english" },
        query,
      });
    for (const q of topical.slice(0, 20)) for (const side of sides) await ask(side, q);
    const kinds = [
      { name: "topical (three words of one chunk's topic)", queries: topical },
      { name: "random (four mid-frequency words)", queries: random },
    ];
    const lines = [
      `### Retrieval over ${chunkTotal.toLocaleString("en-US")} chunks, base and change, on ${
        s.deps.db.embedded ? "embedded PGlite" : "PostgreSQL"
      }`,
      "",
      `Loading: ${
        loadS.toFixed(1)
      } s. Each question asked of both sides in turn (order alternating), ` +
      `${SCALE_QUESTIONS} questions per kind, full-text only (the v1 knowledge bench's bot).`,
      "",
      "| Questions | base p50 / p90 / p99 | change p50 / p90 / p99 | paired difference p50 (change − base) |",
      "|---|---|---|---|",
    ];
    const f = (xs: number[]) =>
      `${pct(xs, 0.5).toFixed(2)} / ${pct(xs, 0.9).toFixed(2)} / ${pct(xs, 0.99).toFixed(2)} ms`;
    for (const kind of kinds) {
      const ms: Record<Side["name"], number[]> = { base: [], change: [] };
      const diffs: number[] = [];
      for (const [i, q] of kind.queries.slice(0, SCALE_QUESTIONS).entries()) {
        const pair: Partial<Record<Side["name"], number>> = {};
        for (const side of inTurn(sides, i)) {
          const t = performance.now();
          await ask(side, q);
          pair[side.name] = performance.now() - t;
          ms[side.name].push(pair[side.name]!);
        }
        diffs.push(pair.change! - pair.base!);
      }
      lines.push(
        `| ${kind.name} | ${f(ms.base)} | ${f(ms.change)} | ${median(diffs) >= 0 ? "+" : ""}${
          median(diffs).toFixed(2)
        } ms |`,
      );
    }
    lines.push(
      "",
      `EXPLAIN (ANALYZE) of each side's ranked statement, the first ${EXPLAINED} questions of each kind (p50):`,
      "",
      "| Questions | side | planning | execution | of which the neighbours' subplan | result sent (JSON chars) | the statement's round trip from this process |",
      "|---|---|---|---|---|---|---|",
    );
    for (const kind of kinds) {
      for (const side of sides) {
        const e = await explainSide(s, side, bot, kind.queries.slice(0, EXPLAINED));
        lines.push(
          `| ${kind.name.split(" ")[0]} | ${side.name} | ${median(e.planning).toFixed(2)} ms | ${
            median(e.execution).toFixed(2)
          } ms | ${median(e.neighbours).toFixed(2)} ms | ${median(e.resultChars)} | ${
            median(e.roundTrip).toFixed(2)
          } ms |`,
        );
      }
    }
    return lines.join("\n");
  } finally {
    await s.stop();
  }
}

export async function run(): Promise<string> {
  const sides = await loadSides();
  const sets: QuestionSet[] = [];
  const out: string[] = [
    `## Retrieval A/B: base ${await shortCommit(BASE)} against this tree, one run`,
  ];
  const help = await helpCentreSet();
  if (typeof help === "string") out.push(help);
  else sets.push(help);
  sets.push(await docsSet());
  sets.push(await manualSet());
  const parts = Deno.env.get("BENCH_AB_PARTS") ?? "recall,scale";
  const scaleChunks = Number(Deno.env.get("BENCH_CHUNKS") ?? "100000");
  // BENCH_AB_EMBEDDED=0 leaves the embedded database out (PostgreSQL only).
  const embedded = Deno.env.get("BENCH_AB_EMBEDDED") !== "0";
  if (embedded && parts.includes("recall")) {
    out.push(
      recallTable("embedded PGlite", true, await withDatabase(null, () => recallAB(sides, sets))),
    );
  }
  if (embedded && parts.includes("scale")) {
    out.push(await withDatabase(null, () => scaleAB(sides, scaleChunks)));
  }
  const real = await realPostgresUrl();
  if (!real) {
    out.push("PostgreSQL: none answered (set BENCH_DATABASE_URL); embedded figures only.");
    return out.join("\n\n");
  }
  if (parts.includes("recall")) {
    const rows = await withDatabase(real, () => recallAB(sides, sets));
    out.push(recallTable("PostgreSQL", await hasVector(real), rows));
  }
  if (parts.includes("scale")) {
    out.push(await withDatabase(real, () => scaleAB(sides, scaleChunks)));
  }
  return out.join("\n\n");
}

if (import.meta.main) console.log(await run());
