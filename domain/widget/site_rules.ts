/**
 * Allowed sites of a bot's widget: the patterns an owner writes, normalised
 * once when saved, and the match of a browser's `Origin` against them.
 *
 * A pattern is an origin: a scheme (`https://` when left out), a host, and a
 * port when it is not the scheme's default. The host may start with `*.`,
 * which matches any subdomain at any depth but not the domain itself
 * (`https://*.example.com` allows `https://shop.example.com` and
 * `https://eu.shop.example.com`, not `https://example.com`: list both).
 */

export const MAX_ALLOWED_SITES = 50;

/** The refusal the widget shows (docs/widget-api.md#allowed-sites). */
export const SITE_REFUSED_MESSAGE = "This chat is not available on this site.";

const DEFAULT_PORT: Record<string, string> = { "https:": "443", "http:": "80" };

/**
 * The stored form of an owner's entry (`https://shop.example.com`,
 * `https://*.example.com:8443`), or a reason it is refused.
 */
export function normaliseSite(entry: string): { site: string } | { error: string } {
  const raw = entry.trim().toLowerCase().replace(/\/+$/, "");
  if (raw === "") return { error: "is empty" };
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//.test(raw) ? raw : `https://${raw}`;
  const wildcard = /^([a-z]+:\/\/)\*\.(.*)$/.exec(withScheme);
  // URL cannot hold `*`: parse the rest, then put the wildcard back.
  let url: URL;
  try {
    url = new URL(wildcard ? `${wildcard[1]}${wildcard[2]}` : withScheme);
  } catch {
    return { error: `"${entry.trim()}" is not a site address` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { error: `"${entry.trim()}" must start with https:// or http://` };
  }
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    return { error: `"${entry.trim()}" must be a site alone, without a path` };
  }
  if (url.hostname.includes("*") || !/[a-z0-9\]]$/.test(url.hostname)) {
    return { error: `"${entry.trim()}" is not a site address` };
  }
  const host = wildcard ? `*.${url.hostname}` : url.hostname;
  const port = url.port && url.port !== DEFAULT_PORT[url.protocol] ? `:${url.port}` : "";
  return { site: `${url.protocol}//${host}${port}` };
}

/**
 * The owner's list checked and normalised, duplicates dropped; errors keyed
 * by the entry's position, for a 422 that names the line.
 */
export function normaliseSites(
  entries: string[],
): { sites: string[]; errors: string[] } {
  const sites: string[] = [];
  const errors: string[] = [];
  if (entries.length > MAX_ALLOWED_SITES) {
    errors.push(`At most ${MAX_ALLOWED_SITES} sites may be listed.`);
  }
  entries.forEach((entry, i) => {
    const r = normaliseSite(entry);
    if ("error" in r) errors.push(`Site ${i + 1}: ${r.error}.`);
    else if (!sites.includes(r.site)) sites.push(r.site);
  });
  return { sites, errors };
}

/**
 * Whether a browser origin (`https://shop.example.com`, as the `Origin`
 * header carries it) is one of the sites. An empty list allows every origin.
 */
export function originAllowed(sites: readonly string[], origin: string): boolean {
  if (sites.length === 0) return true;
  const o = originParts(origin);
  if (!o) return false;
  for (const site of sites) {
    const s = originParts(site.replace("//*.", "//"));
    if (!s || s.scheme !== o.scheme || s.port !== o.port) continue;
    if (site.includes("//*.")) {
      if (o.host.endsWith(`.${s.host}`)) return true;
    } else if (o.host === s.host) return true;
  }
  return false;
}

function originParts(origin: string): { scheme: string; host: string; port: string } | null {
  try {
    const url = new URL(origin);
    return {
      scheme: url.protocol,
      host: url.hostname,
      port: url.port || DEFAULT_PORT[url.protocol] || "",
    };
  } catch {
    return null;
  }
}

/**
 * The origin a widget request comes from, as a browser states it: `Origin`,
 * or for a GET without one (a same-origin fetch, a script tag) the origin of
 * its `Referer`. Null when the request says neither: not a browser on a
 * page, which no header check can stop (docs/widget-api.md#allowed-sites).
 */
export function requestOrigin(req: Request): string | null {
  const origin = req.headers.get("origin");
  if (origin && origin !== "null") return origin;
  if (origin === "null") return "null"; // a sandboxed frame or a file: never on a list
  if (req.method !== "GET") return null;
  const referer = req.headers.get("referer");
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return null;
  }
}
