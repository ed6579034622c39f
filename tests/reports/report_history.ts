/**
 * A known history for the reports' tests, built through the real surfaces
 * (widget, agent API) with the server's clock set before each step: AI-only
 * conversations, handoffs answered after known delays, one never answered,
 * resolutions by the AI and by humans, ratings, tags; around a time-zone
 * boundary (New York vs UTC) and the month boundary of 31 January 2026.
 * docs/reports.md's worked example is this history.
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import type { TestServer } from "../helpers/test_server.ts";
import { postStream } from "../widget/widget_client.ts";
import { D } from "../dashboard/dashboard_seed.ts";

export interface History {
  amy: number;
  abe: number;
  billing: number;
  urgent: number;
}

export async function buildHistory(s: TestServer): Promise<History> {
  const at = (iso: string) => (s.deps.clock = () => new Date(iso));
  const ok = async (p: Promise<{ status: number; body: unknown }>) => {
    const res = await p;
    assertEquals(res.status, 200, JSON.stringify(res.body));
  };
  const amyCall = (method: string, path: string, body?: unknown) =>
    http(s.url, method, path, { token: T.acme.agent.agent, ...(body ? { body } : {}) });
  const abeCall = (method: string, path: string, body?: unknown) =>
    http(s.url, method, path, { token: T.acme.administrator.agent, ...(body ? { body } : {}) });
  const converse = async (visitor: string, iso: string) => {
    at(iso);
    const res = await postStream(s.url, "acme-helper", { visitor_id: visitor, message: "Hello?" });
    const id = res.events[0]?.data.conversation_id as string | undefined;
    assert(id, `no conversation: ${res.text}`);
    return id;
  };
  const askHuman = (visitor: string, id: string, iso: string) => {
    at(iso);
    return ok(http(s.url, "POST", "/widget/acme-helper/handoff", {
      body: { visitor_id: visitor, conversation_id: id },
    }));
  };
  const rate = (visitor: string, id: string, rating: number, iso: string) => {
    at(iso);
    return ok(http(s.url, "POST", "/widget/acme-helper/rating", {
      body: { visitor_id: visitor, conversation_id: id, rating },
    }));
  };

  const tags = (await http(s.url, "GET", "/api/dashboard/tags", { token: D.acme.owner })).body
    .data as { id: number; name: string }[];
  const billing = tags.find((t) => t.name === "billing")!.id;
  const urgent = tags.find((t) => t.name === "urgent")!.id;
  const members = (await http(s.url, "GET", "/api/dashboard/team", { token: D.acme.owner })).body
    .members as { id: number; email: string }[];
  const amy = members.find((m) => m.email === "agent@acme.test")!.id;
  const abe = members.find((m) => m.email === "admin@acme.test")!.id;

  // E: 23:00 on 30 January in New York, 04:00 on the 31st in UTC; the AI alone, quiet.
  await converse("v_e", "2026-01-31T04:00:00Z");
  // C: asks for a human a minute in, Abe answers 15 minutes later, resolves at one hour, rated 2.
  const c = await converse("v_c", "2026-01-31T12:00:00Z");
  await askHuman("v_c", c, "2026-01-31T12:01:00Z");
  at("2026-01-31T12:16:00Z");
  await ok(abeCall("POST", `/api/agent/conversations/${c}/reply`, { body: "Abe here." }));
  await ok(abeCall("POST", `/api/agent/conversations/${c}/tags`, { tag_id: urgent }));
  at("2026-01-31T13:00:00Z");
  await ok(abeCall("POST", `/api/agent/conversations/${c}/resolve`));
  await rate("v_c", c, 2, "2026-01-31T13:05:00Z");
  // A: 22:00 on 31 January in New York, already 1 February in UTC; the AI alone, quiet.
  await converse("v_a", "2026-02-01T03:00:00Z");
  // B: asks at 2 minutes, Amy answers 5 minutes later, resolves at 30 minutes, rated 5.
  const b = await converse("v_b", "2026-02-01T15:00:00Z");
  await askHuman("v_b", b, "2026-02-01T15:02:00Z");
  at("2026-02-01T15:07:00Z");
  await ok(amyCall("POST", `/api/agent/conversations/${b}/reply`, { body: "Amy here." }));
  await ok(amyCall("POST", `/api/agent/conversations/${b}/tags`, { tag_id: billing }));
  at("2026-02-01T15:30:00Z");
  await ok(amyCall("POST", `/api/agent/conversations/${b}/resolve`));
  await rate("v_b", b, 5, "2026-02-01T15:31:00Z");
  // F: Amy resolves it after 10 minutes without writing: nobody human wrote in it.
  const f = await converse("v_f", "2026-02-01T18:00:00Z");
  at("2026-02-01T18:10:00Z");
  await ok(amyCall("POST", `/api/agent/conversations/${f}/resolve`));
  // D: asks for a human; nobody answers.
  const d = await converse("v_d", "2026-02-01T20:00:00Z");
  await askHuman("v_d", d, "2026-02-01T20:05:00Z");
  // Reports are read two days later.
  at("2026-02-03T12:00:00Z");
  return { amy, abe, billing, urgent };
}
