/**
 * Correcting an AI reply (agent API and dashboard): the right answer is saved
 * as a Q&A source of the bot, indexed before the answer returns (the server
 * runs no background workers here, so no job could do it later), and the next
 * visitor's prompt carries it, for the same question and for a reworded one,
 * ahead of the bot's misleading text. Listing, editing, deleting through the
 * source, the audit log, the try-it flag, roles, 404 for another workspace's
 * conversation, 422 naming the field.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { type ChatRequestRecord, startFakeAi } from "../helpers/fake_ai.ts";
import { T } from "../helpers/fixtures.ts";
import { parseSse, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

const WRONG = "Express shipping costs 15 euros.";
const RIGHT = "Express shipping costs 25 euros since March, and it arrives the next day.";
const ai = startFakeAi({ reply: WRONG });
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { ...WIDGET_ENV, AI_BASE_URL: ai.baseUrl, WORKER_CONCURRENCY: "0" },
});

/** What the fake provider was sent for the visitor's latest question (the stream's prompt). */
function lastPrompt(): string {
  const chat = ai.requests.filter((r: ChatRequestRecord) => r.stream);
  return chat.at(-1)!.messages.map((m) => m.content).join("\n");
}

/** A visitor asks; returns the conversation id and the AI reply's message id. */
async function visitorAsks(visitorId: string, message: string) {
  const r = await postStream(s.url, "acme-helper", { visitor_id: visitorId, message });
  assertEquals(r.status, 200, r.text);
  const conversation: string = r.events.find((e) => e.event === "meta")!.data.conversation_id;
  const open = await http(s.url, "GET", `/api/agent/conversations/${conversation}`, {
    token: T.acme.agent.agent,
  });
  const messages = open.body.active.messages as { id: number; role: string }[];
  return {
    conversation,
    visitorMessage: messages.find((m) => m.role === "visitor")!.id,
    aiMessage: messages.findLast((m) => m.role === "assistant")!.id,
  };
}

const correctionPath = (surface: string, conversation: string, message: number) =>
  `/api/${surface}/conversations/${conversation}/messages/${message}/correction`;

Deno.test("corrections of AI replies", serverTestOptions, async (t) => {
  let sourceId = 0;
  let correctionId = 0;
  let first: Awaited<ReturnType<typeof visitorAsks>>;
  let giftConversation = "";

  await t.step("the bot first answers from its misleading text", async () => {
    first = await visitorAsks("v_corr_1", "How much does express shipping cost?");
    assertOk(lastPrompt().includes("costs 15 euros"), "the old passage is in the prompt");
    assertOk(!lastPrompt().includes("25 euros"));
  });

  await t.step("validation is a 422 naming the field; a visitor message is refused", async () => {
    const blank = await http(
      s.url,
      "POST",
      correctionPath("agent", first.conversation, first.aiMessage),
      {
        token: T.acme.agent.agent,
        body: { answer: "   " },
      },
    );
    assertEquals(blank.status, 422);
    assertOk(blank.body.errors.answer, JSON.stringify(blank.body));
    const missing = await http(
      s.url,
      "POST",
      correctionPath("agent", first.conversation, first.aiMessage),
      {
        token: T.acme.agent.agent,
        body: {},
      },
    );
    assertEquals(missing.status, 422);
    assertOk(missing.body.errors.answer, JSON.stringify(missing.body));
    const long = await http(
      s.url,
      "POST",
      correctionPath("agent", first.conversation, first.aiMessage),
      {
        token: T.acme.agent.agent,
        body: { question: "q".repeat(2001), answer: RIGHT },
      },
    );
    assertEquals(long.status, 422);
    assertOk(long.body.errors.question, JSON.stringify(long.body));
    const visitor = await http(
      s.url,
      "POST",
      correctionPath("agent", first.conversation, first.visitorMessage),
      { token: T.acme.agent.agent, body: { answer: RIGHT } },
    );
    assertEquals(visitor.status, 422);
    assertOk(visitor.body.errors.message, JSON.stringify(visitor.body));
  });

  await t.step("another workspace's conversation or message is 404", async () => {
    const foreign = await http(
      s.url,
      "POST",
      correctionPath("agent", first.conversation, first.aiMessage),
      {
        token: T.globex.owner.agent,
        body: { answer: RIGHT },
      },
    );
    assertEquals(foreign.status, 404);
    const dashForeign = await http(
      s.url,
      "POST",
      correctionPath("dashboard", first.conversation, first.aiMessage),
      { token: D.globex.owner, body: { answer: RIGHT } },
    );
    assertEquals(dashForeign.status, 404);
    const noSuchMessage = await http(
      s.url,
      "POST",
      correctionPath("agent", first.conversation, 999999),
      {
        token: T.acme.agent.agent,
        body: { answer: RIGHT },
      },
    );
    assertEquals(noSuchMessage.status, 404);
  });

  await t.step("an agent corrects the reply: a Q&A source, ready at once", async () => {
    const r = await http(
      s.url,
      "POST",
      correctionPath("agent", first.conversation, first.aiMessage),
      {
        token: T.acme.agent.agent,
        body: { answer: RIGHT },
      },
    );
    assertEquals(r.status, 201, JSON.stringify(r.body));
    const c = r.body.data;
    assertEquals(c.question, "How much does express shipping cost?"); // the visitor's words
    assertEquals(c.answer, RIGHT);
    assertEquals(c.status, "ready");
    assertEquals(c.chunk_count, 1);
    assertEquals(c.conversation_id, first.conversation);
    assertEquals(c.message_id, first.aiMessage);
    sourceId = c.source_id;
    correctionId = c.id;
    const sources = await http(s.url, "GET", "/api/dashboard/chatbots/acme-helper/knowledge", {
      token: D.acme.owner,
    });
    const source = sources.body.data.find((x: { id: number }) => x.id === sourceId);
    assertEquals(source?.type, "qa");
    assertEquals(source?.status, "ready");
  });

  await t.step("the next visitor asking the same question is answered from it", async () => {
    await visitorAsks("v_corr_2", "How much does express shipping cost?");
    const prompt = lastPrompt();
    assertOk(prompt.includes(RIGHT), prompt);
    // The correction comes before the old wrong passage (best first).
    const old = prompt.indexOf("costs 15 euros");
    assertOk(old !== -1 && prompt.indexOf(RIGHT) < old, prompt);
  });

  await t.step("a reworded question is answered from it too", async () => {
    await visitorAsks("v_corr_3", "What is the price for an express delivery?");
    const prompt = lastPrompt();
    assertOk(prompt.includes(RIGHT), prompt);
    const old = prompt.indexOf("costs 15 euros");
    assertOk(old === -1 || prompt.indexOf(RIGHT) < old, prompt);
  });

  await t.step("the dashboard lists the bot's corrections; viewers read them", async () => {
    const r = await http(s.url, "GET", "/api/dashboard/chatbots/acme-helper/corrections", {
      token: D.acme.viewer,
    });
    assertEquals(r.status, 200);
    assertEquals(r.body.data.length, 1);
    assertEquals(r.body.data[0].id, correctionId);
    assertEquals(r.body.data[0].corrected_by.length > 0, true);
    assertEquals(r.body.data[0].conversation_id, first.conversation);
    const foreign = await http(s.url, "GET", "/api/dashboard/chatbots/acme-helper/corrections", {
      token: D.globex.owner,
    });
    assertEquals(foreign.status, 404);
  });

  await t.step("the audit log records the correction", async () => {
    const r = await http(s.url, "GET", "/api/dashboard/audit-log?action=knowledge.corrected", {
      token: D.acme.owner,
    });
    assertEquals(r.status, 200, JSON.stringify(r.body));
    assertOk(JSON.stringify(r.body).includes(first.conversation), JSON.stringify(r.body));
  });

  await t.step("try-it flags a passage that came from a correction", async () => {
    const res = await fetch(`${s.url}/api/dashboard/chatbots/acme-helper/try`, {
      method: "POST",
      headers: {
        accept: "text/event-stream",
        "content-type": "application/json",
        authorization: `Bearer ${D.acme.owner}`,
      },
      body: JSON.stringify({ question: "How much does express shipping cost?" }),
    });
    const passages = parseSse(await res.text())[0]!.data.passages as {
      source_id: number;
      correction: boolean;
    }[];
    assertEquals(passages.find((p) => p.source_id === sourceId)?.correction, true);
    assertOk(passages.some((p) => p.source_id !== sourceId && p.correction === false));
  });

  await t.step("roles: a viewer and an agent cannot correct from the dashboard", async () => {
    for (const token of [D.acme.viewer, D.acme.agent]) {
      const r = await http(
        s.url,
        "POST",
        correctionPath("dashboard", first.conversation, first.aiMessage),
        {
          token,
          body: { answer: RIGHT },
        },
      );
      assertEquals(r.status, 403);
    }
    const viewerEdit = await http(
      s.url,
      "PATCH",
      `/api/dashboard/chatbots/acme-helper/corrections/${correctionId}`,
      { token: D.acme.viewer, body: { answer: "x" } },
    );
    assertEquals(viewerEdit.status, 403);
    // A viewer's agent token (made by a seed) reads the inbox but may not correct.
    const viewerAgent = await http(
      s.url,
      "POST",
      correctionPath("agent", first.conversation, first.aiMessage),
      { token: T.acme.viewer.agent, body: { answer: RIGHT } },
    );
    assertEquals(viewerAgent.status, 403);
    const emptyEdit = await http(
      s.url,
      "PATCH",
      `/api/dashboard/chatbots/acme-helper/corrections/${correctionId}`,
      { token: D.acme.owner, body: {} },
    );
    assertEquals(emptyEdit.status, 422);
    assertOk(emptyEdit.body.errors.answer, JSON.stringify(emptyEdit.body));
    const otherBot = await http(
      s.url,
      "PATCH",
      `/api/dashboard/chatbots/acme-sleeper/corrections/${correctionId}`,
      { token: D.acme.owner, body: { answer: "x" } },
    );
    assertEquals(otherBot.status, 404);
  });

  await t.step("an owner corrects from the history with an edited question", async () => {
    const other = await visitorAsks("v_corr_4", "Do you gift wrap parcels?");
    giftConversation = other.conversation;
    const r = await http(
      s.url,
      "POST",
      correctionPath("dashboard", other.conversation, other.aiMessage),
      {
        token: D.acme.owner,
        body: { question: "Can my order be gift wrapped?", answer: "Gift wrapping costs 3 euros." },
      },
    );
    assertEquals(r.status, 201, JSON.stringify(r.body));
    assertEquals(r.body.data.question, "Can my order be gift wrapped?");
    await visitorAsks("v_corr_5", "Is gift wrapping available?");
    assertOk(lastPrompt().includes("Gift wrapping costs 3 euros."), lastPrompt());
  });

  await t.step("editing a correction reindexes it at once", async () => {
    const NEWER = "Express shipping costs 30 euros from April.";
    const r = await http(
      s.url,
      "PATCH",
      `/api/dashboard/chatbots/acme-helper/corrections/${correctionId}`,
      { token: D.acme.owner, body: { answer: NEWER } },
    );
    assertEquals(r.status, 200, JSON.stringify(r.body));
    assertEquals(r.body.data.status, "ready");
    await visitorAsks("v_corr_6", "How much does express shipping cost?");
    assertOk(lastPrompt().includes(NEWER), lastPrompt());
    assertOk(!lastPrompt().includes(RIGHT));
  });

  await t.step("erasing the conversation erases the corrections made from it", async () => {
    const erase = await http(
      s.url,
      "POST",
      `/api/dashboard/conversations/${giftConversation}/erase`,
      {
        token: D.acme.owner,
      },
    );
    assertEquals(erase.status, 200, JSON.stringify(erase.body));
    assertEquals(erase.body.data.counts.corrections, 1);
    const list = await http(s.url, "GET", "/api/dashboard/chatbots/acme-helper/corrections", {
      token: D.acme.owner,
    });
    assertEquals(list.body.data.length, 1, JSON.stringify(list.body));
    await visitorAsks("v_corr_7", "Is gift wrapping available?");
    assertOk(!lastPrompt().includes("Gift wrapping costs 3 euros."), lastPrompt());
  });

  await t.step("deleting the source deletes the correction", async () => {
    const del = await http(
      s.url,
      "DELETE",
      `/api/dashboard/chatbots/acme-helper/knowledge/${sourceId}`,
      { token: D.acme.owner },
    );
    assertEquals(del.status, 200);
    const r = await http(s.url, "GET", "/api/dashboard/chatbots/acme-helper/corrections", {
      token: D.acme.owner,
    });
    assertEquals(r.body.data.some((c: { id: number }) => c.id === correctionId), false);
    await ai.close();
  });
});

Deno.test("stop the corrections test server", serverTestOptions, async () => {
  await s.stop();
});

Deno.test(
  "a correction whose indexing fails in the request is left to the indexing job (pgvector)",
  serverTestOptions,
  async () => {
    const failing = startFakeAi({ reply: WRONG });
    const server = await startTestServer({
      seed: dashboardSeed(),
      env: { ...WIDGET_ENV, AI_BASE_URL: failing.baseUrl, WORKER_CONCURRENCY: "1" },
    });
    try {
      const asked = await postStream(server.url, "acme-helper", {
        visitor_id: "v_corr_retry",
        message: "How much does express shipping cost?",
      });
      const conversation = asked.events.find((e) => e.event === "meta")!.data.conversation_id;
      const open = await http(server.url, "GET", `/api/agent/conversations/${conversation}`, {
        token: T.acme.agent.agent,
      });
      const aiMessage = (open.body.active.messages as { id: number; role: string }[])
        .findLast((m) => m.role === "assistant")!.id;
      failing.embeddingsMode = "server_error"; // the provider's embeddings are down
      const r = await http(
        server.url,
        "POST",
        correctionPath("agent", conversation, aiMessage),
        { token: T.acme.agent.agent, body: { answer: RIGHT } },
      );
      assertEquals(r.status, 201, JSON.stringify(r.body));
      // Without pgvector (some PostgreSQL servers) nothing is embedded: ready at once.
      assertEquals(r.body.data.status, server.deps.db.vector ? "pending" : "ready");
      failing.embeddingsMode = "ok";
      const end = Date.now() + 30_000;
      let status = "";
      while (Date.now() < end && status !== "ready") {
        const list = await http(
          server.url,
          "GET",
          "/api/dashboard/chatbots/acme-helper/corrections",
          { token: D.acme.owner },
        );
        status = list.body.data[0]?.status ?? "";
        if (status !== "ready") await new Promise((res) => setTimeout(res, 200));
      }
      assertEquals(status, "ready");
    } finally {
      await server.stop();
      await failing.close();
    }
  },
);
