/**
 * One request-body cap for every door (REST, /trpc, the widget stream): a
 * body over the route's limit is a 413 `{message}` answered before the body
 * is read in full, whether its size is declared up front or it arrives
 * chunked; routes that need more (knowledge content) declare a larger limit,
 * and each route's limit is the one docs/errors.md lists.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { rawUpload } from "../helpers/raw_http.ts";

const HUGE = 200 * 1024 * 1024;

/** The "request body" rows of docs/errors.md's Limits table: bytes, and the routes each names. */
async function documentedLimits(): Promise<{ bytes: number; routes: string[] }[]> {
  const text = await Deno.readTextFile(new URL("../../docs/errors.md", import.meta.url));
  const table = text.slice(text.indexOf("## Limits"), text.indexOf("### While the database"));
  return table.split("\n").filter((line) => line.startsWith("| request body")).map((line) => {
    const [label, value] = line.split("|").slice(1, 3) as [string, string];
    const bytes = Number(/([\d,]+) bytes/.exec(value)![1]!.replaceAll(",", ""));
    return { bytes, routes: [...label.matchAll(/`POST ([^`]+)`/g)].map((m) => m[1]!) };
  });
}

const DOORS = [
  "/api/portal/login",
  "/widget/acme-helper/heartbeat",
  "/trpc/portal.login",
  "/widget/acme-helper/stream",
  "/api/v1/chatbots/acme-helper/messages",
];

Deno.test("request body limit", serverTestOptions, async (t) => {
  const s = await startTestServer({ seed: standardSeed() });
  try {
    await t.step("a declared 200 MB body is refused with 413 before it is read", async () => {
      for (const path of DOORS) {
        const r = await rawUpload(s.port, path, {
          totalBytes: HUGE,
          chunked: false,
          headers: { authorization: `Bearer ${T.acme.owner.api}` },
        });
        assertEquals(r.status, 413, `${path}: ${r.body}`);
        const body = JSON.parse(r.body);
        const message = body.message ?? body.error?.message;
        assertMatch(message, /request body is too large/, path);
        assertOk(r.bytesSent < 8 * 1024 * 1024, `${path}: ${r.bytesSent} bytes sent first`);
      }
    });

    await t.step("a chunked 200 MB body is cut off at the limit with 413", async () => {
      for (const path of DOORS) {
        const r = await rawUpload(s.port, path, {
          totalBytes: HUGE,
          chunked: true,
          headers: { authorization: `Bearer ${T.acme.owner.api}` },
        });
        assertEquals(r.status, 413, `${path}: ${r.body}`);
        assertOk(r.bytesSent < 16 * 1024 * 1024, `${path}: ${r.bytesSent} bytes sent first`);
      }
    });

    await t.step("the REST and /trpc answers carry the limit in the message", async () => {
      const big = JSON.stringify({ email: "a@b.test", password: "x".repeat(2_000_000) });
      const rest = await http(s.url, "POST", "/api/portal/login", { rawBody: big });
      assertEquals(rest.status, 413);
      assertEquals(Object.keys(rest.body), ["message"]);
      assertMatch(rest.body.message, /1,048,576 bytes/);
      const trpc = await http(s.url, "POST", "/trpc/portal.login", { rawBody: big });
      assertEquals(trpc.status, 413);
      assertEquals(trpc.body.error.data.httpStatus, 413);
      assertMatch(trpc.body.error.message, /1,048,576 bytes/);
    });

    await t.step("knowledge content of 1,000,000 four-byte characters is not refused", async () => {
      // 4 MB of UTF-8: over the default limit, within the knowledge routes' own.
      const content = "😀".repeat(1_000_000);
      const v1 = await http(s.url, "POST", "/api/v1/chatbots/no-such-bot/knowledge", {
        token: T.acme.owner.api,
        body: { title: "Emoji", content },
      });
      assertEquals(v1.status, 404, v1.text.slice(0, 200));
      const portal = await http(s.url, "POST", "/api/portal/chatbots/no-such-bot/knowledge", {
        token: T.acme.owner.portal,
        body: { type: "text", title: "Emoji", content },
      });
      assertEquals(portal.status, 404, portal.text.slice(0, 200));
      const trpc = await http(s.url, "POST", "/trpc/v1.addKnowledge", {
        token: T.acme.owner.api,
        body: { key: "no-such-bot", title: "Emoji", content },
      });
      assertEquals(trpc.body.error.data.httpStatus, 404, trpc.text.slice(0, 200));
      const over = await http(s.url, "POST", "/api/v1/chatbots/no-such-bot/knowledge", {
        token: T.acme.owner.api,
        body: { title: "Too long", content: content + "a" },
      });
      assertEquals(over.status, 422, over.text.slice(0, 200));
      const tooBig = await http(s.url, "POST", "/api/v1/chatbots/no-such-bot/knowledge", {
        token: T.acme.owner.api,
        rawBody: JSON.stringify({ title: "x", content: "a".repeat(5_000_000) }),
      });
      assertEquals(tooBig.status, 413);
    });

    await t.step("each route's limit is the one docs/errors.md lists", async () => {
      const login = await http(s.url, "POST", "/api/dashboard/login", {
        body: { email: "owner@acme.test", password: "correct horse battery staple" },
      });
      assertEquals(login.status, 200, login.text);
      const tokenFor = (path: string) =>
        path.startsWith("/api/v1/") || path.startsWith("/trpc/v1.")
          ? T.acme.owner.api
          : path.startsWith("/api/portal/")
          ? T.acme.owner.portal
          : path.startsWith("/api/dashboard/")
          ? login.body.token
          : null;
      const rows = await documentedLimits();
      assertOk(rows.length >= 5, `${rows.length} body limits in docs/errors.md`);
      for (const { bytes, routes } of rows) {
        // The row for every other route names none: two of them stand for it.
        const paths = routes.length > 0
          ? routes.map((r) => r.replace("{key}", "acme-helper"))
          : ["/api/v1/chatbots/acme-helper/messages", "/trpc/v1.sendMessage"];
        for (const path of paths) {
          const token = tokenFor(path);
          const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
          const over = await rawUpload(s.port, path, {
            totalBytes: bytes + 1,
            chunked: false,
            headers,
          });
          assertEquals(over.status, 413, `${path} at ${bytes + 1} bytes: ${over.body}`);
          const body = JSON.parse(over.body);
          const message: string = body.message ?? body.error.message;
          assertOk(
            message.includes(`${bytes.toLocaleString("en-US")} bytes`),
            `${path}: ${message}`,
          );
          // Exactly the limit is read (then refused for what it says, not for its size).
          const exact = `{"pad":"${"x".repeat(bytes - 10)}"}`;
          assertEquals(new TextEncoder().encode(exact).length, bytes);
          const at = await http(s.url, "POST", path, { rawBody: exact, headers });
          assertOk(at.status !== 413, `${path} at ${bytes} bytes: ${at.text.slice(0, 200)}`);
        }
      }
    });

    await t.step("the server still answers after the refusals", async () => {
      const r = await http(s.url, "GET", "/api/v1/me", { token: T.acme.owner.api });
      assertEquals(r.status, 200);
    });
  } finally {
    await s.stop();
  }
});
