/**
 * `deno task cluster [--instances 3] [--port 8080]`: the compose topology on
 * this machine. N instances on DATABASE_URL and REDIS_URL behind Debian's
 * nginx, one address printed, everything stopped on Ctrl-C. See
 * docs/deployment.md.
 */
import { parseArgs } from "./args.ts";
import { resolveAppKey } from "../app/app_key.ts";
import { startCluster } from "./cluster/start_cluster.ts";
import { NginxMissing } from "./cluster/nginx.ts";

function fail(message: string): never {
  console.error(`cluster: ${message}`);
  Deno.exit(1);
}

function intFlag(value: string | true | undefined, name: string, min: number, max: number) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    fail(`--${name} must be an integer from ${min} to ${max}.`);
  }
  return n;
}

if (import.meta.main) {
  const args = parseArgs(Deno.args);
  const instances = intFlag(args.flags.get("instances"), "instances", 1, 32) ?? 3;
  const port = intFlag(args.flags.get("port"), "port", 0, 65535) ?? 8080;
  const databaseUrl = Deno.env.get("DATABASE_URL");
  const redisUrl = Deno.env.get("REDIS_URL");
  if (!databaseUrl || !redisUrl) {
    fail(
      "set DATABASE_URL and REDIS_URL: several instances share one PostgreSQL and one Redis " +
        "(the embedded database belongs to one process).",
    );
  }
  const dataDir = Deno.env.get("DATA_DIR") ?? "./data";
  // Every instance must hold the same APP_KEY: the given one, or one generated once here.
  const appKey = Deno.env.get("APP_KEY") ||
    "base64:" + btoa(String.fromCharCode(...await resolveAppKey(null, dataDir)));
  try {
    const cluster = await startCluster({
      instances,
      port,
      env: {
        ...Deno.env.toObject(),
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        APP_KEY: appKey,
      },
      dataDir,
      output: "inherit",
      log: (line) => console.log(line),
      supervise: true,
    });
    console.log(
      [
        `Parley cluster: ${instances} instance(s) behind nginx at ${cluster.url}`,
        ...cluster.instances.map((i) => `  instance ${i.index}: ${i.url}`),
        `  nginx config: ${cluster.nginxConfig}`,
        "Ctrl-C stops everything.",
      ].join("\n"),
    );
    let stopping = false;
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(sig, async () => {
        if (stopping) return;
        stopping = true;
        console.log("cluster: stopping nginx and the instances…");
        await cluster.stop();
        console.log("cluster: stopped.");
        Deno.exit(0);
      });
    }
  } catch (err) {
    fail(
      err instanceof NginxMissing ? err.message : String(err instanceof Error ? err.message : err),
    );
  }
}
