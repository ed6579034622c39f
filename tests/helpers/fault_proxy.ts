/**
 * A fault-injecting TCP proxy for outage tests: it sits between the server
 * and its database and can cut the link the way a failing database or
 * network does, then heal it, on the same port:
 * - `refuse`: live connections are closed and new ones refused (a stopped
 *   database: ECONNREFUSED);
 * - `stall`: live connections stop carrying bytes and new ones are accepted
 *   but never answered (a network partition).
 */

export type FaultMode = "refuse" | "stall";

export interface FaultProxy {
  port: number;
  /** `target` URL's credentials and path, pointed at the proxy. */
  urlFor(target: string): string;
  cut(mode: FaultMode): void;
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
      await Promise.all([pipe(client, link.upstream), pipe(link.upstream, client)]);
    } catch { /* either side went away */ }
    link.close();
  };

  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await from.read(buf);
      if (n === null) break;
      while (mode === "stall") await healed;
      let off = 0;
      while (off < n) off += await to.write(buf.subarray(off, n));
    }
    try {
      to.close();
    } catch { /* closed */ }
  };

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
      mode = m;
      if (m === "refuse") {
        listener?.close();
        listener = null;
        for (const link of [...links]) link.close();
      } else {
        healed = new Promise((r) => release = r);
      }
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
