/**
 * The one database client. With DATABASE_URL it is a pooled postgres.js client;
 * without it an embedded PGlite (with pgvector) is served over a local socket so
 * the same driver and the same SQL run in both modes.
 */
import postgres from "postgres";
import { openEmbedded } from "./embedded.ts";

/** The postgres.js client or a transaction scope: every db function takes one first. */
export type Sql = postgres.Sql<Record<string, never>>;
export type Tx = postgres.TransactionSql<Record<string, never>>;
export type Executor = Sql | Tx;

export interface Database {
  sql: Sql;
  embedded: boolean;
  /** Whether the pgvector extension could be created. */
  vector: boolean;
  close(): Promise<void>;
}

const COMMON: postgres.Options<Record<string, never>> = {
  onnotice: () => {},
  // bigint columns come back as JS numbers: our ids stay far below 2^53.
  types: {
    bigint: {
      to: 20,
      from: [20],
      serialize: (x: number) => String(x),
      parse: (x: string) => Number(x),
    },
  } as unknown as Record<string, never>,
  transform: { undefined: null },
};

export async function openDatabase(
  opts: { databaseUrl: string | null; dataDir: string; poolSize?: number },
): Promise<Database> {
  if (opts.databaseUrl) {
    const sql = postgres(opts.databaseUrl, {
      ...COMMON,
      max: opts.poolSize ?? 10,
      idle_timeout: 30,
    }) as unknown as Sql;
    return { sql, embedded: false, vector: false, close: () => sql.end({ timeout: 5 }) };
  }
  const embedded = await openEmbedded(`${opts.dataDir}/pg`);
  // PGlite is single-connection: transactions from several sockets would
  // interleave, so requests queue on one connection instead.
  const sql = postgres({
    ...COMMON,
    host: "127.0.0.1",
    port: embedded.port,
    username: "postgres",
    database: "postgres",
    max: 1,
  }) as unknown as Sql;
  return {
    sql,
    embedded: true,
    vector: false,
    close: async () => {
      await sql.end({ timeout: 5 });
      await embedded.close();
    },
  };
}
