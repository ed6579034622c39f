/**
 * A strict Content-Security-Policy for an HTML page we serve, derived from the
 * page itself: its inline `<script>` and `<style>` blocks (and `style`
 * attributes) are allowed by SHA-256 hash, nothing else inline runs, and the
 * page may only talk to this origin. Deriving it from the HTML keeps the
 * policy right when the page's text changes.
 */

async function hash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
}

/** Inline blocks `<tag …>body</tag>` without a `src` attribute. */
function inlineBlocks(html: string, tag: string): string[] {
  const re = new RegExp(`<${tag}(\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "gi");
  return [...html.matchAll(re)]
    .filter((m) => !/\ssrc\s*=/i.test(m[1] ?? ""))
    .map((m) => m[2] ?? "");
}

/**
 * `connect` adds origins the page may open connections to (the realtime socket server);
 * `frames`, the sources it may frame (none unless named).
 */
export async function pageCsp(
  html: string,
  connect: string[] = [],
  frames: string[] = [],
): Promise<string> {
  const scripts = await Promise.all(inlineBlocks(html, "script").map(hash));
  const styles = await Promise.all(inlineBlocks(html, "style").map(hash));
  const attrs = await Promise.all(
    [...html.matchAll(/\sstyle\s*=\s*"([^"]*)"/gi)].map((m) => hash(m[1] ?? "")),
  );
  const styleSrc = ["'self'", ...styles, ...(attrs.length ? ["'unsafe-hashes'", ...attrs] : [])];
  return [
    "default-src 'none'",
    `script-src 'self' ${scripts.join(" ")}`.trim(),
    `style-src ${[...new Set(styleSrc)].join(" ")}`,
    "img-src 'self' data:",
    ["connect-src 'self'", ...connect].join(" "),
    ...(frames.length ? [`frame-src ${frames.join(" ")}`] : []),
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
