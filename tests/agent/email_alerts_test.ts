/**
 * E-mail alerts through a small SMTP sink (tests/helpers/smtp_sink.ts): an
 * agent with `email_enabled` gets the alerts of a busy conversation gathered
 * into one mail per batch window, not one per message; agents without it get
 * none. Push is off on this server: e-mail works on its own.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startSmtpSink } from "../helpers/smtp_sink.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const KEY = "acme-helper";
const fake = startFakeAi({ reply: "Happy to help." });
const smtp = startSmtpSink();
const s = await startTestServer({
  seed: standardSeed(),
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: fake.baseUrl,
    VAPID_GENERATE: "0",
    SMTP_URL: smtp.url,
    MAIL_FROM: "Parley Alerts <alerts@parley.test>",
    EMAIL_BATCH_SECONDS: "3",
  },
});

Deno.test("e-mail alerts", serverTestOptions, async (t) => {
  try {
    await t.step("a busy conversation sends one mail per batch, to agents who asked", async () => {
      const on = await http(s.url, "PATCH", "/api/agent/notifications/preferences", {
        token: T.acme.agent.agent,
        body: { email_enabled: true },
      });
      assertEquals(on.status, 200);
      const visitor = "mail-visitor-1";
      const first = await postStream(s.url, KEY, { visitor_id: visitor, message: "Hello there" });
      const id = first.events[0]!.data.conversation_id as string;
      const take = await http(s.url, "POST", `/api/agent/conversations/${id}/takeover`, {
        token: T.acme.agent.agent,
        body: {},
      });
      assertEquals(take.status, 200, take.text);
      const lines = ["First question", "Second question", "Third question", "Fourth question"];
      for (const message of lines) {
        const r = await postStream(s.url, KEY, {
          visitor_id: visitor,
          conversation_id: id,
          message,
        });
        assertEquals(r.status, 200);
      }
      const [mail] = await smtp.waitFor(1, 15_000);
      await new Promise((r) => setTimeout(r, 1500));
      assertEquals(smtp.mails.length, 1, "one mail for the whole batch");
      assertEquals(mail!.to, [EMAIL.acmeAgent]);
      assertEquals(mail!.from, "alerts@parley.test");
      // The first message's alert depends on whether its job ran before the
      // takeover made Amy the owner: 5 or 6 alerts, in one mail either way.
      assertMatch(mail!.subject, /^Parley: [56] new alerts$/);
      assertMatch(mail!.text, /New chat: A visitor started a chat with Acme Helper\./);
      for (const line of lines) {
        assertOk(mail!.text.includes(`New message: ${line}`), `${line} in\n${mail!.text}`);
      }
      assertOk(mail!.text.includes(`/inbox?conversation=${id}`));
      assertEquals(
        (await s.deps.sql`SELECT id FROM notification_email_items`).length,
        0,
        "sent items are cleared",
      );

      // The next message starts the next batch.
      const r = await postStream(s.url, KEY, {
        visitor_id: visitor,
        conversation_id: id,
        message: "Still there?",
      });
      assertEquals(r.status, 200);
      const mails = await smtp.waitFor(2, 15_000);
      assertEquals(mails[1]!.subject, "Parley: New message");
      assertOk(mails[1]!.text.includes("Still there?"));
      assertEquals(mails.flatMap((m) => m.to).filter((to) => to !== EMAIL.acmeAgent), []);
    });
  } finally {
    await s.stop();
    await smtp.stop();
    await fake.close();
  }
});
