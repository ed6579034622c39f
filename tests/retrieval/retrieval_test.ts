/**
 * Retrieval, black-box: small documents written for each mechanism are
 * trained through POST /api/v1/chatbots/{key}/knowledge, a question is asked
 * through POST /api/v1/chatbots/{key}/messages, and the prompt the fake
 * provider received shows what reached the model. Each step fails with the
 * previous retrieval (tiers of all/any-two/any-one words ranked by cover
 * density, nearest heading only, top six by reciprocal rank fusion).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { fakeEmbedding, startFakeAi } from "../helpers/fake_ai.ts";

const BOTS = [
  "rare-words",
  "typos-bot",
  "headings",
  "code-sample",
  "thesaurus",
  "crowding",
  "vec-stub",
  "vec-sharp",
  "passages",
];
const FULL_TEXT_ONLY = ["typos-bot", "code-sample", "thesaurus", "passages"];

function seed() {
  const s = standardSeed();
  s.workspaces[0]!.plan = "unlimited";
  for (const key of BOTS) {
    (s.workspaces[0]!.chatbots as unknown[]).push({
      name: `Bot ${key}`,
      public_key: key,
      ...(FULL_TEXT_ONLY.includes(key)
        ? { provider: "provider_5", model: "llama-3.1-8b-instant" }
        : { provider: "provider_1", model: "gpt-4o-mini" }),
    });
  }
  // A provider without embeddings: its bots show what full-text alone finds.
  (s.workspaces[0]!.provider_keys as unknown[]).push({
    provider: "provider_5",
    api_key: "gsk-acme-test-key-5678",
  });
  return s;
}

/** A unit vector along one of the stub's 64 dimensions: texts on different axes are unrelated. */
function axis(i: number): number[] {
  const v = new Array(64).fill(0);
  v[i] = 1;
  return v;
}

Deno.test("retrieval: what reaches the prompt", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "ok" });
  const s = await startTestServer({ seed: seed(), env: { AI_BASE_URL: fake.baseUrl } });
  const train = async (key: string, title: string, content: string) => {
    const r = await http(s.url, "POST", `/api/v1/chatbots/${key}/knowledge`, {
      token: T.acme.owner.api,
      body: { title, content },
    });
    assertEquals(r.status, 201, r.text);
  };
  let visitor = 0;
  /** The KNOWLEDGE block of the prompt the question produced. */
  const ask = async (key: string, message: string): Promise<string> => {
    const before = fake.requests.length;
    const r = await http(s.url, "POST", `/api/v1/chatbots/${key}/messages`, {
      token: T.acme.owner.api,
      body: { message, visitor_id: `retrieval-${visitor++}` },
    });
    assertEquals(r.status, 200, r.text);
    assertEquals(fake.requests.length, before + 1);
    const system = fake.requests.at(-1)!.messages[0]!.content;
    return system.slice(system.indexOf("KNOWLEDGE\n"));
  };
  try {
    await t.step("a rare word of the question beats several common ones", async () => {
      const sections = Array.from(
        { length: 8 },
        (_, i) =>
          `## Changing your plan, case ${i + 1}\n\nWhat happens to your account when you change ` +
          `your plan: the change applies to the account at once, and what happens next depends ` +
          `on the plan (case ${i + 1}).`,
      );
      await train("rare-words", "Plans and accounts", sections.join("\n\n"));
      await train(
        "rare-words",
        "Mistakes",
        "## Undo\n\nIf you accidentally removed something, open the bin and restore it.",
      );
      const knowledge = await ask(
        "rare-words",
        "What happens to my account if I accidentally change my plan?",
      );
      const rare = knowledge.indexOf("If you accidentally removed something");
      assertOk(rare >= 0, `the passage with the rare word is missing:\n${knowledge}`);
      assertOk(
        rare < knowledge.indexOf("Changing your plan"),
        `the rare word's passage should come first:\n${knowledge}`,
      );
    });

    await t.step("a misspelled word still finds its passage", async () => {
      await train(
        "typos-bot",
        "Passkeys",
        "## Passkey gone\n\nIf your passkey is gone, sign in with the recovery key and " +
          "register a new passkey.",
      );
      await train("typos-bot", "Alerts", "## Alerts\n\nTurn alerts on in the settings.");
      const knowledge = await ask("typos-bot", "my paskey is missing");
      assertOk(
        knowledge.includes("sign in with the recovery key and register a new passkey"),
        knowledge,
      );
      assertOk(!knowledge.includes("Turn alerts on"), "an unrelated passage came along");
    });

    await t.step("the document title and the whole heading path reach the prompt", async () => {
      await train(
        "headings",
        "Photo albums",
        [
          "# Photo albums",
          "Albums group photos.",
          "## Rename an album",
          "Renaming keeps the photos inside.",
          "### On mobile",
          "Tap the three dots and choose a new name.",
          "### On the web",
          "Click the three dots and type a new name.",
          "## Share an album",
          "### On mobile",
          "Tap share and pick a contact.",
        ].join("\n\n"),
      );
      const knowledge = await ask("headings", "how do I rename an album on mobile?");
      // One passage in reading order: the document's title opens it, and each
      // chunk's heading path stands right above its text.
      assertOk(knowledge.includes("[1] Photo albums\n"), knowledge);
      assertOk(
        knowledge.includes(
          "Rename an album › On mobile\nTap the three dots and choose a new name.",
        ),
        knowledge,
      );
      assertOk(
        knowledge.indexOf("Rename an album › On mobile") < knowledge.indexOf("Share an album"),
        "the renaming passage comes before the sharing one",
      );
    });

    await t.step("the section after the one that matched comes along, in one passage", async () => {
      // The answer ("45 days") shares no word with the question: only its place
      // in the text, right after the section that matched, brings it.
      await train(
        "passages",
        "Leaving us",
        [
          "## Close your account",
          "Open Settings, choose Account, then Close account.",
          "## Afterwards",
          "Your photos stay downloadable for 45 days, then they are erased for good.",
        ].join("\n\n"),
      );
      await train(
        "passages",
        "Sharing",
        "## Shared albums\n\nAnyone with an account can join a shared album from its link.",
      );
      const knowledge = await ask("passages", "how do I close my account?");
      assertOk(
        knowledge.includes(
          "[1] Leaving us — Close your account\nOpen Settings, choose Account, then Close account." +
            "\nAfterwards\nYour photos stay downloadable for 45 days",
        ),
        `the section after the matched one is missing or apart:\n${knowledge}`,
      );
    });

    await t.step("a code sample with HTML tags does not hide the words around it", async () => {
      // PostgreSQL's parser skips anything shaped like a tag; with the closing
      // tag's '/' read as a space it used to swallow the rest of the chunk.
      await train(
        "code-sample",
        "Embedding",
        [
          "## Embedding the chat",
          '```html\n<script src="/widget.js" data-key="abc" defer></script>\n```',
          "- Your own buttons can open the chat with `window.Chat.open()`.",
          "- Size: about 10 KB gzipped.",
        ].join("\n\n"),
      );
      await train("code-sample", "Billing", "## Billing\n\nInvoices are sent monthly.");
      for (const question of ["how big is widget.js", "can my own button open the chat?"]) {
        const knowledge = await ask("code-sample", question);
        assertOk(knowledge.includes("about 10 KB gzipped"), `${question}: ${knowledge}`);
      }
    });

    await t.step("a word the knowledge never uses is searched by its related words", async () => {
      await train(
        "thesaurus",
        "Upload speed",
        "## Upload speed\n\nUploads run as fast as allowed.",
      );
      await train("thesaurus", "Upload size", "## Upload size\n\nEach upload may be up to 2 GB.");
      await train("thesaurus", "Spam", "## Spam\n\nMessages marked as spam are hidden.");
      await train(
        "thesaurus",
        "Search",
        "## Search\n\nSearch understands queries in many languages.",
      );
      // "big" is nowhere in the knowledge; WordNet says it is a size.
      const big = await ask("thesaurus", "how big can an upload be?");
      assertOk(big.indexOf("up to 2 GB") >= 0, big);
      assertOk(big.indexOf("up to 2 GB") < big.indexOf("as fast as allowed"), big);
      // "spanish" is a language, and a correctly spelled word: never "corrected" into "spam".
      const spanish = await ask("thesaurus", "can I search in spanish?");
      assertOk(spanish.includes("queries in many languages"), spanish);
      assertOk(!spanish.includes("marked as spam"), spanish);
    });

    await t.step("one source cannot crowd out another", async () => {
      const filler =
        "Pick the folder, keep the app open, and wait until the progress bar is full. ";
      const sections = Array.from(
        { length: 20 },
        (_, i) =>
          `## Export step ${i + 1}\n\nExport photos: export photos, then export photos again. ` +
          filler.repeat(9),
      );
      await train("crowding", "Export guide", sections.join("\n\n"));
      await train(
        "crowding",
        "Archive tool",
        "## Archive tool\n\nThe archive tool bundles albums into one file for your records; " +
          `${filler.repeat(4)}It can also export the selected photos as a zip file.`,
      );
      const knowledge = await ask("crowding", "how do I export photos?");
      assertOk(knowledge.includes("Export guide — Export step"), knowledge);
      assertOk(
        knowledge.includes("It can also export the selected photos as a zip file."),
        `the second source was crowded out:\n${knowledge}`,
      );
    });

    // Decoys: text of the question's stop words, which full-text ignores but
    // word-hash embeddings find very similar to the question.
    const decoys = Array.from(
      { length: 30 },
      (_, i) => `## Note ${i + 1}\n\nHow do I do it on my own, and how do I know? I do it my way.`,
    ).join("\n\n");
    const kiosk = Array.from(
      { length: 8 },
      (_, i) =>
        `## Kiosk ${i + 1}\n\nTo reset the kiosk passphrase at station ${i + 1}, hold button ` +
        `${String.fromCharCode(65 + i)} for ${i + 3} seconds. Staff badges, printed receipts, ` +
        "spare paper rolls, coin trays and cleaning cloths are kept in the drawer below it.",
    ).join("\n\n");
    const question = "How do I reset my kiosk passphrase on the station?";
    const allKioskPassages = (knowledge: string) => {
      for (let i = 1; i <= 8; i++) {
        assertOk(
          knowledge.includes(`passphrase at station ${i},`),
          `station ${i}'s passage was pushed out:\n${knowledge}`,
        );
      }
    };

    await t.step("the stub's hash embeddings do not push out full-text matches", async () => {
      if (!s.deps.db.vector) return; // no pgvector on this server: full-text alone, covered above
      await train("vec-stub", "Kiosk manual", kiosk);
      await train("vec-stub", "Notes", decoys);
      allKioskPassages(await ask("vec-stub", question));
    });

    await t.step(
      "with well-separated embeddings, a bad vector ranking does not remove a full-text hit, and a good one adds what shares no word",
      async () => {
        if (!s.deps.db.vector) return;
        // The question sits with the decoys; the kiosk passages are unrelated
        // to it by vector; refunds and "money back" share an axis and no word.
        fake.embed = (text) =>
          /refund|money back/i.test(text)
            ? axis(2)
            : /kiosk passphrase at/i.test(text)
            ? axis(0)
            : axis(1);
        try {
          await train("vec-sharp", "Kiosk manual", kiosk);
          await train("vec-sharp", "Notes", decoys);
          await train("vec-sharp", "Refunds", "## Refunds\n\nRefunds are paid within 14 days.");
          allKioskPassages(await ask("vec-sharp", question));
          const knowledge = await ask("vec-sharp", "can I get my money back?");
          assertOk(knowledge.includes("Refunds are paid within 14 days."), knowledge);
        } finally {
          fake.embed = fakeEmbedding;
        }
      },
    );
  } finally {
    await s.stop();
    await fake.close();
  }
});
