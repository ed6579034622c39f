/**
 * The /demo page: a small product page that embeds a bot with the exact
 * snippet customers paste, so anyone can try the widget on a fresh install.
 * `?key=` points it at another bot (tests use their seeded bots). A strict
 * Content-Security-Policy shows the widget needs no inline script.
 */
import { DEMO_BOT_KEY } from "../domain/seed/demo_seed.ts";

const KEY = /^[A-Za-z0-9_-]{1,100}$/;

/** The bot key to embed: `?key=` when well-formed, else the demo bot. */
export function demoKey(url: URL): string {
  const key = url.searchParams.get("key") ?? "";
  return KEY.test(key) ? key : DEMO_BOT_KEY;
}

/** The paste-ready snippet for `key` on a server at `baseUrl`. */
export function embedSnippet(baseUrl: string, key: string): string {
  return `<script src="${baseUrl}/widget.js" data-key="${key}" defer></script>`;
}

/** The page's own stylesheet, allowed by its hash: no 'unsafe-inline' anywhere. */
const PAGE_STYLE = `
body{margin:0;font:16px/1.6 system-ui,sans-serif;color:#1f2937;background:#f9fafb}
header{padding:64px 24px;background:linear-gradient(135deg,#1e3a8a,#0ea5e9);color:#fff;text-align:center}
header h1{margin:0 0 8px;font-size:2.2rem}
main{max-width:760px;margin:0 auto;padding:24px}
section{margin:0 0 40px}
pre{white-space:pre-wrap;word-break:break-all;background:#111827;color:#e5e7eb;padding:16px;border-radius:8px}
`;

/**
 * The demo's Content-Security-Policy: only our own scripts, styles by hash,
 * and connections to this server, its realtime socket included (the socket
 * server's REALTIME_URL, on a port of its own, and BASE_URL, which may differ
 * from the address the page was opened at).
 */
export async function demoCsp(baseUrl: string, socketUrl: string): Promise<string> {
  const base = new URL(baseUrl);
  const socket = new URL(socketUrl).origin;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(PAGE_STYLE));
  const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'sha256-${hash}'`,
    "img-src 'self' https: data:",
    `connect-src 'self' ${base.origin} ${socket}`,
    "frame-ancestors 'none'",
  ].join("; ");
}

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** The demo page's HTML for `key`; the snippet shown uses the public base URL. */
export function demoPage(baseUrl: string, key: string): string {
  const k = escapeHtml(key);
  const snippet = escapeHtml(embedSnippet(baseUrl, key));
  const section = (title: string, text: string) =>
    `<section><h2>${title}</h2><p>${text}</p></section>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley demo</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header><h1>Parley demo</h1><p>Open the chat in the corner and ask about Parley.</p></header>
<main>
${section("Try it", "The chat button in the corner is the real widget, talking to this server.")}
${
    section(
      "Answers from your knowledge",
      "The bot answers from the workspace's documents and shows its sources.",
    )
  }
${
    section(
      "Humans when it matters",
      "Ask for a human at any time; an agent takes over from the inbox.",
    )
  }
<section><h2>Embed it on your site</h2><p>Paste this before <code>&lt;/body&gt;</code>:</p><pre>${snippet}</pre></section>
${section("Private by design", "Self-hosted: conversations stay on your own server.")}
</main>
<script src="/widget.js" data-key="${k}" defer></script>
</body>
</html>
`;
}
