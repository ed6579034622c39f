/**
 * A fault-injecting TCP proxy for outage tests: it sits between the server
 * and its database and can cut the link the way a failing database or
 * network does, then heal it, on the same port:
 * - `refuse`: live connections are closed and new ones refused (a stopped
 *   database: ECONNREFUSED);
 * - `stall`: live connections stop carrying bytes and new ones are accepted
 *   but never answered (a network partition);
 * - `stallAfterCommit()`: traffic flows until the server confirms the next
 *   COMMIT, then stalls: the application has committed and can touch the
 *   database no more (the moment a crash between commit and publish loses).
 */

export type FaultMode = "refuse" | "stall";

export interface FaultProxy {
  port: number;
  /** `target` URL's credentials and path, pointed at the proxy. */
  urlFor(target: string): string;
  cut(mode: FaultMode): void;
  /** Stall every link once the database has answered the next COMMIT (and its ReadyForQuery). */
  stallAfterCommit(): void;
  heal(): void;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

interface Link {
  client: Deno.Conn;
  upstream: Deno.Conn | null;
  close(): void;
}

export function startFaultProxy(target: { hostname: string; port: number }): FaultProxy {
  let listener: Deno.Listener | null = null;
  let mode: FaultMode | null = null;
  let accepted = 0;
  let port = 0;
  const links = new Set<Link>();
  // A stalled link holds bytes here until it heals or dies; nothing is forwarded meanwhile.
  let healed: Promise<void> = Promise.resolve();
  let release: () => void = () => {};
  let commitTrap = false;

  const listen = () => {
    listener = Deno.listen({ hostname: "127.0.0.1", port });
    port = (listener.addr as Deno.NetAddr).port;
    acceptLoop(listener);
  };

  const acceptLoop = async (l: Deno.Listener) => {
    try {
      for await (const conn of l) {
        accepted++;
        serve(conn);
      }
    } catch { /* listener closed */ }
  };

  const serve = async (client: Deno.Conn) => {
    const link: Link = {
      client,
      upstream: null,
      close() {
        links.delete(link);
        for (const c of [client, link.upstream]) {
          try {
            c?.close();
          } catch { /* already closed */ }
        }
      },
    };
    links.add(link);
    try {
      while (mode === "stall") await healed;
      link.upstream = await Deno.connect(target);
      await Promise.all([pipe(client, link.upstream, false), pipe(link.upstream, client, true)]);
    } catch { /* either side went away */ }
    link.close();
  };

  const pipe = async (from: Deno.Conn, to: Deno.Conn, fromServer: boolean) => {
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await from.read(buf);
      if (n === null) break;
      while (mode === "stall") await healed;
      // Through the end of the COMMIT's CommandComplete and the ReadyForQuery after it.
      const cutAt = fromServer && commitTrap ? commitEnd(buf.subarray(0, n)) : -1;
      const end = cutAt >= 0 ? Math.min(n, cutAt + 6) : n;
      // Stalled before the client can read its COMMIT's answer, so nothing it sends after passes.
      if (cutAt >= 0) {
        commitTrap = false;
        stall();
      }
      let off = 0;
      while (off < end) off += await to.write(buf.subarray(off, end));
      if (cutAt >= 0) {
        await healed;
        while (off < n) off += await to.write(buf.subarray(off, n));
      }
    }
    try {
      to.close();
    } catch { /* closed */ }
  };

  function stall() {
    mode = "stall";
    healed = new Promise((r) => release = r);
  }

  listen();
  return {
    get port() {
      return port;
    },
    get accepted() {
      return accepted;
    },
    urlFor(url: string) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    cut(m) {
      if (m === "refuse") {
        mode = m;
        listener?.close();
        listener = null;
        for (const link of [...links]) link.close();
      } else {
        stall();
      }
    },
    stallAfterCommit() {
      commitTrap = true;
    },
    heal() {
      const was = mode;
      mode = null;
      release();
      if (was === "refuse") listen();
    },
    close() {
      mode = null;
      release();
      listener?.close();
      listener = null;
      for (const link of [...links]) link.close();
      return Promise.resolve();
    },
  };
}

/** CommandComplete "COMMIT": 'C', length 11, the tag and its NUL. */
const COMMIT_COMPLETE = new Uint8Array([
  0x43,
  0,
  0,
  0,
  11,
  ...new TextEncoder().encode("COMMIT"),
  0,
]);

/** The index just past a COMMIT's CommandComplete in `chunk`, or -1. */
function commitEnd(chunk: Uint8Array): number {
  outer: for (let i = 0; i + COMMIT_COMPLETE.length <= chunk.length; i++) {
    for (let j = 0; j < COMMIT_COMPLETE.length; j++) {
      if (chunk[i + j] !== COMMIT_COMPLETE[j]) continue outer;
    }
    return i + COMMIT_COMPLETE.length;
  }
  return -1;
}
