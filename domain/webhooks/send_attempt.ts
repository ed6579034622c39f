/**
 * One delivery attempt: the address policy after DNS, then a POST with the
 * Standard Webhooks headers, no redirect followed, WEBHOOK_TIMEOUT_MS to
 * answer. The outcome says whether another attempt could help: 5xx, 429,
 * timeouts and connection errors can; other 4xx, a redirect and a refused
 * address cannot.
 */
import type { WebhookConfig } from "../../app/config.ts";
import { AddressRefused } from "../crawl/address_policy.ts";
import { assertWebhookTargetAllowed } from "./endpoint_url.ts";
import { signatureHeader } from "./signing.ts";

const EXCERPT_BYTES = 1024;
export const USER_AGENT = "Parley-Webhooks/1.0";

export interface AttemptOutcome {
  kind: "succeeded" | "retry" | "failed";
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  error: string | null;
  /** Seconds the receiver asked us to wait (429 or 503 with Retry-After). */
  retryAfterSeconds: number | null;
}

export interface AttemptTarget {
  url: string;
  secrets: string[];
  webhookId: string;
  body: string;
  now: Date;
  signal?: AbortSignal;
}

async function readExcerpt(body: ReadableStream<Uint8Array> | null): Promise<string | null> {
  if (!body) return null;
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.byteLength;
  }
  const text = new TextDecoder().decode(bytes.subarray(0, EXCERPT_BYTES));
  return text === "" ? null : text;
}

/** Retry-After as seconds (delta or HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

export async function sendAttempt(
  config: WebhookConfig,
  t: AttemptTarget,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(t.url);
  try {
    await assertWebhookTargetAllowed(config, url);
  } catch (err) {
    const refused = err instanceof AddressRefused;
    return {
      kind: refused ? "failed" : "retry",
      statusCode: null,
      durationMs: elapsed(),
      excerpt: null,
      error: (err as Error).message,
      retryAfterSeconds: null,
    };
  }
  const timestamp = Math.floor(t.now.getTime() / 1000);
  const signals = [AbortSignal.timeout(config.timeoutMs)];
  if (t.signal) signals.push(t.signal);
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.any(signals),
      headers: {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": t.webhookId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signatureHeader(t.secrets, t.webhookId, timestamp, t.body),
      },
      body: t.body,
    });
  } catch (err) {
    if (t.signal?.aborted) throw err;
    const timedOut = err instanceof DOMException && err.name === "TimeoutError";
    return {
      kind: "retry",
      statusCode: null,
      durationMs: elapsed(),
      excerpt: null,
      error: timedOut
        ? `No answer within ${config.timeoutMs} ms.`
        : `Connection failed: ${(err as Error).message}`.slice(0, 500),
      retryAfterSeconds: null,
    };
  }
  const excerpt = await readExcerpt(res.body).catch(() => null);
  const status = res.status;
  const base = { statusCode: status, durationMs: elapsed(), excerpt, retryAfterSeconds: null };
  if (status >= 200 && status < 300) return { ...base, kind: "succeeded", error: null };
  if (status >= 300 && status < 400) {
    return { ...base, kind: "failed", error: `HTTP ${status}: redirects are not followed.` };
  }
  if (status === 429 || status >= 500) {
    return {
      ...base,
      kind: "retry",
      error: `HTTP ${status}`,
      retryAfterSeconds: parseRetryAfter(res.headers.get("retry-after"), t.now),
    };
  }
  return { ...base, kind: "failed", error: `HTTP ${status}: not retried.` };
}
