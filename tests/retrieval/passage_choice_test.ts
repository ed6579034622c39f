/**
 * Passage choice within a page (issue 42), black-box: documents are trained
 * through POST /api/v1/chatbots/{key}/knowledge, a question is asked through
 * POST /api/v1/chatbots/{key}/messages, and the prompt the fake provider
 * received shows what reached the model. The bot's provider has no embeddings,
 * so full-text alone decides, the same on both backends.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";

function seed() {
  const s = standardSeed();
  s.workspaces[0]!.plan = "unlimited";
  (s.workspaces[0]!.chatbots as unknown[]).push({
    name: "Bot later-passage",
    public_key: "later-passage",
    provider: "provider_5",
    model: "llama-3.1-8b-instant",
  });
  (s.workspaces[0]!.provider_keys as unknown[]).push({
    provider: "provider_5",
    api_key: "gsk-acme-test-key-5678",
  });
  return s;
}

/** About 900 characters that share no word with the question. */
const FILLER = "Keep the app open and wait until the progress bar is full before you go on. "
  .repeat(12);

Deno.test("retrieval: the later passage of a page that answers", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "ok" });
  const s = await startTestServer({ seed: seed(), env: { AI_BASE_URL: fake.baseUrl } });
  const train = async (title: string, content: string) => {
    const r = await http(s.url, "POST", "/api/v1/chatbots/later-passage/knowledge", {
      token: T.acme.owner.api,
      body: { title, content },
    });
    assertEquals(r.status, 201, r.text);
  };
  const ask = async (message: string): Promise<string> => {
    const before = fake.requests.length;
    const r = await http(s.url, "POST", "/api/v1/chatbots/later-passage/messages", {
      token: T.acme.owner.api,
      body: { message, visitor_id: `passage-${before}` },
    });
    assertEquals(r.status, 200, r.text);
    const system = fake.requests.at(-1)!.messages[0]!.content;
    return system.slice(system.indexOf("KNOWLEDGE\n"));
  };
  try {
    await t.step(
      "the section after the best match beats weak matches on other pages",
      async () => {
        // The section that names the question's words, then the one that
        // answers (under its own heading, sharing none of them).
        await train(
          "Leaving us",
          [
            "## Cancel your membership",
            "To cancel your membership, open Settings and choose Membership.",
            "## After you leave",
            "Your photos stay downloadable for 45 days; then they are erased. Invoices stay in " +
            "the billing page for seven years, and a receipt of the closing goes to your email " +
            "address on the same day. Shared albums you joined stay with their owners. " +
            "Printed books you ordered are still delivered, and gift cards keep their value. "
              .repeat(6),
          ].join("\n\n"),
        );
        // Twelve other pages sharing the question's commoner word, each about
        // as long as a chunk (together more than the prompt's knowledge
        // budget), and thirty that share none (a base of some size, where a
        // word in twelve pages is not rare).
        for (let i = 1; i <= 12; i++) {
          await train(`Membership note ${i}`, `## Membership ${i}\n\n${FILLER}`);
        }
        for (let i = 1; i <= 30; i++) {
          await train(`Topic ${i}`, `## Topic ${i}\n\nNothing to see on page ${i}.`);
        }
        const knowledge = await ask(
          "how do I cancel my gold membership before the yearly renewal?",
        );
        assertOk(
          knowledge.includes("To cancel your membership, open Settings"),
          `the matching part is missing:\n${knowledge}`,
        );
        assertOk(
          knowledge.includes("photos stay downloadable for 45 days"),
          `the part that answers, right after the match, did not reach the prompt:\n${knowledge}`,
        );
      },
    );
  } finally {
    await s.stop();
    await fake.close();
  }
});
