/**
 * One input rule for every text that can reach the database, on every door
 * (REST, /trpc, the widget stream): a NUL, a lone UTF-16 surrogate (which
 * PostgreSQL's jsonb refuses), or a free-form object nested deeper than the
 * documented bound is a 422 naming the field, never a 500.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

/** `{"x": {"x": … leaf}}` nested `levels` deep. */
function nested(levels: number, leaf: unknown): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { x: v };
  return v as Record<string, unknown>;
}

const LONE = ["a\ud800b", "\udfff", "x\udc00\ud800y"];

Deno.test("storable input: surrogates, NUL depth, nesting", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Hi." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: fake.baseUrl, ...WIDGET_ENV },
  });
  const trpcPost = (proc: string, input: unknown, token?: string) =>
    http(s.url, "POST", `/trpc/${proc}`, {
      body: input,
      headers: { ...freshIp(), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
  const expect422 = (
    r: { status: number; body: Record<string, unknown>; text: string },
    field: string,
  ) => {
    const err = (r.body.error ?? null) as { data: Record<string, unknown> } | null;
    if (err) {
      assertEquals(err.data.httpStatus, 422, r.text);
      assertOk((err.data.errors as Record<string, unknown>)[field], r.text);
    } else {
      assertEquals(r.status, 422, r.text);
      assertOk((r.body.errors as Record<string, unknown>)[field], r.text);
    }
  };
  try {
    await t.step("widget heartbeat page_url with a lone surrogate: 422, both doors", async () => {
      for (const bad of LONE) {
        const body = { visitor_id: "v1", chat_open: true, page_url: bad };
        const rest = await http(s.url, "POST", "/widget/acme-helper/heartbeat", {
          body,
          headers: freshIp(),
        });
        expect422(rest, "page_url");
        assertMatch(rest.body.message as string, /page url/);
        const trpc = await trpcPost("widget.heartbeat", { key: "acme-helper", ...body });
        expect422(trpc, "page_url");
      }
    });

    await t.step("portal chatbot launcher_text with a lone surrogate: 422", async () => {
      const r = await http(s.url, "PUT", "/api/portal/chatbots/acme-helper", {
        token: T.acme.owner.portal,
        body: { name: "Acme Helper", launcher_text: "a\ud800b" },
      });
      expect422(r, "launcher_text");
      const again = await http(s.url, "GET", "/api/portal/chatbots/acme-helper", {
        token: T.acme.owner.portal,
      });
      assertEquals(again.status, 200);
    });

    await t.step("v1 message meta with a lone surrogate value or key: 422", async () => {
      for (const meta of [{ x: "\udfff" }, { ["k\ud800"]: 1 }, { a: [{ b: "\ud800" }] }]) {
        const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
          token: T.acme.owner.api,
          body: { message: "Hello", visitor_id: "v-s", meta },
        });
        assertEquals(r.status, 422, r.text);
        assertOk(Object.keys(r.body.errors)[0]!.startsWith("meta"), r.text);
      }
    });

    await t.step(
      "widget stream meta with a lone surrogate: 422 before anything is stored",
      async () => {
        const r = await postStream(s.url, "acme-helper", {
          visitor_id: "v-stream",
          message: "Hello",
          meta: { x: "\udfff" },
        });
        assertEquals(r.status, 422, r.text);
        assertOk(Object.keys(r.json.errors)[0]!.startsWith("meta"), r.text);
        const msg = await postStream(s.url, "acme-helper", { visitor_id: "v", message: "a\ud800" });
        assertEquals(msg.status, 422, msg.text);
        assertOk(msg.json.errors.message, msg.text);
      },
    );

    await t.step("a surrogate pair (an emoji) is fine", async () => {
      const r = await http(s.url, "POST", "/widget/acme-helper/heartbeat", {
        body: { visitor_id: "v1", chat_open: true, page_url: "https://a.test/😀" },
        headers: freshIp(),
      });
      assertEquals(r.status, 200, r.text);
    });

    await t.step("a NUL 40 levels deep in meta: 422, never 500, on every door", async () => {
      const meta = nested(40, "a\u0000b");
      const v1 = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
        token: T.acme.owner.api,
        body: { message: "Hello", visitor_id: "v-n", meta },
      });
      assertEquals(v1.status, 422, v1.text);
      assertOk(v1.body.errors.meta, v1.text);
      const trpc = await trpcPost("v1.sendMessage", {
        key: "acme-helper",
        message: "Hello",
        visitor_id: "v-n",
        meta,
      }, T.acme.owner.api);
      expect422(trpc, "meta");
      const sse = await postStream(s.url, "acme-helper", { visitor_id: "v", message: "Hi", meta });
      assertEquals(sse.status, 422, sse.text);
      assertOk(sse.json.errors.meta, sse.text);
    });

    await t.step("nesting past the bound is refused with its own sentence", async () => {
      const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
        token: T.acme.owner.api,
        body: { message: "Hello", visitor_id: "v-d", meta: nested(40, 1) },
      });
      assertEquals(r.status, 422, r.text);
      assertMatch(r.body.errors.meta[0], /nested more than \d+ levels/);
    });

    await t.step("a NUL at the deepest accepted level is still found", async () => {
      // meta itself is level 1 of the body; the bound allows 16 levels below the body.
      const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
        token: T.acme.owner.api,
        body: { message: "Hello", visitor_id: "v-e", meta: nested(15, "a\u0000") },
      });
      assertEquals(r.status, 422, r.text);
      const [field, reasons] = Object.entries(r.body.errors as Record<string, string[]>)[0]!;
      assertEquals(field, "meta" + ".x".repeat(15));
      assertMatch(reasons[0]!, /NUL/);
      const ok = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
        token: T.acme.owner.api,
        body: { message: "Hello", visitor_id: "v-e", meta: nested(15, "fine") },
      });
      assertEquals(ok.status, 200, ok.text);
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
