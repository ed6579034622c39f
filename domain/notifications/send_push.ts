/**
 * One Web Push request: the `web-push` package encrypts the payload (RFC 8291
 * aes128gcm) and signs the VAPID JWT (RFC 8292, reused per push service
 * origin until close to its expiry); the request itself goes out
 * through fetch, with a time-out and, where PUSH_CA_FILE names one, an HTTP
 * client that also trusts that CA (for push delivery only, never the rest of
 * the server).
 */
import webpush from "web-push";
import type { VapidKeys } from "../../app/vapid_keys.ts";

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export type PushOutcome =
  | { kind: "delivered"; status: number }
  /** 404/410: the subscription no longer exists. */
  | { kind: "gone"; status: number }
  /** 5xx, 429 or a time-out: worth another attempt later. */
  | { kind: "retry"; reason: string }
  /** Anything else (bad keys, 4xx): another attempt cannot help. */
  | { kind: "refused"; reason: string };

export interface PushSender {
  send(target: PushTarget, payload: string, signal: AbortSignal): Promise<PushOutcome>;
  close(): void;
}

const TTL_SECONDS = 24 * 3600;
/** A VAPID JWT is signed once per push service origin and reused for 12 hours (RFC 8292 allows 24). */
const JWT_LIFETIME_SECONDS = 12 * 3600;
const JWT_RENEW_BEFORE_SECONDS = 3600;

export async function createPushSender(
  vapid: VapidKeys,
  opts: { caFile: string | null; timeoutMs: number },
): Promise<PushSender> {
  const client = opts.caFile
    ? Deno.createHttpClient({ caCerts: [await Deno.readTextFile(opts.caFile)] })
    : undefined;
  // Signing costs about as much as encrypting: one JWT per origin, not per push.
  const jwts = new Map<string, { authorization: string; expires: number }>();
  const authorizationFor = (endpoint: string): string => {
    const audience = new URL(endpoint).origin;
    const now = Math.floor(Date.now() / 1000);
    const cached = jwts.get(audience);
    if (cached && cached.expires - now > JWT_RENEW_BEFORE_SECONDS) return cached.authorization;
    const expires = now + JWT_LIFETIME_SECONDS;
    const headers = webpush.getVapidHeaders(
      audience,
      vapid.subject,
      vapid.publicKey,
      vapid.privateKey,
      "aes128gcm",
      expires,
    );
    jwts.set(audience, { authorization: headers.Authorization, expires });
    return headers.Authorization;
  };
  return {
    async send(target, payload, signal) {
      let details;
      try {
        details = webpush.generateRequestDetails(
          { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
          payload,
          {
            headers: { Authorization: authorizationFor(target.endpoint) },
            TTL: TTL_SECONDS,
            contentEncoding: "aes128gcm",
            urgency: "high",
          },
        );
      } catch (err) {
        return { kind: "refused", reason: `unusable subscription: ${String(err)}` };
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(details.headers)) headers.set(k, String(v));
      let res: Response;
      try {
        res = await fetch(details.endpoint, {
          method: "POST",
          headers,
          body: new Uint8Array(details.body as Uint8Array),
          redirect: "manual",
          signal: AbortSignal.any([signal, AbortSignal.timeout(opts.timeoutMs)]),
          ...(client ? { client } : {}),
        });
      } catch (err) {
        if (signal.aborted) throw err;
        return { kind: "retry", reason: `push service unreachable: ${String(err)}` };
      }
      await res.body?.cancel();
      if (res.status >= 200 && res.status < 300) return { kind: "delivered", status: res.status };
      if (res.status === 404 || res.status === 410) return { kind: "gone", status: res.status };
      if (res.status >= 500 || res.status === 429) {
        return { kind: "retry", reason: `push service answered ${res.status}` };
      }
      return { kind: "refused", reason: `push service answered ${res.status}` };
    },
    close() {
      client?.close();
    },
  };
}
