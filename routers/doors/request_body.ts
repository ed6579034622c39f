/**
 * The one request-body reader of every door (REST, /trpc, the widget
 * stream): a declared Content-Length over the route's limit is refused before
 * a byte is read, and a body without one is read incrementally and refused as
 * soon as it passes the limit, so no door ever buffers more than its limit.
 * Limits: DEFAULT_BODY_LIMIT, or a procedure's `meta.maxBodyBytes` where a
 * route needs more (knowledge content); docs/errors.md lists them.
 */
import { readCapped } from "../../domain/io/read_capped.ts";

/** 1 MiB: every route's fields add up to far less, except those that declare more. */
export const DEFAULT_BODY_LIMIT = 1_048_576;

/**
 * Knowledge content is up to 1,000,000 characters; one character is up to 4
 * bytes of UTF-8, plus the other fields and JSON's quoting.
 */
export const KNOWLEDGE_BODY_LIMIT = 4_194_304 + 65_536;

/** The body was larger than the route accepts (413). */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(
      `The request body is too large: this route accepts at most ${
        limit.toLocaleString("en-US")
      } bytes.`,
    );
  }
}

const decoder = new TextDecoder();

/** Bodies being read in this process right now, and who waits for there to be none. */
let reading = 0;
const waiters = new Set<() => void>();

/**
 * Resolves once no request body is still arriving (or after `ms`). A graceful
 * stop waits for this before `server.shutdown()`, which cuts bodies still
 * being uploaded. Counted per process, which is what a stop concerns.
 */
export function bodiesSettled(ms: number): Promise<void> {
  if (reading === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      waiters.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    waiters.add(done);
  });
}

/** The body as text ("" when there is none); throws BodyTooLarge past `limit` bytes. */
export async function readBodyText(req: Request, limit: number): Promise<string> {
  return decoder.decode(await readBodyBytes(req, limit));
}

/** The body's bytes (none when there is no body); throws BodyTooLarge past `limit` bytes. */
export async function readBodyBytes(req: Request, limit: number): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array();
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await req.body.cancel().catch(() => {});
    throw new BodyTooLarge(limit);
  }
  reading++;
  try {
    const bytes = await readCapped(req.body, limit);
    if (bytes === null) throw new BodyTooLarge(limit);
    return bytes;
  } finally {
    if (--reading === 0) { for (const done of [...waiters]) done(); }
  }
}
