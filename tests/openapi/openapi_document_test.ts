/**
 * What the generated document says, operation by operation: the statuses
 * derived from each procedure's declaration (201 where it creates), our error
 * bodies (`{message}`, `{message, errors}`: no `code`), no security on public
 * operations, integers as integers with the spec's bounds, a summary and
 * examples everywhere, the surfaces as tags, and the widget stream.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;

Deno.test("the OpenAPI document", serverTestOptions, async (t) => {
  const s = await startTestServer({});
  try {
    const doc: Doc = await (await fetch(`${s.url}/api/openapi.json`)).json();
    const op = (method: string, path: string) => doc.paths[path][method];
    const statuses = (method: string, path: string) => Object.keys(op(method, path).responses);
    const all = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, Doc>).map(([method, o]) => ({ path, method, o }))
    );

    await t.step("each operation lists the statuses it can answer", () => {
      // Every operation may answer 500 and 503 (database unreachable, or the
      // server draining); every one with a body 400 and 413.
      assertEquals(statuses("post", "/api/v1/chatbots/{key}/messages"), [
        "200",
        "400",
        "401",
        "403",
        "404",
        "409",
        "413",
        "422",
        "429",
        "500",
        "502",
        "503",
      ]);
      assertEquals(statuses("post", "/api/v1/chatbots/{key}/knowledge"), [
        "200",
        "201",
        "400",
        "401",
        "403",
        "404",
        "413",
        "422",
        "500",
        "503",
      ]);
      assertEquals(statuses("post", "/api/portal/chatbots/{key}/knowledge"), [
        "201",
        "400",
        "401",
        "403",
        "404",
        "413",
        "422",
        "500",
        "503",
      ]);
      assertEquals(statuses("put", "/api/portal/keys/{provider}"), [
        "200",
        "400",
        "401",
        "403",
        "413",
        "422",
        "500",
        "503",
      ]);
      assertEquals(statuses("get", "/api/v1/me"), ["200", "401", "403", "500", "503"]);
      assertEquals(statuses("get", "/widget/{key}/config"), [
        "200",
        "404",
        "422",
        "429",
        "500",
        "503",
      ]);
      assertEquals(statuses("get", "/api/status"), ["200", "500", "503"]);
      assertEquals(statuses("get", "/readyz"), ["200", "500", "503"]);
      assertEquals(statuses("post", "/api/agent/conversations/{conversation}/takeover"), [
        "200",
        "400",
        "401",
        "403",
        "404",
        "409",
        "413",
        "422",
        "500",
        "503",
      ]);
      assertEquals(statuses("get", "/api/agent/conversations/{conversation}"), [
        "200",
        "401",
        "403",
        "422",
        "500",
        "503",
      ]);
    });

    await t.step("error bodies are ours: {message} and {message, errors}", () => {
      const { Error, ValidationError } = doc.components.schemas;
      assertEquals(Error.required, ["message"]);
      assertEquals(Object.keys(Error.properties), ["message"]);
      assertEquals(ValidationError.required, ["message", "errors"]);
      assertOk(!JSON.stringify(doc).includes('"issues"'), "no trpc error shape left");
    });

    await t.step("public operations have no security; token ones name their scheme", () => {
      for (const { path, method, o } of all) {
        // Public: the widget, the status, the logins (which hand out tokens), and
        // the invitation link (which makes an account) and password reset.
        const isPublic = path.startsWith("/widget/") || path === "/api/status" ||
          path === "/healthz" || path === "/readyz" || path.endsWith("/login") ||
          path.includes("/login/two-factor") ||
          path.startsWith("/api/dashboard/invitation") ||
          path.startsWith("/api/dashboard/password/");
        // A person's own account opens with any of their sign-in tokens (docs/accounts.md).
        const anySignIn = path.startsWith("/api/dashboard/account/");
        if (isPublic) assertEquals(o.security, [], `${method} ${path}`);
        else assertEquals(o.security.length, anySignIn ? 3 : 1, `${method} ${path}`);
      }
      assertEquals(op("get", "/api/dashboard/account/profile").security, [
        { dashboardToken: [] },
        { agentToken: [] },
        { portalToken: [] },
      ]);
      assertEquals(op("get", "/api/v1/me").security, [{ settingsToken: [] }]);
      assertEquals(op("get", "/api/portal/me").security, [{ portalToken: [] }]);
    });

    await t.step("integers are integers, with the spec's bounds", () => {
      const reply = op("post", "/api/v1/chatbots/{key}/messages").responses["200"]
        .content["application/json"].schema.properties.reply;
      const id = reply.anyOf?.[0]?.properties?.id ?? reply.properties?.id;
      assertEquals(id.type, "integer");
      const params = op("get", "/api/v1/chatbots/{key}/conversations").parameters;
      const perPage = params.find((p: Doc) => p.name === "per_page").schema;
      const page = params.find((p: Doc) => p.name === "page").schema;
      assertEquals([perPage.type, perPage.minimum, perPage.maximum, perPage.default], [
        "integer",
        1,
        100,
        20,
      ]);
      assertEquals([page.type, page.minimum], ["integer", 1]);
      assertOk(!JSON.stringify(doc).includes("9007199254740991"), "no safe-integer noise");
    });

    await t.step("every operation has a summary, a tag and examples", () => {
      const tags = doc.tags.map((x: Doc) => x.name);
      for (const { path, method, o } of all) {
        const where = `${method} ${path}`;
        assertOk(o.summary?.length > 5, `${where}: summary`);
        assertEquals(o.tags.length, 1, where);
        assertOk(tags.includes(o.tags[0]), `${where}: tag ${o.tags[0]}`);
        const body = o.requestBody?.content["application/json"];
        if (body) assertOk(body.example !== undefined, `${where}: request example`);
        const ok = o.responses["200"] ?? o.responses["201"];
        const media = Object.values(ok.content)[0] as Doc;
        assertOk(media.example !== undefined, `${where}: response example`);
      }
      assertEquals(op("get", "/api/v1/me").tags, ["Integration v1"]);
      assertEquals(op("get", "/api/portal/me").tags, ["Portal"]);
      assertEquals(op("get", "/widget/{key}/config").tags, ["Widget"]);
      assertEquals(op("get", "/api/status").tags, ["System"]);
    });

    await t.step("the widget stream is documented with its event stream", () => {
      const stream = op("post", "/widget/{key}/stream");
      assertOk(
        stream.responses["200"].content["text/event-stream"].example.startsWith("event: meta"),
      );
      assertOk(stream.description.includes("`error`"));
      const body = stream.requestBody.content["application/json"].schema;
      assertEquals(body.required.sort(), ["message", "visitor_id"]);
      assertOk(statuses("post", "/widget/{key}/stream").includes("429"));
    });

    await t.step("each surface has a document of its own operations alone", async () => {
      const slugs = ["v1", "portal", "agent", "dashboard", "widget", "system"];
      const whole: Doc = await (await fetch(`${s.url}/api/openapi.json`)).json();
      const seen: string[] = [];
      for (const slug of slugs) {
        const res = await fetch(`${s.url}/api/openapi/${slug}.json`);
        assertEquals(res.status, 200, slug);
        const part: Doc = await res.json();
        assertEquals(part.tags.length, 1, `${slug}: one tag`);
        const tag = part.tags[0].name;
        for (const [path, ops] of Object.entries(part.paths)) {
          for (const [method, o] of Object.entries(ops as Record<string, Doc>)) {
            assertEquals(o.tags, [tag], `${method} ${path} in ${slug}`);
            assertEquals(o, whole.paths[path][method], `${method} ${path} as in the whole`);
            seen.push(`${method} ${path}`);
          }
        }
        // Only the security schemes its operations use.
        const used = new Set(
          JSON.stringify(part.paths).match(/"[a-zA-Z]+Token"/g)?.map((x) => x.slice(1, -1)),
        );
        for (const name of Object.keys(part.components.securitySchemes)) {
          assertOk(used.has(name), `${slug}: scheme ${name} is used`);
        }
      }
      assertEquals(seen.sort(), all.map((x) => `${x.method} ${x.path}`).sort());
      const unknown = await fetch(`${s.url}/api/openapi/nope.json`);
      assertEquals(unknown.status, 404);
      await unknown.body?.cancel();
    });
  } finally {
    await s.stop();
  }
});
