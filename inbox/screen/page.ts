/**
 * /inbox/screen: the frame in which the inbox shows a visitor's shared page.
 * A page of its own so that its policy can differ from the inbox's where the
 * replay needs it, and only there: the visitor's styles are inline (rrweb
 * inlines them) and their images come from their site, but no script runs
 * except /inbox/screen.js, nothing is fetched by script, and only the inbox
 * may frame it.
 */
export function screenPage(assetVersion: string): string {
  const v = encodeURIComponent(assetVersion);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Visitor's screen · Parley</title>
<link rel="stylesheet" href="/inbox/screen.css?v=${v}">
<script src="/inbox/screen.js?v=${v}" defer></script>
</head>
<body>
<p id="status" class="status">Waiting for the visitor's page…</p>
<div id="screen"></div>
</body>
</html>
`;
}

export const SCREEN_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // The visitor's page's own styles, inlined by the recorder, and its fonts and images.
  "style-src 'self' 'unsafe-inline' https: http:",
  "img-src 'self' data: blob: https: http:",
  "font-src data: https: http:",
  "media-src 'none'",
  "connect-src 'none'",
  "frame-src 'self'",
  "child-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");
