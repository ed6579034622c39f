/**
 * The client address: the connection's own, unless that peer is a trusted
 * proxy (TRUSTED_PROXIES), in which case the right-most untrusted hop of
 * X-Forwarded-For. Anyone can send the header, so it is never trusted blindly.
 */

export function clientIp(
  req: { headers: { get(name: string): string | null } },
  remote: string,
  trusted: string[],
): string {
  if (trusted.length === 0 || !isTrusted(remote, trusted)) return remote;
  const hops = (req.headers.get("x-forwarded-for") ?? "").split(",").map((s) => s.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isTrusted(hops[i]!, trusted)) return hops[i]!;
  }
  return hops[0] ?? remote;
}

function isTrusted(ip: string, trusted: string[]): boolean {
  return trusted.some((t) =>
    t === "*" || t === ip || (t.endsWith("*") && ip.startsWith(t.slice(0, -1)))
  );
}
