/**
 * A database for outage tests, reachable only through a fault proxy: with
 * DATABASE_URL, a fresh database on that PostgreSQL; without it (the
 * embedded run), a PGlite of the test's own behind pglite-socket, the
 * embedded database's engine and socket, used with one connection as in
 * embedded mode (`env`).
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { EMBEDDED_EXTENSIONS } from "../../db/embedded.ts";
import { createTestDatabase } from "./test_server.ts";

export interface Database {
  host: { hostname: string; port: number };
  url: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function openDatabase(): Promise<Database> {
  const real = await createTestDatabase();
  if (real) {
    const u = new URL(real.url);
    return {
      host: { hostname: u.hostname, port: Number(u.port || 5432) },
      url: real.url,
      env: {},
      close: real.drop,
    };
  }
  const db = await PGlite.create({ extensions: EMBEDDED_EXTENSIONS });
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 8 });
  await server.start();
  const port = Number(String(server.getServerConn()).split(":").pop());
  return {
    host: { hostname: "127.0.0.1", port },
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    env: { DATABASE_POOL_SIZE: "1" },
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
