/** A tiny HTTP client for black-box tests: status, headers and parsed body. */

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface HttpOptions {
  token?: string;
  body?: unknown;
  /** Send this exact text as the body (malformed JSON tests). */
  rawBody?: string;
  headers?: Record<string, string>;
}

// deno-lint-ignore no-explicit-any
export async function http<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  opts: HttpOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { accept: "application/json", ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
