/**
 * The /dashboard page: an empty shell that loads the app's script and
 * stylesheet as same-origin files (no inline script or style, so the page's
 * policy stays strict). The realtime key and the socket server's address
 * ride in meta tags when the server has a socket.
 */

const escapeAttr = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** `realtimeKey` null: the server has no socket, and the app polls. */
export function dashboardPage(
  realtimeKey: string | null,
  assetVersion: string,
  realtimeUrl: string | null = null,
): string {
  const v = encodeURIComponent(assetVersion);
  const key = realtimeKey === null
    ? ""
    : `<meta name="parley-realtime-key" content="${escapeAttr(realtimeKey)}">\n` +
      (realtimeUrl === null
        ? ""
        : `<meta name="parley-realtime-url" content="${escapeAttr(realtimeUrl)}">\n`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${key}<title>Dashboard · Parley</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/app.css?v=${v}">
<script src="/dashboard/app.js?v=${v}" defer></script>
</head>
<body>
<div id="app"><p class="boot">Loading the dashboard…</p></div>
</body>
</html>
`;
}
