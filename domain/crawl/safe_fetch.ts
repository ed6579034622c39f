/**
 * One guarded HTTP GET for the crawler: the address policy before the first
 * request and before every redirect hop (redirects are followed by hand),
 * a timeout, a content-type filter and a byte cap enforced while streaming.
 */
import { type AddressPolicy, assertAddressAllowed, type Resolver } from "./address_policy.ts";
import { readCapped } from "../io/read_capped.ts";

export const USER_AGENT = "ParleyBot/1.0 (+https://github.com/parley; knowledge crawler)";
const MAX_REDIRECTS = 5;

export interface FetchLimits {
  policy: AddressPolicy;
  maxBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
  resolve?: Resolver;
  /** Asked before following a redirect: a reason to stop there, or null to go on. */
  permitRedirect?: (url: URL) => Promise<string | null>;
  /**
   * What the last fetch of a URL brought (a sync): sent as If-None-Match /
   * If-Modified-Since on the hop that asks for that URL, so 304 means unchanged.
   */
  validatorsFor?: (url: string) => Validators | undefined;
  /** The cap for a PDF, when it differs from `maxBytes` (an uploaded file's limit). */
  pdfMaxBytes?: number;
}

/** A page's HTTP validators as its server last sent them. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type FetchOutcome =
  | {
    kind: "ok";
    url: string;
    contentType: string;
    body: string;
    bytes: Uint8Array;
    validators: Validators;
  }
  | { kind: "not_modified"; url: string }
  | { kind: "skipped"; url: string; reason: string; status?: number };

/** Throws AddressRefused for a refused hop; network failures throw as usual. */
export async function safeFetch(
  start: string,
  limits: FetchLimits,
  accept: (contentType: string) => boolean,
): Promise<FetchOutcome> {
  let url = new URL(start);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    await assertAddressAllowed(url, limits.policy, limits.resolve);
    const signals = [AbortSignal.timeout(limits.timeoutMs)];
    if (limits.signal) signals.push(limits.signal);
    const headers: Record<string, string> = {
      "user-agent": USER_AGENT,
      accept: "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.5",
    };
    const known = limits.validatorsFor?.(url.href);
    if (known?.etag) headers["if-none-match"] = known.etag;
    if (known?.lastModified) headers["if-modified-since"] = known.lastModified;
    const res = await fetch(url, { redirect: "manual", signal: AbortSignal.any(signals), headers });
    if (res.status === 304 && known) {
      await res.body?.cancel();
      return { kind: "not_modified", url: url.href };
    }
    if (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
      await res.body?.cancel();
      url = new URL(res.headers.get("location")!, url);
      url.hash = "";
      const stop = await limits.permitRedirect?.(url);
      if (stop) return { kind: "skipped", url: url.href, reason: stop };
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      return { kind: "skipped", url: url.href, reason: `HTTP ${res.status}`, status: res.status };
    }
    const contentType = (res.headers.get("content-type") ?? "").toLowerCase();
    if (!accept(contentType)) {
      await res.body?.cancel();
      return { kind: "skipped", url: url.href, reason: `not a page (${contentType || "no type"})` };
    }
    const pdf = isPdf(contentType);
    const cap = pdf && limits.pdfMaxBytes ? limits.pdfMaxBytes : limits.maxBytes;
    const declared = Number(res.headers.get("content-length") ?? "0");
    if (declared > cap) {
      await res.body?.cancel();
      return { kind: "skipped", url: url.href, reason: "too large" };
    }
    const bytes = await readCapped(res.body, cap);
    if (bytes === null) return { kind: "skipped", url: url.href, reason: "too large" };
    const validators = {
      etag: res.headers.get("etag"),
      lastModified: res.headers.get("last-modified"),
    };
    // A PDF is read from its bytes; decoding it as text would only cost memory.
    const body = pdf ? "" : decode(bytes, contentType);
    return { kind: "ok", url: url.href, contentType, body, bytes, validators };
  }
  return { kind: "skipped", url: url.href, reason: "too many redirects" };
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

export const isHtml = (type: string) =>
  type.startsWith("text/html") || type.startsWith("application/xhtml+xml");

export const isPdf = (type: string) => type.startsWith("application/pdf");
