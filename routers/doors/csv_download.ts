/**
 * The answer of a CSV download route (conversation history, audit log,
 * report tables): a UTF-8 CSV as an attachment under its file name (plain
 * and RFC 5987 for non-ASCII names), never cached nor sniffed. A HEAD gets
 * the headers alone, and a streamed body is cancelled at once so whatever
 * it holds (an export's slot) is given back.
 */
export async function csvDownload(
  req: Request,
  headers: Headers,
  file: { filename: string; body: ReadableStream<Uint8Array> | string },
): Promise<Response> {
  headers.set("content-type", "text/csv; charset=utf-8");
  headers.set(
    "content-disposition",
    `attachment; filename="${file.filename}"; filename*=UTF-8''${
      encodeURIComponent(file.filename)
    }`,
  );
  headers.set("cache-control", "no-store");
  headers.set("x-content-type-options", "nosniff");
  if (req.method !== "HEAD") return new Response(file.body, { status: 200, headers });
  if (typeof file.body !== "string") await file.body.cancel();
  return new Response(null, { status: 200, headers });
}
