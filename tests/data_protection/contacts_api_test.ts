/**
 * The dashboard's contact procedures (docs/dashboard.md#contacts): visitors
 * who left an identity, keyset-paged and searched (a `%` typed is a letter,
 * not a pattern); a contact's detail; viewers read but neither export nor
 * erase; another workspace's contact is 404; erasing one conversation keeps
 * the visitor's other conversation and its contact.
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
});
const get = (path: string, token: string = D.acme.owner) =>
  http(s.url, "GET", `/api/dashboard${path}`, { token });
const post = (path: string, token: string = D.acme.owner) =>
  http(s.url, "POST", `/api/dashboard${path}`, { token, body: {} });

async function chat(visitor: string, name: string | null, email: string | null, id?: string) {
  const r = await postStream(s.url, "acme-helper", {
    visitor_id: visitor,
    message: "Hello",
    ...(id ? { conversation_id: id } : {}),
    ...(name || email ? { meta: { visitor: { name, email } } } : {}),
  });
  assertEquals(r.status, 200, r.text);
  return r.events[0]!.data.conversation_id as string;
}

Deno.test("dashboard contacts procedures", serverTestOptions, async (t) => {
  try {
    await chat("v_c_anon", null, null);
    await chat("v_c_1", "Ann One", "ann@example.org");
    await chat("v_c_2", "Bob Two", "bob@example.org");
    const first = await chat("v_c_3", "Cy 100% Three", "cy@example.org");
    // A second conversation of the same visitor, after a reset.
    await http(s.url, "POST", "/widget/acme-helper/chat/reset", {
      body: { visitor_id: "v_c_3", conversation_id: first },
    });
    const second = await chat("v_c_3", null, null);
    assert(second !== first);

    let cyId = 0;
    await t.step("keyset pages, newest first; anonymous visitors are not contacts", async () => {
      const p1 = await get("/contacts?per_page=2");
      assertEquals(p1.status, 200, p1.text);
      assertEquals(p1.body.data.map((c: { name: string }) => c.name), ["Cy 100% Three", "Bob Two"]);
      const p2 = await get(`/contacts?per_page=2&cursor=${p1.body.next_cursor}`);
      assertEquals(p2.body.data.map((c: { name: string }) => c.name), ["Ann One"]);
      assertEquals(p2.body.next_cursor, null);
      cyId = p1.body.data[0].id;
      assertEquals(p1.body.data[0].conversations, 2);
      assertEquals((await get("/contacts?cursor=abc")).status, 422);
    });

    await t.step("search by part of a name or an address", async () => {
      const byMail = await get("/contacts?q=BOB@EXAMPLE");
      assertEquals(byMail.body.data.map((c: { name: string }) => c.name), ["Bob Two"]);
      const byName = await get("/contacts?q=ann%20o");
      assertEquals(byName.body.data.map((c: { name: string }) => c.name), ["Ann One"]);
      const percent = await get(`/contacts?q=${encodeURIComponent("100%")}`);
      assertEquals(percent.body.data.map((c: { name: string }) => c.name), ["Cy 100% Three"]);
      assertEquals((await get(`/contacts?q=${encodeURIComponent("%")}`)).body.data.length, 1);
    });

    await t.step("a contact's detail; roles; other workspaces", async () => {
      const d = await get(`/contacts/${cyId}`);
      assertEquals(d.status, 200, d.text);
      assertEquals(d.body.data.leads, ["cy@example.org"]);
      assertEquals(d.body.data.conversation_list.length, 2);
      const of = await get(`/conversations/${first}/contact`);
      assertEquals(of.body.data.id, cyId);
      assertEquals((await get(`/contacts/${cyId}`, D.acme.viewer)).status, 200);
      assertEquals((await get(`/contacts/${cyId}/export`, D.acme.viewer)).status, 403);
      assertEquals((await post(`/contacts/${cyId}/erase`, D.acme.viewer)).status, 403);
      assertEquals((await get(`/contacts/${cyId}`, D.globex.owner)).status, 404);
      assertEquals((await post(`/contacts/${cyId}/erase`, D.globex.owner)).status, 404);
      assertEquals((await get("/contacts/not-a-number")).status, 404);
    });

    await t.step("erasing one conversation keeps the visitor's other one", async () => {
      const r = await post(`/conversations/${first}/erase`);
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.data.conversations, [first]);
      const d = await get(`/contacts/${cyId}`);
      assertEquals(d.body.data.conversation_list.map((c: { id: string }) => c.id), [second]);
      assertEquals((await post(`/conversations/${first}/erase`)).status, 404);
      const [audit] = await s.deps.sql`
        SELECT details FROM audit_log WHERE action = 'conversation.erased'`;
      assertEquals(audit!.details.conversations, 1);
    });

    await t.step("erasing the contact", async () => {
      const r = await post(`/contacts/${cyId}/erase`);
      assertEquals([r.status, r.body.data.conversations], [200, [second]]);
      assertEquals((await get(`/contacts/${cyId}`)).status, 404);
      const list = await get("/contacts");
      assertEquals(list.body.data.map((c: { name: string }) => c.name), ["Bob Two", "Ann One"]);
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
