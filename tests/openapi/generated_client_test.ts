/**
 * The OpenAPI document tells the truth, checked from the outside: types
 * generated from the live /api/openapi.json with openapi-typescript (the
 * committed file must equal a fresh generation), then real calls to the v1,
 * portal and widget surfaces through openapi-fetch with those types. Each
 * answer's status must be one the document lists for that operation, and its
 * body must validate against the document's schema for that status (success
 * and error bodies alike).
 */
import createClient from "openapi-fetch";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { paths } from "./generated/parley_api.ts";
import { generateTypes, TYPES_FILE } from "./generate_types.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;

/** Checks one answer against the document: a listed status and a body of its schema. */
function documentChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema(doc, "doc");
  const pointer = (parts: string[]) =>
    "doc#/" + parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
  return (method: string, template: string, res: Response, body: unknown) => {
    const op = doc.paths[template]?.[method.toLowerCase()];
    assertOk(op, `${method} ${template} is documented`);
    const status = String(res.status);
    const listed = op.responses[status];
    assertOk(
      listed,
      `${method} ${template} answered ${status}, not among ${Object.keys(op.responses)}`,
    );
    const responsePath = listed.$ref
      ? ["components", "responses", listed.$ref.split("/").pop()]
      : ["paths", template, method.toLowerCase(), "responses", status];
    const response = listed.$ref ? doc.components.responses[responsePath[2]!] : listed;
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!;
    assertOk(response.content?.[type], `${method} ${template} ${status}: ${type} documented`);
    if (type !== "application/json") return;
    const validate = ajv.compile({ $ref: pointer([...responsePath, "content", type, "schema"]) });
    assertOk(
      validate(body),
      `${method} ${template} ${status} body ${JSON.stringify(body)}: ` +
        JSON.stringify(validate.errors),
    );
  };
}

Deno.test("generated client against the live document", serverTestOptions, async (t) => {
  const fake = startFakeAi({ embeddingsMode: "missing" });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { AI_BASE_URL: fake.baseUrl, TRUSTED_PROXIES: "127.0.0.1" },
  });
  try {
    const doc: Doc = await (await fetch(`${s.url}/api/openapi.json`)).json();
    const check = documentChecker(doc);

    await t.step("the committed types are those of the live document", async () => {
      const fresh = await generateTypes(doc);
      const committed = await Deno.readTextFile(TYPES_FILE).catch(() => "");
      assertOk(
        fresh === committed,
        "tests/openapi/generated/parley_api.ts is stale: run `deno task openapi:types`",
      );
    });

    const v1 = createClient<paths>({
      baseUrl: s.url,
      headers: { authorization: `Bearer ${T.acme.owner.api}` },
    });

    await t.step("v1: reads, success and error bodies", async () => {
      const me = await v1.GET("/api/v1/me");
      check("GET", "/api/v1/me", me.response, me.data);
      assertEquals(me.data?.company.slug, "acme");
      assertOk(Number.isInteger(me.data?.user.id));

      const bot = await v1.GET("/api/v1/chatbots/{key}", {
        params: { path: { key: "acme-helper" } },
      });
      check("GET", "/api/v1/chatbots/{key}", bot.response, bot.data);
      assertEquals(bot.data?.data.public_key, "acme-helper");

      const missing = await v1.GET("/api/v1/chatbots/{key}", { params: { path: { key: "nope" } } });
      check("GET", "/api/v1/chatbots/{key}", missing.response, missing.error);
      assertEquals(missing.error?.message, "Chatbot not found.");

      const anonymous = await createClient<paths>({ baseUrl: s.url }).GET("/api/v1/me");
      check("GET", "/api/v1/me", anonymous.response, anonymous.error);
      assertEquals(anonymous.response.status, 401);

      const page = await v1.GET("/api/v1/chatbots/{key}/conversations", {
        params: { path: { key: "acme-helper" }, query: { per_page: 2 } },
      });
      check("GET", "/api/v1/chatbots/{key}/conversations", page.response, page.data);
      assertEquals(page.data?.per_page, 2);
    });

    await t.step("v1: a message, its 422, its 502 and a created knowledge source", async () => {
      const sent = await v1.POST("/api/v1/chatbots/{key}/messages", {
        params: { path: { key: "acme-helper" } },
        body: { message: "Hello?", visitor_id: "gen-client" },
      });
      check("POST", "/api/v1/chatbots/{key}/messages", sent.response, sent.data);
      assertEquals(sent.data?.reply?.content, "This is the fake answer.");

      const invalid = await v1.POST("/api/v1/chatbots/{key}/messages", {
        params: { path: { key: "acme-helper" } },
        body: { message: "   ", visitor_id: "gen-client" },
      });
      check("POST", "/api/v1/chatbots/{key}/messages", invalid.response, invalid.error);
      assertEquals(invalid.response.status, 422);
      assertOk(invalid.error && "errors" in invalid.error && invalid.error.errors.message);

      fake.mode = "unauthorized";
      const failed = await v1.POST("/api/v1/chatbots/{key}/messages", {
        params: { path: { key: "acme-helper" } },
        body: { message: "Anyone?", visitor_id: "gen-client" },
      });
      fake.mode = "ok";
      check("POST", "/api/v1/chatbots/{key}/messages", failed.response, failed.error);
      assertEquals(failed.response.status, 502);
      assertOk(failed.error && "conversation_id" in failed.error && failed.error.conversation_id);

      const body = { title: "Opening hours", content: "We open at nine.", type: "text" as const };
      const created = await v1.POST("/api/v1/chatbots/{key}/knowledge", {
        params: { path: { key: "acme-helper" } },
        body,
      });
      check("POST", "/api/v1/chatbots/{key}/knowledge", created.response, created.data);
      assertEquals([created.response.status, created.data?.data.status], [201, "ready"]);
      const again = await v1.POST("/api/v1/chatbots/{key}/knowledge", {
        params: { path: { key: "acme-helper" } },
        body,
      });
      check("POST", "/api/v1/chatbots/{key}/knowledge", again.response, again.data);
      assertEquals(again.response.status, 200);
    });

    await t.step("portal: login, reads, a 422 and a delete", async () => {
      const anonymous = createClient<paths>({ baseUrl: s.url });
      const refused = await anonymous.POST("/api/portal/login", {
        body: { email: EMAIL.acmeOwner, password: "wrong" },
      });
      check("POST", "/api/portal/login", refused.response, refused.error);
      assertEquals(refused.response.status, 401);
      const login = await anonymous.POST("/api/portal/login", {
        body: { email: EMAIL.acmeOwner, password: PASSWORD },
      });
      check("POST", "/api/portal/login", login.response, login.data);
      const portal = createClient<paths>({
        baseUrl: s.url,
        headers: { authorization: `Bearer ${login.data!.token}` },
      });
      const me = await portal.GET("/api/portal/me");
      check("GET", "/api/portal/me", me.response, me.data);
      assertOk(Number.isInteger(me.data?.usage.messages_used));

      const keys = await portal.GET("/api/portal/keys");
      check("GET", "/api/portal/keys", keys.response, keys.data);
      assertEquals(keys.data?.data.length, 8);
      const badKey = await portal.PUT("/api/portal/keys/{provider}", {
        params: { path: { provider: "provider_9" } },
        body: { api_key: "sk-x" },
      });
      check("PUT", "/api/portal/keys/{provider}", badKey.response, badKey.error);
      assertEquals(badKey.response.status, 422);

      const sources = await portal.GET("/api/portal/chatbots/{key}/knowledge", {
        params: { path: { key: "acme-helper" } },
      });
      check("GET", "/api/portal/chatbots/{key}/knowledge", sources.response, sources.data);
      const id = sources.data!.data[0]!.id;
      const removed = await portal.DELETE("/api/portal/chatbots/{key}/knowledge/{source}", {
        params: { path: { key: "acme-helper", source: id } },
      });
      check(
        "DELETE",
        "/api/portal/chatbots/{key}/knowledge/{source}",
        removed.response,
        removed.data,
      );
      const gone = await portal.DELETE("/api/portal/chatbots/{key}/knowledge/{source}", {
        params: { path: { key: "acme-helper", source: id } },
      });
      check("DELETE", "/api/portal/chatbots/{key}/knowledge/{source}", gone.response, gone.error);
      assertEquals(gone.response.status, 404);
      const settingsToken = await createClient<paths>({
        baseUrl: s.url,
        headers: { authorization: `Bearer ${T.acme.owner.api}` },
      }).GET("/api/portal/me");
      check("GET", "/api/portal/me", settingsToken.response, settingsToken.error);
      assertEquals(settingsToken.response.status, 403);
    });

    await t.step("widget and system: config, a 404, the stream, the probes", async () => {
      const widget = createClient<paths>({ baseUrl: s.url });
      const config = await widget.GET("/widget/{key}/config", {
        params: { path: { key: "acme-helper" } },
      });
      check("GET", "/widget/{key}/config", config.response, config.data);
      const unknown = await widget.GET("/widget/{key}/config", {
        params: { path: { key: "no-such-bot" } },
      });
      check("GET", "/widget/{key}/config", unknown.response, unknown.error);
      const stream = await widget.POST("/widget/{key}/stream", {
        params: { path: { key: "acme-helper" } },
        body: { visitor_id: "gen-widget", message: "Hi" },
        headers: { accept: "text/event-stream" },
        parseAs: "text",
      });
      check("POST", "/widget/{key}/stream", stream.response, stream.data);
      assertOk(String(stream.data).startsWith("event: meta"));
      const invalid = await widget.POST("/widget/{key}/stream", {
        params: { path: { key: "acme-helper" } },
        body: { visitor_id: "gen-widget", message: "" },
      });
      check("POST", "/widget/{key}/stream", invalid.response, invalid.error);
      assertEquals(invalid.response.status, 422);
      const status = await widget.GET("/api/status");
      check("GET", "/api/status", status.response, status.data);
      const ready = await widget.GET("/readyz");
      check("GET", "/readyz", ready.response, ready.data);
      assertEquals(ready.data?.status, "ready");
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
