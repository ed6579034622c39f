/**
 * A forward proxy that only tunnels (CONNECT, as clients use for https
 * through HTTPS_PROXY): every tunnel goes to `upstream`, whatever host the
 * client named, so a test can name a host that never resolves and still be
 * answered by its own TLS server. The CONNECT targets are recorded.
 */
export interface ConnectProxy {
  url: string;
  /** `host:port` of each CONNECT, in order. */
  targets: string[];
  close(): Promise<void>;
}

const dec = new TextDecoder();
const enc = new TextEncoder();

async function pipe(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(16 * 1024);
  try {
    for (;;) {
      const n = await from.read(buf);
      if (n === null) break;
      let off = 0;
      while (off < n) off += await to.write(buf.subarray(off, n));
    }
  } catch { /* either side closed */ }
  try {
    to.close();
  } catch { /* closed */ }
}

export function startConnectProxy(upstream: { hostname: string; port: number }): ConnectProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const targets: string[] = [];
  const open = new Set<Deno.Conn>();
  const tunnel = async (client: Deno.Conn) => {
    open.add(client);
    let head = "";
    const buf = new Uint8Array(4096);
    while (!head.includes("\r\n\r\n")) {
      const n = await client.read(buf).catch(() => null);
      if (n === null) return client.close();
      head += dec.decode(buf.subarray(0, n));
    }
    const [method, target] = head.split(" ");
    if (method !== "CONNECT" || !target) {
      await client.write(
        enc.encode("HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n"),
      );
      return client.close();
    }
    targets.push(target);
    const server = await Deno.connect(upstream);
    open.add(server);
    await client.write(enc.encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
    await Promise.all([pipe(client, server), pipe(server, client)]);
  };
  const loop = (async () => {
    for await (const conn of listener) tunnel(conn).catch(() => {});
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    targets,
    async close() {
      listener.close();
      for (const c of open) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await loop.catch(() => {});
    },
  };
}
