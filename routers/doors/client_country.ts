/**
 * The visitor's country as a trusted proxy or CDN reports it (Cloudflare's
 * `CF-IPCountry`, CloudFront's `CloudFront-Viewer-Country`, Vercel's
 * `X-Vercel-IP-Country`, or a generic `X-Country-Code`). Read only when
 * TRUSTED_PROXIES is set: without a proxy in front, the header is the
 * visitor's own word. Null when unknown; we keep no GeoIP database.
 */
const HEADERS = [
  "cf-ipcountry",
  "cloudfront-viewer-country",
  "x-vercel-ip-country",
  "x-country-code",
];

export function clientCountry(req: Request, trustedProxies: string[]): string | null {
  if (trustedProxies.length === 0) return null;
  for (const name of HEADERS) {
    const value = req.headers.get(name)?.trim().toUpperCase();
    // "XX" and "T1" (Tor) are Cloudflare's "unknown" answers.
    if (value && /^[A-Z]{2}$/.test(value) && value !== "XX" && value !== "T1") return value;
  }
  return null;
}
