/**
 * Test helpers for the widget surface: per-test client IPs (the server trusts
 * 127.0.0.1 as a proxy, so per-IP limits do not leak between tests), an SSE
 * reader, an HS256 signer for identity tokens, and state arrangement for what
 * only agents can do (take over, reply).
 */
import type { AppDeps } from "../../domain/deps.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { insertMessage } from "../../db/messages.ts";
import { applyTransition } from "../../domain/conversations/state_machine.ts";

/** Server env making X-Forwarded-For from the test client trusted. */
export const WIDGET_ENV = { TRUSTED_PROXIES: "127.0.0.1" };

let nextIp = 1;
/** Headers that give the next request a client IP of its own. */
export function freshIp(): Record<string, string> {
  const n = nextIp++;
  return { "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
}

export interface SseEvent {
  event: string;
  // deno-lint-ignore no-explicit-any
  data: any;
}

/** Parse a complete `text/event-stream` body (comments skipped). */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (data.length) out.push({ event, data: JSON.parse(data.join("\n")) });
  }
  return out;
}

export interface StreamResult {
  status: number;
  headers: Headers;
  events: SseEvent[];
  // deno-lint-ignore no-explicit-any
  json: any;
  text: string;
}

/** POST the stream endpoint and read the whole answer. */
export async function postStream(
  baseUrl: string,
  key: string,
  body: unknown,
  headers: Record<string, string> = freshIp(),
): Promise<StreamResult> {
  const res = await fetch(`${baseUrl}/widget/${key}/stream`, {
    method: "POST",
    headers: { accept: "text/event-stream", "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const isSse = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  return {
    status: res.status,
    headers: res.headers,
    events: isSse ? parseSse(text) : [],
    json: isSse ? null : JSON.parse(text),
    text,
  };
}

/** Read a stream until `stop(events)` is true, then disconnect; returns the events seen. */
export async function streamUntil(
  baseUrl: string,
  key: string,
  body: unknown,
  stop: (events: SseEvent[]) => boolean,
): Promise<SseEvent[]> {
  const res = await fetch(`${baseUrl}/widget/${key}/stream`, {
    method: "POST",
    headers: { accept: "text/event-stream", "content-type": "application/json", ...freshIp() },
    body: JSON.stringify(body),
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      const complete = text.slice(0, text.lastIndexOf("\n\n") + 2);
      if (stop(parseSse(complete))) return parseSse(complete);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return parseSse(text);
}

function b64url(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

/** An HS256 JWT (or one with another header, to test refusals). */
export async function signJwt(
  claims: Record<string, unknown>,
  secret: string,
  header: Record<string, unknown> = { alg: "HS256", typ: "JWT" },
): Promise<string> {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input)),
  );
  return `${input}.${b64url(sig)}`;
}

async function conversation(deps: AppDeps, publicId: string) {
  for (const ws of await deps.sql<{ id: number }[]>`SELECT id FROM workspaces`) {
    const row = await findConversationByPublicId(deps.sql, ws.id, publicId);
    if (row) return row;
  }
  throw new Error(`no conversation ${publicId}`);
}

/** What an agent's takeover does (no agent API is needed for widget tests). */
export async function takeOver(deps: AppDeps, publicId: string): Promise<void> {
  const row = await conversation(deps, publicId);
  await applyTransition(deps.sql, row, "takeover", { now: new Date() });
}

/** What an agent's resolve does. */
export async function resolve(deps: AppDeps, publicId: string): Promise<void> {
  const row = await conversation(deps, publicId);
  await applyTransition(deps.sql, row, "resolve", { now: new Date() });
}

/** An agent's reply, stored as the agent surface stores it (not yet delivered). */
export async function agentSays(deps: AppDeps, publicId: string, content: string): Promise<number> {
  const row = await conversation(deps, publicId);
  await applyTransition(deps.sql, row, "agentReply", { now: new Date() });
  const msg = await insertMessage(deps.sql, row.workspace_id, {
    conversationId: row.id,
    role: "agent",
    content,
    now: new Date(),
  });
  return msg.id;
}

/** Waits until the workspace's catalogue (the Shopify-shaped fake's) has been synced by the job. */
export async function waitForCatalogue(sql: AppDeps["sql"], slug = "acme"): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const [row] = await sql<{ status: string }[]>`
      SELECT c.status FROM catalogue_syncs c JOIN workspaces w ON w.id = c.workspace_id
       WHERE w.slug = ${slug}`;
    if (row?.status === "ready") return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the catalogue was not synced");
}

/** The names of the products a widget stream shows for `message`, sorted (none: no event). */
export async function shownProductNames(
  baseUrl: string,
  key: string,
  message: string,
): Promise<string[]> {
  const r = await postStream(baseUrl, key, { visitor_id: crypto.randomUUID(), message }, freshIp());
  if (r.status !== 200 || r.events[r.events.length - 1]?.event !== "done") {
    throw new Error(`stream: ${r.status}, last event ${r.events[r.events.length - 1]?.event}`);
  }
  const products: { name: string }[] =
    r.events.find((e) => e.event === "recommendations")?.data.products ?? [];
  return products.map((p) => p.name).sort();
}
