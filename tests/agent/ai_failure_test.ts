/**
 * A conversation the AI could not answer (no model configured, the provider
 * down) is not left looking like any AI conversation: it waits for a human,
 * in Waiting with the reason, logged as `ai_failed`, for the widget's
 * visitors and the integration API's alike; handing it back to the AI clears
 * the reason, and a visitor's own request reads as that.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

Deno.test("a conversation the AI failed waits for a human", serverTestOptions, async (t) => {
  // No AI_BASE_URL and no key: the bots have no model at all.
  const s = await startTestServer({ seed: standardSeed(), env: { ...WIDGET_ENV } });
  const token = T.acme.agent.agent;
  const inbox = async (filter: string) =>
    (await http(s.url, "GET", `/api/agent/inbox?filter=${filter}`, { token })).body;
  try {
    let widgetConversation = "";
    await t.step("widget: the visitor sees an error; agents see it waiting, with why", async () => {
      const r = await postStream(s.url, "acme-helper", { visitor_id: "v_fail", message: "Help?" });
      assertEquals(r.events.at(-1)!.event, "error");
      widgetConversation = r.events[0]!.data.conversation_id as string;
      let row: Record<string, unknown> | undefined;
      for (let i = 0; i < 50 && !row; i++) {
        row = (await inbox("waiting")).conversations.find((c: { id: string }) =>
          c.id === widgetConversation
        );
        if (!row) await new Promise((ok) => setTimeout(ok, 100));
      }
      assertOk(row, "in Waiting");
      assertEquals([row.group, row.handoff_state, row.escalated], [
        "waiting",
        "handoff_pending",
        true,
      ]);
      assertMatch(String(row.waiting_reason), /^The AI could not answer: /);
      const view = await http(s.url, "GET", `/api/agent/conversations/${widgetConversation}`, {
        token,
      });
      assertEquals(view.body.active.waiting_reason, row.waiting_reason);
      assertOk(
        view.body.active.events.some((e: { type: string; source: string }) =>
          e.type === "ai_failed" && e.source === "ai"
        ),
        JSON.stringify(view.body.active.events),
      );
    });

    await t.step("integration API: the 502's conversation waits too", async () => {
      const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
        token: T.acme.owner.api,
        body: { message: "Anyone?", visitor_id: "v_fail_api" },
      });
      assertEquals(r.status, 502);
      const row = (await inbox("waiting")).conversations.find((c: { id: string }) =>
        c.id === r.body.conversation_id
      );
      assertMatch(String(row?.waiting_reason), /^The AI could not answer: /);
    });

    await t.step("handed back to the AI, the reason is gone", async () => {
      const taken = await http(
        s.url,
        "POST",
        `/api/agent/conversations/${widgetConversation}/takeover`,
        { token },
      );
      assertEquals(taken.status, 200);
      const released = await http(
        s.url,
        "POST",
        `/api/agent/conversations/${widgetConversation}/release`,
        { token },
      );
      assertEquals(released.status, 200);
      const view = await http(s.url, "GET", `/api/agent/conversations/${widgetConversation}`, {
        token,
      });
      assertEquals([view.body.active.group, view.body.active.waiting_reason], ["ai", null]);
      // A visitor's own request for a person reads as such.
      const asked = await http(s.url, "POST", "/widget/acme-helper/handoff", {
        headers: freshIp(),
        body: { visitor_id: "v_fail", conversation_id: widgetConversation },
      });
      assertEquals(asked.status, 200);
      const row = (await inbox("waiting")).conversations.find((c: { id: string }) =>
        c.id === widgetConversation
      );
      assertEquals(row?.waiting_reason, "The visitor asked for a person.");
    });
  } finally {
    await s.stop();
  }
});
