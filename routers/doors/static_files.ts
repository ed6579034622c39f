/**
 * In-memory static assets served the way browsers and CDNs expect: a strong
 * ETag (SHA-256 of the content), `Cache-Control`, 304 on a matching
 * `If-None-Match`, and a pre-compressed gzip body for clients that accept it
 * (compressed once, not per request).
 */

export interface StaticAsset {
  body: Uint8Array;
  gzip: Uint8Array;
  etag: string;
  contentType: string;
  cacheControl: string;
  /** Extra headers sent with every answer (e.g. a Content-Security-Policy). */
  headers?: Record<string, string>;
}

/** Builds an asset from text: hashes it for the ETag and gzips it once. */
export async function makeAsset(
  text: string,
  contentType: string,
  cacheControl: string,
  headers?: Record<string, string>,
): Promise<StaticAsset> {
  const body = new TextEncoder().encode(text);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  const etag = `"${
    Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")
  }"`;
  return { body, gzip: await gzip(body), etag, contentType, cacheControl, headers };
}

/** Gzips bytes with the platform's CompressionStream. */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The response for GET or HEAD of `asset`, honouring If-None-Match and Accept-Encoding. */
export function serveAsset(req: Request, asset: StaticAsset): Response {
  const headers = new Headers({
    "content-type": asset.contentType,
    "cache-control": asset.cacheControl,
    etag: asset.etag,
    vary: "Accept-Encoding",
    "x-content-type-options": "nosniff",
    ...(asset.headers ?? {}),
  });
  if (etagMatches(req.headers.get("if-none-match"), asset.etag)) {
    return new Response(null, { status: 304, headers });
  }
  const useGzip = acceptsGzip(req.headers.get("accept-encoding"));
  const body = useGzip ? asset.gzip : asset.body;
  if (useGzip) headers.set("content-encoding", "gzip");
  headers.set("content-length", String(body.byteLength));
  return new Response(req.method === "HEAD" ? null : body as BodyInit, { status: 200, headers });
}

function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  return header.split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (name !== "gzip" && name !== "*") return false;
    const q = params.find((p) => p.trim().startsWith("q="));
    return !q || Number(q.trim().slice(2)) > 0;
  });
}
