/**
 * The one database client. With DATABASE_URL it is a pooled postgres.js client;
 * without it an embedded PGlite (with pgvector) is served over a local socket so
 * the same driver and the same SQL run in both modes.
 */
import postgres from "postgres";
import { openEmbedded } from "./embedded.ts";
import { type DatabaseWatch, watchDatabase } from "./database_watch.ts";

/** The postgres.js client or a transaction scope: every db function takes one first. */
export type Sql = postgres.Sql<Record<string, never>>;
export type Tx = postgres.TransactionSql<Record<string, never>>;
export type Executor = Sql | Tx;

export interface Database {
  sql: Sql;
  /** DATABASE_URL, or null for the embedded database. */
  url: string | null;
  embedded: boolean;
  /** Whether the database answers, in bounded time (/readyz, outage handling). */
  watch: DatabaseWatch;
  /** Whether the pgvector extension could be created. */
  vector: boolean;
  /** Connections this instance may open. */
  poolSize: number;
  /** This pool's `application_name`: its connections in `pg_stat_activity` (/metrics). */
  applicationName: string;
  /**
   * For the widget's first turn alone (db/first_turn.ts `insertKnownBotFirstTurn`):
   * on PostgreSQL a small pool of its own whose statements keep one generic plan,
   * instead of the main pool's custom plan made at every execution (0.6 to 1.0 ms
   * of planning in front of the commit `meta` waits for; docs/BENCHMARKS.md,
   * issue 25). Every other query keeps PostgreSQL's own choice. Embedded: `sql`.
   */
  turnSql: Sql;
  close(): Promise<void>;
}

/** Connections of the first-turn pool (`turnSql`), beside the main pool's. */
const TURN_POOL_SIZE = 2;

/** Options every client of ours shares (a bench's own client too, so ids read as numbers). */
export const CLIENT_OPTIONS: postgres.Options<Record<string, never>> = {
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

/**
 * A connection to PostgreSQL that is not established within this time fails
 * (postgres.js waits 30 s by default): during an outage a request gets its
 * 503 in bounded time instead of queueing behind connection attempts.
 */
export const CONNECT_TIMEOUT_SECONDS = 2;

/**
 * Delay before reconnecting after a failed connection, seconds. postgres.js
 * grows it to 20 s (3^retries / 100), and queries wait for it: after a
 * 10 s outage a request waited 10 to 18 s. Capped at 1 s, the pool is back
 * within a second of the database.
 */
export function reconnectDelay(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 1);
}

export async function openDatabase(
  opts: { databaseUrl: string | null; dataDir: string; poolSize?: number },
): Promise<Database> {
  if (opts.databaseUrl) {
    // Names this pool's connections, so /metrics can count them in pg_stat_activity.
    const applicationName = `parley:${crypto.randomUUID().slice(0, 8)}`;
    const sql = postgres(opts.databaseUrl, {
      ...CLIENT_OPTIONS,
      connection: { application_name: applicationName },
      max: opts.poolSize ?? 10,
      idle_timeout: 30,
      connect_timeout: CONNECT_TIMEOUT_SECONDS,
      backoff: reconnectDelay,
    }) as unknown as Sql;
    const watch = watchDatabase({ url: opts.databaseUrl, sql });
    const turnSql = postgres(opts.databaseUrl, {
      ...CLIENT_OPTIONS,
      connection: {
        application_name: `${applicationName}:turns`,
        plan_cache_mode: "force_generic_plan",
      },
      max: TURN_POOL_SIZE,
      idle_timeout: 30,
      connect_timeout: CONNECT_TIMEOUT_SECONDS,
      backoff: reconnectDelay,
    }) as unknown as Sql;
    return {
      sql,
      turnSql,
      url: opts.databaseUrl,
      embedded: false,
      vector: false,
      poolSize: opts.poolSize ?? 10,
      applicationName,
      watch,
      close: async () => {
        await watch.close();
        await Promise.all([sql.end({ timeout: 5 }), turnSql.end({ timeout: 5 })]);
      },
    };
  }
  const embedded = await openEmbedded(`${opts.dataDir}/pg`);
  // PGlite is single-connection: transactions from several sockets would
  // interleave, so requests queue on one connection instead.
  const sql = postgres({
    ...CLIENT_OPTIONS,
    host: "127.0.0.1",
    port: embedded.port,
    username: "postgres",
    database: "postgres",
    max: 1,
  }) as unknown as Sql;
  return {
    sql,
    turnSql: sql,
    url: null,
    embedded: true,
    vector: false,
    poolSize: 1,
    applicationName: "postgres.js",
    watch: watchDatabase({ url: null, sql }),
    close: async () => {
      await sql.end({ timeout: 5 });
      await embedded.close();
    },
  };
}
