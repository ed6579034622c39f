/**
 * Embedded PostgreSQL: PGlite with pgvector, persisted under the data dir and
 * exposed on a loopback socket so postgres.js can talk to it like a server.
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedServer {
  port: number;
  close(): Promise<void>;
}

export async function openEmbedded(dir: string): Promise<EmbeddedServer> {
  await Deno.mkdir(dir, { recursive: true });
  const db = await PGlite.create({ dataDir: dir, extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
  await server.start();
  const port = Number(String(server.getServerConn()).split(":").pop());
  return {
    port,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
