/**
 * Configuration read once from the environment. A bad value stops the start
 * with one line naming the variable, so operators never chase a stack trace.
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface Config {
  port: number;
  baseUrl: string;
  databaseUrl: string | null;
  /** Connections to DATABASE_URL's PostgreSQL (DATABASE_POOL_SIZE, default 10). */
  databasePoolSize: number;
  redisUrl: string | null;
  /** Raw APP_KEY; embedded mode may leave it null and let the data dir provide one. */
  appKey: string | null;
  dataDir: string;
  aiBaseUrl: string | null;
  /** Server-wide provider key used when a workspace stored none (AI_API_KEY; single-company installs). */
  aiApiKey: string | null;
  /** Per-attempt timeout of an AI provider call (AI_TIMEOUT_MS, default 30000). */
  aiTimeoutMs: number;
  seedFile: string | null;
  demo: boolean;
  logLevel: LogLevel;
  trustedProxies: string[];
  crawlAllowPrivate: boolean;
  /** Exact `host:port` pairs the crawler may reach even when private (tests, intranets). */
  crawlAllowHosts: string[];
  crawlMaxPages: number;
  crawlMaxDepth: number;
  /** Failed logins per e-mail and IP before the shared lockout starts. */
  loginMaxAttempts: number;
  loginLockoutSeconds: number;
  workerConcurrency: number;
  hostname: string;
  /** Key prefix in Redis, so several deployments (or test runs) can share one server. */
  redisPrefix: string;
  /** Public Pusher app key: sockets connect to `/app/{key}` (REALTIME_KEY). */
  realtimeKey: string;
  /** Signing secret of channel subscriptions (REALTIME_SECRET); null: derived from APP_KEY. */
  realtimeSecret: string | null;
  /** Seconds of socket silence before the server pings (REALTIME_ACTIVITY_TIMEOUT). */
  realtimeActivityTimeout: number;
  /** Seconds a stopping instance gives streams still open (SHUTDOWN_GRACE_SECONDS). */
  shutdownGraceSeconds: number;

  /** Seconds between re-checks of the tokens behind channel subscriptions (REALTIME_RECHECK_SECONDS). */
  realtimeRecheckSeconds: number;
  /** Seconds without a batch from a shared page before its share ends (SCREEN_SHARE_IDLE_SECONDS). */
  screenShareIdleSeconds: number;
  /** Seconds between retention runs, across all instances (RETENTION_INTERVAL_SECONDS). */
  retentionIntervalSeconds: number;
  /** Seconds between checks for url sources due a scheduled sync (SITE_SYNC_CHECK_SECONDS). */
  siteSyncCheckSeconds: number;
  /** Conversations (or visitors) deleted per retention transaction (RETENTION_BATCH_SIZE). */
  retentionBatchSize: number;
  /** Port of the socket server's own listener (REALTIME_PORT; default PORT + 1, or 0 with PORT=0). */
  realtimePort: number;
  /**
   * Where clients open sockets (REALTIME_URL, `ws(s)://host[:port]`); null:
   * BASE_URL's host on the realtime port, filled in once it listens.
   */
  realtimeUrl: string | null;
  /** Sockets one client address may hold open across all instances (REALTIME_MAX_PER_IP). */
  realtimeMaxPerIp: number;
  /**
   * Customer context: where the Shopify Admin API and the Stripe API are
   * reached (null: the real `https://{shop}` and `https://api.stripe.com`),
   * and how long one call may take.
   */
  shopifyBaseUrl: string | null;
  stripeBaseUrl: string | null;
  customerContextTimeoutMs: number;
  /** Notifications (docs/notifications.md). */
  notifications: NotificationConfig;
  /** Hours between syncs of a linked store's product catalogue (CATALOGUE_SYNC_HOURS). */
  catalogueSyncHours: number;
  /** Days an audit-log row is kept (AUDIT_RETENTION_DAYS, default 365; docs/accounts.md). */
  auditRetentionDays: number;
  /** Seconds between the audit log's retention sweeps (AUDIT_PRUNE_SECONDS, default 3600). */
  auditPruneSeconds: number;
  /**
   * Table maintenance where PostgreSQL's autovacuum does not run
   * (docs/operations.md): DB_MAINTENANCE `auto` (default: the embedded
   * database, or a server with autovacuum off), `on` or `off`, every
   * DB_MAINTENANCE_SECONDS (default 30).
   */
  dbMaintenance: "auto" | "on" | "off";
  dbMaintenanceSeconds: number;
  /**
   * Seconds between rounds of the reports' message rollup (REPORT_ROLLUP_SECONDS,
   * default 30; 0: off, the report then counts unrolled messages itself).
   */
  reportRollupSeconds: number;

  /**
   * Customer-context hosts allowed although private (`host` or `host:port`):
   * CONTEXT_ALLOW_HOSTS, the integrations' own allowance (tests' fakes,
   * an egress proxy on the intranet). The crawler's settings do not apply.
   */
  integrationAllowHosts: string[];

  /** Outbound webhooks (docs/webhooks.md). */
  webhooks: WebhookConfig;

  /**
   * Bearer token of `GET /metrics` (METRICS_TOKEN, at least 16 characters);
   * null: no metrics are kept and `/metrics` is not found (docs/operations.md).
   */
  metricsToken: string | null;
}

export interface WebhookConfig {
  /** Hosts (`host` or `host:port`) an endpoint may reach over http and although private. */
  allowHosts: string[];
  /** One attempt's time limit (WEBHOOK_TIMEOUT_MS, default 10000). */
  timeoutMs: number;
  /** First retry delay; each later one is three times longer, capped at 4320 of these (6 h). */
  retryBaseMs: number;
  /** Retries stop, and a failing endpoint is disabled, after this long (default a day). */
  retryWindowSeconds: number;
  /** Deliveries in flight per instance; 0 delivers nothing from this instance. */
  concurrency: number;
  pollMs: number;
  leaseSeconds: number;
  /** How often the recovery sweep looks for events a dead instance did not record. */
  sweepSeconds: number;
}

export interface NotificationConfig {
  /** VAPID key pair (base64url, as web-push prints them) and the contact subject. */
  vapidPublicKey: string | null;
  vapidPrivateKey: string | null;
  vapidSubject: string;
  /** Generate a key pair under DATA_DIR when none is set (default: embedded mode only). */
  vapidGenerate: boolean;
  /** Push endpoint hosts allowed although private (`host` or `host:port`, tests). */
  pushAllowHosts: string[];
  /** Extra CA certificates (PEM file) trusted for push delivery only. */
  pushCaFile: string | null;
  pushTimeoutMs: number;
  concurrency: number;
  smtpUrl: string | null;
  mailFrom: string;
  /** How long alerts gather before one e-mail carries them. */
  emailBatchSeconds: number;
  /** Default waiting-for-a-human threshold; a workspace may set its own. */
  slaBreachMinutes: number;
  /** How often the SLA check runs. */
  slaCheckSeconds: number;
}

/** Thrown for an unusable variable; main prints `message` alone and exits 1. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function parsePort(env: Env): number {
  const raw = env.PORT;
  if (raw === undefined || raw === "") return 8080;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${raw}"`);
  }
  return port;
}

function parseUrl(name: string, raw: string | undefined, schemes: string[]): string | null {
  if (raw === undefined || raw === "") return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${redact(raw)}"`);
  }
  if (!schemes.includes(url.protocol)) {
    throw new ConfigError(`${name} must use ${schemes.join(" or ")}, got "${url.protocol}"`);
  }
  return raw;
}

/** Hide credentials in a URL before it reaches an error line. */
function redact(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, "//***@");
}

function parseBool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw.toLowerCase())) return true;
  if (["0", "false", "no", "off"].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be 1 or 0 (true/false), got "${raw}"`);
}

function parseIntRange(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

/** APP_KEY is 32 bytes, given as base64 (optionally prefixed `base64:`) or 64 hex digits. */
export function decodeAppKey(raw: string): Uint8Array {
  const body = raw.startsWith("base64:") ? raw.slice(7) : raw;
  if (/^[0-9a-fA-F]{64}$/.test(body)) {
    return Uint8Array.from(body.match(/../g)!.map((h) => parseInt(h, 16)));
  }
  try {
    const bytes = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
    if (bytes.length === 32) return bytes;
  } catch { /* fall through to the error below */ }
  throw new ConfigError("APP_KEY must be 32 bytes as base64 (base64:...) or 64 hex digits");
}

function parseAiTimeout(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 30_000;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 100 || ms > 600_000) {
    throw new ConfigError(`AI_TIMEOUT_MS must be an integer from 100 to 600000, got "${raw}"`);
  }
  return ms;
}

function parseRealtimeKey(raw: string | undefined): string {
  if (raw === undefined || raw === "") return "parley";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw)) {
    throw new ConfigError(`REALTIME_KEY must be 1-64 letters, digits, _ or -, got "${raw}"`);
  }
  return raw;
}

function parseRealtimeSecret(raw: string | undefined): string | null {
  if (raw === undefined || raw === "") return null;
  if (raw.length < 16) throw new ConfigError("REALTIME_SECRET must be at least 16 characters");
  return raw;
}

export function loadConfig(env: Env = Deno.env.toObject()): Config {
  const port = parsePort(env);
  const databaseUrl = parseUrl("DATABASE_URL", env.DATABASE_URL, ["postgres:", "postgresql:"]);
  const redisUrl = parseUrl("REDIS_URL", env.REDIS_URL, ["redis:", "rediss:"]);
  const baseUrl = parseUrl("BASE_URL", env.BASE_URL, ["http:", "https:"]) ??
    `http://localhost:${port}`;
  const aiBaseUrl = parseUrl("AI_BASE_URL", env.AI_BASE_URL, ["http:", "https:"]);
  const appKey = env.APP_KEY ? env.APP_KEY : null;
  if (appKey) decodeAppKey(appKey);
  if (databaseUrl && !appKey) {
    throw new ConfigError("APP_KEY is required when DATABASE_URL is set");
  }
  const logLevel = (env.LOG_LEVEL || "info").toLowerCase();
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) {
    throw new ConfigError(
      `LOG_LEVEL must be one of debug, info, warn, error, silent, got "${env.LOG_LEVEL}"`,
    );
  }
  const concurrency = Number(env.WORKER_CONCURRENCY ?? "2");
  if (!Number.isInteger(concurrency) || concurrency < 0 || concurrency > 64) {
    throw new ConfigError(
      `WORKER_CONCURRENCY must be an integer from 0 to 64, got "${env.WORKER_CONCURRENCY}"`,
    );
  }
  return {
    port,
    hostname: env.HOST || "0.0.0.0",
    baseUrl: baseUrl.replace(/\/+$/, ""),
    databaseUrl,
    databasePoolSize: parseIntRange("DATABASE_POOL_SIZE", env.DATABASE_POOL_SIZE, 10, 1, 200),
    redisUrl,
    appKey,
    dataDir: env.DATA_DIR || "./data",
    aiBaseUrl: aiBaseUrl?.replace(/\/+$/, "") ?? null,
    aiTimeoutMs: parseAiTimeout(env.AI_TIMEOUT_MS),
    aiApiKey: env.AI_API_KEY?.trim() || null,
    seedFile: env.SEED_FILE || null,
    demo: parseBool("DEMO", env.DEMO, databaseUrl === null),
    logLevel: logLevel as LogLevel,
    trustedProxies: (env.TRUSTED_PROXIES ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    crawlAllowPrivate: parseBool("CRAWL_ALLOW_PRIVATE", env.CRAWL_ALLOW_PRIVATE, false),
    crawlAllowHosts: (env.CRAWL_ALLOW_HOSTS ?? "").split(",").map((s) => s.trim().toLowerCase())
      .filter(Boolean),
    crawlMaxPages: parseIntRange("CRAWL_MAX_PAGES", env.CRAWL_MAX_PAGES, 100, 1, 10_000),
    crawlMaxDepth: parseIntRange("CRAWL_MAX_DEPTH", env.CRAWL_MAX_DEPTH, 3, 0, 20),
    loginMaxAttempts: parseIntRange("LOGIN_MAX_ATTEMPTS", env.LOGIN_MAX_ATTEMPTS, 5, 1, 100),
    loginLockoutSeconds: parseIntRange(
      "LOGIN_LOCKOUT_SECONDS",
      env.LOGIN_LOCKOUT_SECONDS,
      900,
      1,
      86_400,
    ),
    workerConcurrency: concurrency,
    redisPrefix: env.REDIS_PREFIX || "parley:",
    realtimeKey: parseRealtimeKey(env.REALTIME_KEY),
    realtimeSecret: parseRealtimeSecret(env.REALTIME_SECRET),
    realtimeActivityTimeout: parseIntRange(
      "REALTIME_ACTIVITY_TIMEOUT",
      env.REALTIME_ACTIVITY_TIMEOUT,
      120,
      1,
      600,
    ),
    shutdownGraceSeconds: parseIntRange(
      "SHUTDOWN_GRACE_SECONDS",
      env.SHUTDOWN_GRACE_SECONDS,
      10,
      0,
      600,
    ),
    realtimeRecheckSeconds: parseIntRange(
      "REALTIME_RECHECK_SECONDS",
      env.REALTIME_RECHECK_SECONDS,
      5,
      1,
      300,
    ),
    retentionIntervalSeconds: parseIntRange(
      "RETENTION_INTERVAL_SECONDS",
      env.RETENTION_INTERVAL_SECONDS,
      21_600,
      1,
      86_400,
    ),
    siteSyncCheckSeconds: parseIntRange(
      "SITE_SYNC_CHECK_SECONDS",
      env.SITE_SYNC_CHECK_SECONDS,
      60,
      1,
      3600,
    ),
    retentionBatchSize: parseIntRange(
      "RETENTION_BATCH_SIZE",
      env.RETENTION_BATCH_SIZE,
      200,
      1,
      10_000,
    ),
    screenShareIdleSeconds: parseIntRange(
      "SCREEN_SHARE_IDLE_SECONDS",
      env.SCREEN_SHARE_IDLE_SECONDS,
      60,
      2,
      3600,
    ),
    realtimePort: parseIntRange(
      "REALTIME_PORT",
      env.REALTIME_PORT,
      port === 0 ? 0 : port === 65535 ? 65534 : port + 1,
      0,
      65535,
    ),
    realtimeUrl: parseUrl("REALTIME_URL", env.REALTIME_URL, ["ws:", "wss:"])?.replace(/\/+$/, "") ??
      null,
    realtimeMaxPerIp: parseIntRange(
      "REALTIME_MAX_PER_IP",
      env.REALTIME_MAX_PER_IP,
      100,
      1,
      1_000_000,
    ),
    shopifyBaseUrl: parseUrl("SHOPIFY_BASE_URL", env.SHOPIFY_BASE_URL, ["http:", "https:"])
      ?.replace(/\/+$/, "") ?? null,
    stripeBaseUrl: parseUrl("STRIPE_BASE_URL", env.STRIPE_BASE_URL, ["http:", "https:"])
      ?.replace(/\/+$/, "") ?? null,
    customerContextTimeoutMs: parseIntRange(
      "CONTEXT_TIMEOUT_MS",
      env.CONTEXT_TIMEOUT_MS,
      4000,
      100,
      60_000,
    ),
    notifications: parseNotifications(env, databaseUrl === null),
    catalogueSyncHours: parseIntRange(
      "CATALOGUE_SYNC_HOURS",
      env.CATALOGUE_SYNC_HOURS,
      6,
      1,
      168,
    ),
    auditRetentionDays: parseIntRange(
      "AUDIT_RETENTION_DAYS",
      env.AUDIT_RETENTION_DAYS,
      365,
      1,
      36_500,
    ),
    auditPruneSeconds: parseIntRange(
      "AUDIT_PRUNE_SECONDS",
      env.AUDIT_PRUNE_SECONDS,
      3600,
      1,
      86_400,
    ),
    dbMaintenance: parseDbMaintenance(env.DB_MAINTENANCE),
    dbMaintenanceSeconds: parseIntRange(
      "DB_MAINTENANCE_SECONDS",
      env.DB_MAINTENANCE_SECONDS,
      30,
      1,
      86_400,
    ),
    reportRollupSeconds: parseIntRange(
      "REPORT_ROLLUP_SECONDS",
      env.REPORT_ROLLUP_SECONDS,
      30,
      0,
      86_400,
    ),

    metricsToken: parseMetricsToken(env.METRICS_TOKEN),
    integrationAllowHosts: (env.CONTEXT_ALLOW_HOSTS ?? "").split(",")
      .map((s) => s.trim().toLowerCase()).filter(Boolean),

    webhooks: parseWebhooks(env),
  };
}

function parseDbMaintenance(value: string | undefined): "auto" | "on" | "off" {
  const v = (value ?? "auto").trim().toLowerCase() || "auto";
  if (v === "auto" || v === "on" || v === "off") return v;
  throw new ConfigError(`DB_MAINTENANCE must be auto, on or off, not "${value}"`);
}

function parseWebhooks(env: Env): WebhookConfig {
  return {
    allowHosts: (env.WEBHOOK_ALLOW_HOSTS ?? "").split(",").map((s) => s.trim().toLowerCase())
      .filter(Boolean),
    timeoutMs: parseIntRange("WEBHOOK_TIMEOUT_MS", env.WEBHOOK_TIMEOUT_MS, 10_000, 100, 60_000),
    retryBaseMs: parseIntRange(
      "WEBHOOK_RETRY_BASE_MS",
      env.WEBHOOK_RETRY_BASE_MS,
      5_000,
      10,
      600_000,
    ),
    retryWindowSeconds: parseIntRange(
      "WEBHOOK_RETRY_WINDOW_SECONDS",
      env.WEBHOOK_RETRY_WINDOW_SECONDS,
      86_400,
      1,
      604_800,
    ),
    concurrency: parseIntRange("WEBHOOK_CONCURRENCY", env.WEBHOOK_CONCURRENCY, 8, 0, 128),
    pollMs: parseIntRange("WEBHOOK_POLL_MS", env.WEBHOOK_POLL_MS, 1_000, 10, 60_000),
    leaseSeconds: parseIntRange("WEBHOOK_LEASE_SECONDS", env.WEBHOOK_LEASE_SECONDS, 60, 1, 3_600),
    sweepSeconds: parseIntRange("WEBHOOK_SWEEP_SECONDS", env.WEBHOOK_SWEEP_SECONDS, 30, 1, 3_600),
  };
}

function parseNotifications(env: Env, embedded: boolean): NotificationConfig {
  const pub = env.VAPID_PUBLIC_KEY || null;
  const priv = env.VAPID_PRIVATE_KEY || null;
  if ((pub === null) !== (priv === null)) {
    throw new ConfigError("VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must be set together");
  }
  if (pub && !/^[A-Za-z0-9_-]{87}$/.test(pub)) {
    throw new ConfigError("VAPID_PUBLIC_KEY must be 65 bytes as URL-safe base64 (87 characters)");
  }
  if (priv && !/^[A-Za-z0-9_-]{43}$/.test(priv)) {
    throw new ConfigError("VAPID_PRIVATE_KEY must be 32 bytes as URL-safe base64 (43 characters)");
  }
  const subject = env.VAPID_SUBJECT || "mailto:admin@localhost";
  if (!/^(mailto:|https:\/\/)/.test(subject)) {
    throw new ConfigError(`VAPID_SUBJECT must be a mailto: or https: URL, got "${subject}"`);
  }
  return {
    vapidPublicKey: pub,
    vapidPrivateKey: priv,
    vapidSubject: subject,
    vapidGenerate: parseBool("VAPID_GENERATE", env.VAPID_GENERATE, embedded),
    pushAllowHosts: (env.PUSH_ALLOW_HOSTS ?? "").split(",").map((s) => s.trim().toLowerCase())
      .filter(Boolean),
    pushCaFile: env.PUSH_CA_FILE || null,
    pushTimeoutMs: parseIntRange("PUSH_TIMEOUT_MS", env.PUSH_TIMEOUT_MS, 10_000, 100, 120_000),
    concurrency: parseIntRange("NOTIFY_CONCURRENCY", env.NOTIFY_CONCURRENCY, 8, 0, 64),
    smtpUrl: parseUrl("SMTP_URL", env.SMTP_URL, ["smtp:", "smtps:"]),
    mailFrom: env.MAIL_FROM || "Parley <parley@localhost>",
    emailBatchSeconds: parseIntRange(
      "EMAIL_BATCH_SECONDS",
      env.EMAIL_BATCH_SECONDS,
      120,
      0,
      86_400,
    ),
    slaBreachMinutes: parseIntRange("SLA_BREACH_MINUTES", env.SLA_BREACH_MINUTES, 5, 1, 10_080),
    slaCheckSeconds: parseIntRange("SLA_CHECK_SECONDS", env.SLA_CHECK_SECONDS, 30, 1, 3_600),
  };
}

/** A guessable token would put the metrics on the public surface after all. */
function parseMetricsToken(raw: string | undefined): string | null {
  const token = raw?.trim();
  if (!token) return null;
  if (token.length < 16 || /\s/.test(token)) {
    throw new ConfigError("METRICS_TOKEN must be at least 16 characters without spaces");
  }
  return token;
}
