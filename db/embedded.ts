/**
 * Embedded PostgreSQL: PGlite with pgvector and pg_trgm (typo-tolerant
 * retrieval), persisted under the data dir and exposed on a loopback socket so
 * postgres.js can talk to it like a server.
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedServer {
  port: number;
  close(): Promise<void>;
}

/** Thrown when another process (a running server, the admin CLI) holds the data dir. */
export class EmbeddedDatabaseBusy extends Error {}

/**
 * An exclusive OS lock beside the data dir: PGlite itself does not detect a
 * second process, and two writers would corrupt the database. The lock dies
 * with the process, so a crash never leaves a stale one behind.
 */
async function lockDataDir(dir: string): Promise<Deno.FsFile> {
  const file = await Deno.open(`${dir}.lock`, { create: true, write: true });
  if (!(await file.tryLock(true))) {
    file.close();
    throw new EmbeddedDatabaseBusy(
      `The embedded database in ${dir} is in use by another process (a running Parley ` +
        `server?). Stop it first, or set DATABASE_URL so several processes can share PostgreSQL.`,
    );
  }
  return file;
}

export async function openEmbedded(dir: string): Promise<EmbeddedServer> {
  await Deno.mkdir(dir, { recursive: true });
  const lock = await lockDataDir(dir);
  let db: PGlite;
  try {
    db = await PGlite.create({ dataDir: dir, extensions: { vector, pg_trgm } });
  } catch (err) {
    lock.close();
    throw err;
  }
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
  await server.start();
  const port = Number(String(server.getServerConn()).split(":").pop());
  return {
    port,
    close: async () => {
      await server.stop();
      await db.close();
      lock.close(); // closing the handle releases the lock
    },
  };
}
