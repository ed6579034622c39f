/**
 * Product recommendations on the visitor's path, in process (embedded
 * database, or PostgreSQL when DATABASE_URL is set): what deciding the products costs before the prompt can be built
 * (`recommendProducts`), for a bot whose workspace has no catalogue (the first
 * search, then the remembered absence), with `recommend_mode: off`, and over
 * a catalogue of 2,000 products (full-text; the vector leg adds one query
 * embedding, made beside retrieval's own).
 */
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed } from "../tests/helpers/fixtures.ts";
import { replaceCatalogue, setCatalogueSync } from "../db/catalogue.ts";
import { recommendProducts } from "../domain/catalogue/recommend_products.ts";
import { forgetNoCatalogue } from "../domain/catalogue/catalogue_presence.ts";
import { percentile } from "./support.ts";

const PRODUCTS = 2000;
const ROUNDS = 200;
const QUESTIONS = [
  "Do you have waterproof hiking boots?",
  "How much is the leather travel bag?",
  "Which running shoes are in stock in size 42?",
  "How do I return my order?",
  "Is the wool winter jacket available?",
];
const NOUNS = ["boots", "bag", "shoes", "jacket", "lamp", "mug", "scarf", "tent", "watch", "belt"];
const ADJECTIVES = ["waterproof", "leather", "wool", "running", "travel", "winter", "light"];

export async function run(): Promise<string> {
  const s = await startTestServer({ seed: standardSeed(), env: { WORKER_CONCURRENCY: "0" } });
  try {
    const [acme] = await s.deps.sql<
      { id: number }[]
    >`SELECT id FROM workspaces WHERE slug = 'acme'`;
    const [globex] = await s.deps.sql<
      { id: number }[]
    >`SELECT id FROM workspaces WHERE slug = 'globex'`;
    const [bot] = await s.deps.sql<
      { id: number; language: string; provider: string; branding: Record<string, unknown> }[]
    >`SELECT id, language, provider, branding FROM chatbots WHERE public_key = 'acme-helper'`;
    await replaceCatalogue(
      s.deps.sql,
      acme!.id,
      { language: "english" },
      Array.from({ length: PRODUCTS }, (_, i) => {
        const name = `${ADJECTIVES[i % ADJECTIVES.length]} ${NOUNS[i % NOUNS.length]} ${i}`;
        return {
          product_id: `gid://shopify/Product/${i}`,
          name,
          description: `A ${name} made to last, in many sizes.`,
          price_minor: 1000 + i,
          currency: "EUR",
          url: `https://shop.example.com/products/${i}`,
          buy_url: `https://shop.example.com/cart/${i}:1`,
          image_url: null,
          in_stock: i % 3 !== 0,
          searchText: `A ${name} made to last, in many sizes.`,
        };
      }),
    );
    await setCatalogueSync(s.deps.sql, acme!.id, { status: "ready", products: PRODUCTS });
    const time = async (workspaceId: number, branding: Record<string, unknown>, fresh: boolean) => {
      const ms: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        if (fresh) forgetNoCatalogue(workspaceId);
        const t0 = performance.now();
        await recommendProducts(s.deps, {
          workspaceId,
          bot: { ...bot!, branding },
          query: QUESTIONS[i % QUESTIONS.length]!,
        });
        ms.push(performance.now() - t0);
      }
      return `${percentile(ms, 0.5).toFixed(3)} ms | ${percentile(ms, 0.95).toFixed(3)} ms`;
    };
    const rows = [
      ["`recommend_mode: off`", await time(acme!.id, { recommend_mode: "off" }, false)],
      ["no catalogue, absence remembered (30 s)", await time(globex!.id, {}, false)],
      ["no catalogue, searched every time", await time(globex!.id, {}, true)],
      [`${PRODUCTS.toLocaleString("en")} products, reactive`, await time(acme!.id, {}, false)],
    ];
    return [
      `## Product recommendations: deciding the products (${
        Deno.env.get("DATABASE_URL") ? "PostgreSQL" : "embedded PGlite"
      }, in process)`,
      "",
      `\`recommendProducts\` per question, ${ROUNDS} rounds over ${QUESTIONS.length} questions.`,
      "",
      "| Case | p50 | p95 |",
      "|---|---|---|",
      ...rows.map(([name, t]) => `| ${name} | ${t} |`),
    ].join("\n");
  } finally {
    await s.stop();
  }
}

if (import.meta.main) console.log(await run());
