/**
 * How well `recommend_mode: reactive` tells a visitor looking for a product
 * (asking what to buy, comparing, asking price or availability: products are
 * shown) from one asking for support (none are), on two question sets kept
 * apart (bench/recommendations/):
 * - **tuning**: the questions the rule was written and tested against
 *   (tests/widget/recommendations_test.ts), over that test's store and the
 *   standard seed's help pages, and a kitchen shop written to tune on
 *   (`copper_kettle_store.json`, `reactive_tuning_questions.json`, 32
 *   questions; its misses are listed);
 * - **judging** (`reactive_fresh_questions.json`): 64 questions written before
 *   the rule was measured on them, over a made-up outdoor shop of 40 products
 *   and an 8-page help centre (`northwind_store.json`); never tuned on, so
 *   its misses are counted, not listed.
 *
 * Each store is linked through the Shopify-shaped fake and synced by the real
 * job (so the catalogue is indexed, and embedded where the provider can, as in
 * production); each question goes through `recommendProducts` as the widget
 * stream calls it. Embedded PGlite, then PostgreSQL when one answers.
 */
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed } from "../tests/helpers/fixtures.ts";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { type FakeProduct, startFakeShopify } from "../tests/helpers/fake_shopify.ts";
import { recommendProducts } from "../domain/catalogue/recommend_products.ts";
import { openProviderClient } from "../domain/ai/provider_client.ts";
import type { ChatbotRow } from "../db/chatbots.ts";
import { realPostgresUrl, withDatabase } from "./support.ts";

const CATEGORIES = ["plain", "inflection", "misspelling", "synonym"] as const;
type Category = typeof CATEGORIES[number];

interface RuleQuestion {
  category: Category;
  q: string;
  /** Whether products should be shown. */
  recommend: boolean;
  /** Product ids of which one should be among those shown (when `recommend`). */
  products?: string[];
}

interface Store {
  products: FakeProduct[];
  pages: { title: string; content: string }[];
}

const dir = new URL("./recommendations/", import.meta.url);

function product(id: string, title: string, more: Partial<FakeProduct> = {}): FakeProduct {
  return {
    id,
    title,
    description: `${title}, made to last.`,
    handle: title.toLowerCase().replace(/\W+/g, "-"),
    price: "10.00",
    currencyCode: "EUR",
    imageUrl: `https://cdn.example.com/${id}.jpg`,
    tracksInventory: true,
    totalInventory: 5,
    variantId: `${id}01`,
    ...more,
  };
}

/** The store of tests/widget/recommendations_test.ts, which the rule was written against. */
function tuningStore(): { store: Store; questions: RuleQuestion[] } {
  const products = Array.from(
    { length: 100 },
    (_, i) => product(String(1000 + i), `Desk lamp ${i}`),
  );
  products.push(
    product("7001", "Waterproof Hiking Boots Trail", {
      description: "Our best waterproof hiking boots, sold out until spring.",
      price: "149.00",
      totalInventory: 0,
    }),
    product("7002", "Summit Hiking Boots", {
      description: "Waterproof leather boots for long hikes.",
      price: "129.90",
    }),
    product("7003", "Ridge Hiking Boots", {
      description: "Light boots for day hikes.",
      price: "99",
    }),
  );
  const seeded = standardSeed().workspaces[0]!.chatbots![0]! as {
    knowledge: { title: string; content?: string; question?: string; answer?: string }[];
  };
  return {
    store: {
      products,
      pages: seeded.knowledge.map((k) => ({
        title: k.title,
        content: k.content ?? `${k.question}\n${k.answer}`,
      })),
    },
    questions: [
      {
        category: "plain",
        q: "Do you have waterproof hiking boots?",
        recommend: true,
        products: ["7001", "7002", "7003"],
      },
      { category: "inflection", q: "How do I return my hiking boots?", recommend: false },
      { category: "plain", q: "How do I return my order?", recommend: false },
    ],
  };
}

async function storeFromFiles(
  storeFile: string,
  questionsFile: string,
): Promise<{ store: Store; questions: RuleQuestion[] }> {
  const raw = JSON.parse(await Deno.readTextFile(new URL(storeFile, dir)));
  const questions = JSON.parse(
    await Deno.readTextFile(new URL(questionsFile, dir)),
  ).questions as RuleQuestion[];
  return {
    store: {
      products: (raw.products as {
        id: string;
        title: string;
        description: string;
        price: string;
        inventory: number;
      }[])
        .map((p) =>
          product(p.id, p.title, {
            description: p.description,
            price: p.price,
            totalInventory: p.inventory,
          })
        ),
      pages: raw.pages,
    },
    questions,
  };
}

interface Outcome {
  name: string;
  role: "tuning" | "judging";
  right: Record<Category, number>;
  total: Record<Category, number>;
  /** Product questions with products shown, and with an expected one among them. */
  shown: number;
  rightProduct: number;
  shouldShow: number;
  /** Support questions that got products. */
  falseShown: number;
  shouldNot: number;
  missed: string[];
}

interface RuleSet {
  name: string;
  role: Outcome["role"];
  store: Store;
  questions: RuleQuestion[];
}

async function measure(sets: RuleSet[]): Promise<{ db: string; outcomes: Outcome[] }> {
  const ai = startFakeAi({ reply: "ok" });
  const shopify = startFakeShopify();
  const seed = standardSeed();
  const keys = sets.map((_, i) => `rule-set-${i}`);
  // One workspace per store (a catalogue is per workspace): Acme, Globex, then new ones.
  const workspaces = sets.map((_, i) => {
    if (i < 2) return seed.workspaces[i]!;
    const ws = { name: `Rule ${i}`, slug: `rule-${i}`, chatbots: [] as unknown[] };
    (seed.workspaces as unknown[]).push(ws);
    return ws as unknown as typeof seed.workspaces[0];
  });
  sets.forEach((set, i) => {
    const ws = workspaces[i]!;
    ws.plan = "unlimited";
    const token = i === 0 ? shopify.accessToken : `shpat_rule_judging_${i}`;
    if (i === 0) shopify.products.push(...set.store.products);
    else shopify.otherStores[token] = set.store.products;
    Object.assign(ws, {
      integrations: { storefront: { shop: `store-${i}.myshopify.com`, access_token: token } },
    });
    (ws.chatbots as unknown[]).push({
      name: `Rule ${set.name}`,
      public_key: keys[i],
      provider: "provider_1",
      model: "gpt-4o-mini",
      knowledge: set.store.pages.map((p) => ({ type: "text", ...p })),
    });
  });
  const s = await startTestServer({
    seed,
    env: {
      AI_BASE_URL: ai.baseUrl,
      SHOPIFY_BASE_URL: shopify.baseUrl,
      CONTEXT_ALLOW_HOSTS: shopify.hostPort,
      LOG_LEVEL: "error",
    },
  });
  try {
    for (let i = 0; i < 600; i++) {
      const [row] = await s.deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM catalogue_syncs WHERE status = 'ready'`;
      if (row!.n >= sets.length) break;
      if (i === 599) throw new Error("the catalogues were not synced");
      await new Promise((r) => setTimeout(r, 100));
    }
    const outcomes: Outcome[] = [];
    for (const [i, set] of sets.entries()) {
      const [bot] = await s.deps.sql<ChatbotRow[]>`
        SELECT * FROM chatbots WHERE public_key = ${keys[i]!}`;
      const zero = () => ({ plain: 0, inflection: 0, misspelling: 0, synonym: 0 });
      const o: Outcome = {
        name: set.name,
        role: set.role,
        right: zero(),
        total: zero(),
        shown: 0,
        rightProduct: 0,
        shouldShow: 0,
        falseShown: 0,
        shouldNot: 0,
        missed: [],
      };
      for (const q of set.questions) {
        const shown = await recommendProducts(s.deps, {
          workspaceId: bot!.workspace_id,
          bot: bot!,
          query: q.q,
          provider: openProviderClient(s.deps, bot!.workspace_id, bot!.provider),
        });
        const ids = shown.map((p) => p.id.replace("gid://shopify/Product/", ""));
        o.total[q.category]++;
        const right = q.recommend === shown.length > 0;
        if (right) o.right[q.category]++;
        else o.missed.push(`${q.q} (${shown.length ? "shown" : "none"})`);
        if (q.recommend) {
          o.shouldShow++;
          if (shown.length) o.shown++;
          if (ids.some((id) => q.products?.includes(id))) o.rightProduct++;
        } else {
          o.shouldNot++;
          if (shown.length) o.falseShown++;
        }
      }
      outcomes.push(o);
    }
    return { db: s.deps.db.embedded ? "embedded PGlite + vectors" : "PostgreSQL", outcomes };
  } finally {
    await s.stop();
    await shopify.close();
    await ai.close();
  }
}

function report(db: string, outcomes: Outcome[]): string[] {
  const sum = (r: Record<Category, number>) => CATEGORIES.reduce((n, c) => n + r[c], 0);
  const pctOf = (a: number, b: number) => (b ? `${a}/${b} (${Math.round((a / b) * 100)}%)` : "–");
  return outcomes.map((o) =>
    `| ${db} | ${o.role === "judging" ? `**judging: ${o.name}**` : `tuning: ${o.name}`} | ${
      CATEGORIES.map((c) => o.total[c] ? `${o.right[c]}/${o.total[c]}` : "–").join(" / ")
    } | **${pctOf(sum(o.right), sum(o.total))}** | ${pctOf(o.shown, o.shouldShow)} | ${
      pctOf(o.rightProduct, o.shouldShow)
    } | ${pctOf(o.falseShown, o.shouldNot)} |`
  );
}

export async function run(): Promise<string> {
  const sets: RuleSet[] = [
    { name: "the test's store", role: "tuning", ...tuningStore() },
    {
      name: "kitchen shop",
      role: "tuning",
      ...await storeFromFiles("copper_kettle_store.json", "reactive_tuning_questions.json"),
    },
    {
      name: "outdoor shop",
      role: "judging",
      ...await storeFromFiles("northwind_store.json", "reactive_fresh_questions.json"),
    },
  ];
  // BENCH_RULE_SETS=tuning while tuning: the judging set is run once per change judged.
  const only = Deno.env.get("BENCH_RULE_SETS");
  if (only) sets.splice(0, sets.length, ...sets.filter((s) => s.role === only));
  const runs = [await withDatabase(null, () => measure(sets))];
  const real = await realPostgresUrl();
  if (real) runs.push(await withDatabase(real, () => measure(sets)));
  const lines = [
    "## recommend_mode reactive: products shown when, and only when, asked for",
    "",
    "Decision right by category (plain / inflection / misspelling / other words), all, and for the",
    "product questions: products shown, and one of the expected products among them; for the support",
    "questions: products shown anyway.",
    "",
    "| Backend | Set | by category | right decision | product questions shown | right product shown | support questions shown |",
    "|---|---|---|---|---|---|---|",
    ...runs.flatMap((r) => report(r.db, r.outcomes)),
  ];
  if (!real) lines.push("", "PostgreSQL: none answered; embedded figures only.");
  for (const r of runs) {
    for (const o of r.outcomes) {
      if (o.role === "tuning" && o.missed.length) {
        lines.push("", `Tuning misses (${o.name}) on ${r.db}: ${o.missed.join("; ")}`);
      }
    }
  }
  return lines.join("\n");
}

if (import.meta.main) console.log(await run());
