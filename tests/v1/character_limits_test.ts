/**
 * Text limits count characters as the spec does (code points), not UTF-16
 * units: an emoji is one character. At the limit a value is accepted; one
 * more character is a 422 naming the field.
 */
import { assertEquals } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";

const EMOJI = "😀"; // two UTF-16 units, one character

Deno.test("limits count characters, so emoji count once", serverTestOptions, async (t) => {
  const fake = startFakeAi();
  const s = await startTestServer({ seed: standardSeed(), env: { AI_BASE_URL: fake.baseUrl } });
  try {
    await t.step("v1 message: 4000 emoji accepted, 4001 refused", async () => {
      const send = (message: string) =>
        http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
          token: T.acme.owner.api,
          body: { message, visitor_id: EMOJI.repeat(100) },
        });
      assertEquals((await send(EMOJI.repeat(4000))).status, 200);
      const over = await send(EMOJI.repeat(4001));
      assertEquals(over.status, 422);
      assertEquals(over.body.errors, {
        message: ["The message field must not be greater than 4000 characters."],
      });
    });

    await t.step("portal chatbot: a 120-emoji name and 40-emoji launcher text fit", async () => {
      const put = (name: string, launcher_text: string) =>
        http(s.url, "PUT", "/api/portal/chatbots/acme-helper", {
          token: T.acme.owner.portal,
          body: { name, launcher_text },
        });
      assertEquals((await put(EMOJI.repeat(120), EMOJI.repeat(40))).status, 200);
      const over = await put(EMOJI.repeat(121), EMOJI.repeat(41));
      assertEquals(over.status, 422);
      assertEquals(Object.keys(over.body.errors).sort(), ["launcher_text", "name"]);
    });

    await t.step("the OpenAPI document keeps the limits as maxLength", async () => {
      const doc = await http(s.url, "GET", "/api/openapi.json");
      const body = doc.body.paths["/api/v1/chatbots/{key}/messages"].post.requestBody.content[
        "application/json"
      ].schema;
      assertEquals(body.properties.message.maxLength, 4000);
      assertEquals(body.properties.visitor_id.maxLength, 100);
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
