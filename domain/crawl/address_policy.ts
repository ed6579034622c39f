/**
 * Which addresses the crawler may reach. A tenant's URL must never make the
 * server fetch its own network: private, loopback, link-local (cloud metadata
 * at 169.254.169.254), multicast and reserved addresses are refused after DNS
 * resolution, on the first request and on every redirect. CRAWL_ALLOW_PRIVATE
 * lifts the rule (intranet deployments); CRAWL_ALLOW_HOSTS lifts it for the
 * hosts it lists, each `host` (any port) or `host:port` (that port only), as
 * the other allowances read theirs. A refusal names the setting an operator
 * changes to allow the address, so an owner knows whom to ask and what for. Those two are the
 * crawler's own: push endpoints and the customer-context integrations use the
 * same rule with their own allowance (host_allowance.ts).
 */
import type { Config } from "../../app/config.ts";

export interface AddressPolicy {
  allowPrivate: boolean;
  /** Entries `host` (any port) or `host:port`, lower-case. */
  allowHosts: string[];
  /** The operator's setting that would allow a refused address, named in the refusal. */
  allowSetting?: string;
}

/** The refusal's last sentence: which setting, with which entry, allows the address. */
export function allowHint(url: URL, policy: AddressPolicy): string {
  if (!policy.allowSetting) return "";
  return ` To allow it, the server's operator adds "${
    url.hostname.replace(/^\[|\]$/g, "").toLowerCase()
  }" (any port) or "${hostPort(url)}" to ${policy.allowSetting}.`;
}

function listed(policy: AddressPolicy, url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return policy.allowHosts.includes(host) || policy.allowHosts.includes(hostPort(url));
}

/** The target of a fetch was refused by the policy; never retried. */
export class AddressRefused extends Error {
  constructor(public readonly url: string, reason: string, hint = "") {
    super(`Refused to fetch ${url}: ${reason}.${hint}`);
    this.name = "AddressRefused";
  }
}

export function addressPolicy(
  config: Pick<Config, "crawlAllowPrivate" | "crawlAllowHosts">,
): AddressPolicy {
  return {
    allowPrivate: config.crawlAllowPrivate,
    allowHosts: config.crawlAllowHosts,
    allowSetting: "CRAWL_ALLOW_HOSTS (or sets CRAWL_ALLOW_PRIVATE=true for every private address)",
  };
}

function parseV4(ip: string): number[] | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  const nums = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return nums.every((n) => n >= 0 && n <= 255) ? nums : null;
}

function privateV4([a, b, c]: number[]): boolean {
  return a === 0 || a === 10 || a === 127 || a! >= 224 || // this host, private, loopback, multicast+reserved
    (a === 100 && b! >= 64 && b! <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol, documentation
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113);
}

/** Eight 16-bit groups of an IPv6 address, or null. */
function parseV6(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  let tailV4: number[] | null = null;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    tailV4 = parseV4(text.slice(lastColon + 1));
    if (!tailV4) return null;
    text = text.slice(0, lastColon + 1) +
      `${((tailV4[0]! << 8) | tailV4[1]!).toString(16)}:${
        ((tailV4[2]! << 8) | tailV4[3]!).toString(16)
      }`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  const nums = groups.map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  return nums.every((n) => !Number.isNaN(n)) ? nums : null;
}

function privateV6(g: number[]): boolean {
  const embeddedV4 = [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(7) && (g[7] === 0 || g[7] === 1)) return true; // unspecified, loopback
  if (zeroTo(5) && g[5] === 0xffff) return privateV4(embeddedV4); // IPv4-mapped
  if (zeroTo(6)) return privateV4(embeddedV4); // IPv4-compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b) return privateV4(embeddedV4); // NAT64
  if (g[0] === 0x2002) return privateV4([g[1]! >> 8, g[1]! & 255, g[2]! >> 8, g[2]! & 255]); // 6to4
  return (g[0]! & 0xfe00) === 0xfc00 || // unique local
    (g[0]! & 0xffc0) === 0xfe80 || (g[0]! & 0xffc0) === 0xfec0 || // link-local, site-local
    (g[0]! & 0xff00) === 0xff00 || // multicast
    (g[0] === 0x2001 && g[1] === 0x0db8) || // documentation
    (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0); // discard-only
}

/** True for any address a crawler must not reach; unparsable input counts as refused. */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, "");
  const v4 = parseV4(bare);
  if (v4) return privateV4(v4);
  const v6 = parseV6(bare);
  return v6 ? privateV6(v6) : true;
}

function hostPort(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname.toLowerCase()}:${port}`;
}

/**
 * A name that means this machine or its own network: `localhost`, the
 * `.local`/`.internal`/`.localhost` suffixes, and any single-label name
 * (`intranet`), which a resolver completes with the host's own search
 * domains. IP literals never get here as one label: an IPv4 address always
 * has dots after URL parsing (`http://2130706433/` is `127.0.0.1`), IPv6 colons.
 */
function isLocalName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || h.endsWith(".internal") ||
    h.endsWith(".local") || (!h.includes(".") && !h.includes(":"));
}

/**
 * Why a URL's host can never be a DNS name, or null: over 253 characters, a
 * label over 63, or an empty label (RFC 1035). No allowance lifts it: such a
 * name does not resolve anywhere.
 */
export function hostNameProblem(url: URL): string | null {
  const host = url.hostname.replace(/\.$/, "");
  if (host.startsWith("[") || parseV4(host)) return null;
  if (host.length > 253) return "the host name is longer than 253 characters";
  const labels = host.split(".");
  if (labels.some((label) => label.length > 63)) {
    return "a label of the host name is longer than 63 characters";
  }
  if (labels.some((label) => label === "")) return "the host name has an empty label";
  return null;
}

/**
 * Cheap check when a URL is stored, without DNS: what makes it surely
 * refused later, as the end of a sentence about it ("must not point at …"),
 * or null when only DNS can tell. A host that can be no DNS name
 * (hostNameProblem) always; an IP literal or a local name (single-label
 * included) unless the policy allows private targets.
 */
export function literalAddressRefusal(raw: string, policy: AddressPolicy): string | null {
  const url = new URL(raw);
  const badName = hostNameProblem(url);
  if (badName) return `must name a valid host (${badName})`;
  if (policy.allowPrivate || listed(policy, url)) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const local = isLocalName(host) ||
    ((parseV4(host) !== null || parseV6(host) !== null) && isPrivateAddress(host));
  return local
    ? `must not point at a private, loopback or local address.${allowHint(url, policy)}`
      .replace(/\.$/, "")
    : null;
}

export type Resolver = (hostname: string) => Promise<string[]>;

/** A and AAAA records; an empty list when the name does not resolve. */
export const resolveAddresses: Resolver = async (hostname) => {
  const lookups = await Promise.allSettled([
    Deno.resolveDns(hostname, "A"),
    Deno.resolveDns(hostname, "AAAA"),
  ]);
  return lookups.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
};

/**
 * Throws AddressRefused unless every address the host resolves to is public
 * (or the policy allows it). DNS pinning is not possible with fetch, so a
 * rebinding name could still switch addresses between check and connect:
 * documented in docs/portal-api.md.
 */
export async function assertAddressAllowed(
  url: URL,
  policy: AddressPolicy,
  resolve: Resolver = resolveAddresses,
): Promise<void> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AddressRefused(url.href, "only http and https are crawled");
  }
  if (url.username || url.password) {
    throw new AddressRefused(url.href, "URLs with credentials are not crawled");
  }
  const badName = hostNameProblem(url);
  if (badName) throw new AddressRefused(url.href, badName);
  if (policy.allowPrivate || listed(policy, url)) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isLocalName(host)) {
    throw new AddressRefused(url.href, "the host is a local name", allowHint(url, policy));
  }
  const literal = parseV4(host) !== null || parseV6(host) !== null;
  const addresses = literal ? [host] : await resolve(host);
  // Not a refusal: DNS may be briefly down, so the job is retried.
  if (addresses.length === 0) throw new Error(`The host name of ${url.href} does not resolve.`);
  if (addresses.some(isPrivateAddress)) {
    throw new AddressRefused(
      url.href,
      "the address is private, loopback or link-local",
      allowHint(url, policy),
    );
  }
}
