/**
 * Kept-alive connections per origin (scheme, host, port). A connection comes
 * back here only once its response was read to the end and nothing is left
 * over; the most recently used leaves first (the likeliest still open), at
 * most MAX_IDLE wait per origin, and each is closed after its idle time.
 *
 * While it waits, a connection keeps one read pending: a server that closes
 * it (its own idle timeout) is seen at once and the connection dropped, so a
 * request is never written to a socket already known dead. That read is the
 * next response's first read when the connection is taken.
 */
import { Http1Connection } from "./connection.ts";

/** As node's agent (maxFreeSockets): a burst of streams leaves at most this many open. */
const MAX_IDLE = 256;
/**
 * Idle time when the server names none: below the 5 s of common servers
 * (uvicorn, node), so our side closes first and no request races its close.
 */
const DEFAULT_IDLE_MS = 4000;
const MAX_IDLE_MS = 60_000;

export interface Origin {
  key: string;
  hostname: string;
  port: number;
  tls: boolean;
}

export function originOf(url: URL): Origin {
  const tls = url.protocol === "https:";
  return {
    key: `${url.protocol}//${url.host}`,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : tls ? 443 : 80,
    tls,
  };
}

interface Idle {
  c: Http1Connection;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const idle = new Map<string, Idle[]>();

/** A kept-alive connection to this origin, or null. */
export function takeIdle(origin: Origin): Http1Connection | null {
  const list = idle.get(origin.key);
  if (!list) return null;
  let entry: Idle | undefined;
  while ((entry = list.pop())) {
    clearTimeout(entry.timer);
    // Its watch may have seen the close a moment ago, with the drop not run yet.
    if (!entry.c.eof && !entry.c.closed && entry.c.buffered === 0) break;
    entry.c.close();
  }
  if (list.length === 0) idle.delete(origin.key);
  if (!entry) return null;
  entry.c.conn.ref();
  return entry.c;
}

/** A new connection; TLS certificates are verified by the runtime against its root store. */
export async function connect(origin: Origin, signal?: AbortSignal): Promise<Http1Connection> {
  const tcp = await Deno.connect({ hostname: origin.hostname, port: origin.port, signal });
  if (!origin.tls) return new Http1Connection(tcp);
  // Deno.connectTls takes no signal; the TCP connect above is where a dead host waits.
  const tls = await Deno.startTls(tcp, {
    hostname: origin.hostname,
    alpnProtocols: ["http/1.1"],
  });
  return new Http1Connection(tls);
}

/** Return a connection whose response was read to the end (`keepAliveMs`: the server's hint). */
export function putIdle(origin: Origin, c: Http1Connection, keepAliveMs: number | null): void {
  if (c.closed || c.eof || c.buffered > 0) return c.close();
  let list = idle.get(origin.key);
  if (!list) idle.set(origin.key, list = []);
  if (list.length >= MAX_IDLE) return c.close();
  // The server's own timeout, less a second for the request that would race it.
  const ms = keepAliveMs === null
    ? DEFAULT_IDLE_MS
    : Math.min(Math.max(keepAliveMs - 1000, 0), MAX_IDLE_MS);
  if (ms === 0) return c.close();
  const entry: Idle = { c, timer: undefined };
  const drop = () => {
    const at = list!.indexOf(entry);
    if (at < 0) return; // taken meanwhile: no longer ours
    list!.splice(at, 1);
    if (list!.length === 0 && idle.get(origin.key) === list) idle.delete(origin.key);
    clearTimeout(entry.timer);
    c.close();
  };
  const timer = setTimeout(drop, ms);
  Deno.unrefTimer(timer);
  entry.timer = timer;
  list.push(entry);
  // Neither the wait nor its timer keeps a finished process (a CLI) alive.
  c.conn.unref();
  // Anything a waiting connection reads (its close, an error, stray bytes) ends it.
  c.fill().then(drop, drop);
}
