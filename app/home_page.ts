/**
 * `GET /`: a small page sending people where Parley is used (the dashboard,
 * the inbox, the API reference, the demo) instead of a JSON 404; and the
 * favicon (`/favicon.ico`, `/favicon.svg`), one SVG mark every page gets.
 * No script and no inline style, so the strictest policy holds.
 */

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
  `<rect width="32" height="32" rx="7" fill="#4f46e5"/>` +
  `<path d="M9 8h8a6 6 0 0 1 0 12h-4v5H9z M13 12v4h4a2 2 0 0 0 0-4z" fill="#fff"/></svg>`;

const HOME = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<h1>Parley</h1>
<p>AI chat for your website, with a human inbox when visitors need a person.</p>
<ul>
<li><a href="/dashboard">Dashboard</a>: bots, knowledge, branding, team and settings (owners).</li>
<li><a href="/inbox">Inbox</a>: answer visitors (agents).</li>
<li><a href="/api/docs">API reference</a> (<a href="/api/openapi.json">OpenAPI document</a>).</li>
<li><a href="/demo">Demo page</a> with the chat widget.</li>
</ul>
</body>
</html>
`;

const HEADERS = {
  "cache-control": "no-cache",
  "content-security-policy": "default-src 'none'; img-src 'self'; base-uri 'none'; " +
    "form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
};

/** The response for `/`, `/favicon.ico` or `/favicon.svg` (GET or HEAD); null for other paths. */
export function homeOrFavicon(method: string, path: string): Response | null {
  if (method !== "GET" && method !== "HEAD") return null;
  const body = path === "/"
    ? HOME
    : path === "/favicon.ico" || path === "/favicon.svg"
    ? FAVICON
    : null;
  if (body === null) return null;
  const type = path === "/" ? "text/html; charset=utf-8" : "image/svg+xml";
  return new Response(method === "HEAD" ? null : body, {
    status: 200,
    headers: {
      ...HEADERS,
      "content-type": type,
      ...(path === "/" ? {} : { "cache-control": "public, max-age=86400" }),
    },
  });
}
