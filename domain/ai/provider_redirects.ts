/**
 * Redirects from a provider, followed above the transport (either stack in
 * provider_fetch.ts). A 307 or 308 keeps the method and the body, so a chat
 * completion moved to another path or host (an API version retired, a
 * gateway's region) is sent on as it was; up to three hops. A 301, 302 or 303
 * would turn the POST into a GET without its body: it is answered as it is
 * (a refused request, HTTP 30x in the 502), as is any hop the rules refuse.
 *
 * The first URL is the operator's (a vendor's base URL or AI_BASE_URL); a
 * redirect's target is the provider's word, so it passes the one address
 * policy (domain/crawl/address_policy.ts): another origin must resolve to
 * public addresses, unless it is on the host the operator configured (any
 * port). Going from https to http is refused. The credentials (the key in
 * `authorization`, `api-key` or `x-api-key`) go only to the origin they were
 * meant for: a hop to another origin drops them, as browsers' fetch does.
 */
import { AddressRefused, assertAddressAllowed } from "../crawl/address_policy.ts";

const FOLLOWED = new Set([307, 308]);
const MAX_HOPS = 3;
const CREDENTIALS = ["authorization", "api-key", "x-api-key", "cookie", "proxy-authorization"];

/** Why a hop from `from` to `to` is not taken, or null when it may be. */
async function refusal(first: URL, from: URL, to: URL): Promise<string | null> {
  if (to.protocol !== "http:" && to.protocol !== "https:") return "not http";
  if (from.protocol === "https:" && to.protocol === "http:") return "https to http";
  if (to.origin === from.origin) return null;
  const ownHost = first.hostname.toLowerCase();
  try {
    await assertAddressAllowed(to, { allowPrivate: false, allowHosts: [ownHost] });
    return null;
  } catch (err) {
    if (err instanceof AddressRefused) return err.message;
    return "its host does not resolve";
  }
}

/** `inner`, with 307 and 308 answers followed by the rules above. */
export function followingRedirects(inner: typeof fetch): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const first = new URL(input instanceof Request ? input.url : input);
    let url = first;
    let headers = new Headers(init.headers);
    for (let hop = 0;; hop++) {
      const response = await inner(url, { ...init, headers, redirect: "manual" });
      const location = response.headers.get("location");
      if (!FOLLOWED.has(response.status) || !location || hop === MAX_HOPS) return response;
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return response;
      }
      if (await refusal(first, url, next)) return response;
      await response.body?.cancel().catch(() => {});
      if (next.origin !== url.origin) {
        headers = new Headers(headers);
        for (const name of CREDENTIALS) headers.delete(name);
      }
      url = next;
    }
  }) as typeof fetch;
}
