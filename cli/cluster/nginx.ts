/**
 * Debian's nginx as the cluster's load balancer: found on the machine, or
 * installed with apt-get when we run as root (the way .ci/run installs
 * Chromium), then run in the foreground as our own child process.
 */
import { nginxRouting, standaloneNginxConfig, type Upstream } from "./nginx_config.ts";

const CANDIDATES = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"];

export class NginxMissing extends Error {}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

async function findNginx(): Promise<string | null> {
  for (const path of CANDIDATES) if (await exists(path)) return path;
  return null;
}

/** The nginx binary, installing Debian's package first when it is missing and we may. */
export async function ensureNginx(log: (line: string) => void): Promise<string> {
  const found = await findNginx();
  if (found) return found;
  const root = Deno.uid() === 0;
  if (!root || !(await exists("/usr/bin/apt-get"))) {
    throw new NginxMissing(
      "nginx is not installed. Install it (Debian: sudo apt-get install -y nginx) and run again.",
    );
  }
  log("nginx not found: installing Debian's package (apt-get install -y nginx)…");
  const apt = (args: string[]) =>
    new Deno.Command("apt-get", {
      args,
      env: { DEBIAN_FRONTEND: "noninteractive" },
      stdout: "null",
      stderr: "piped",
    }).output();
  await apt(["update", "-qq"]);
  const install = await apt(["install", "-y", "-qq", "nginx"]);
  const path = await findNginx();
  if (!install.success || !path) {
    const why = new TextDecoder().decode(install.stderr).trim().split("\n").pop() ?? "";
    throw new NginxMissing(`apt-get could not install nginx${why ? `: ${why}` : ""}.`);
  }
  return path;
}

export interface RunningNginx {
  configPath: string;
  stop(): Promise<void>;
}

/** Writes the config under a fresh directory and starts nginx on `listen`. */
export async function startNginx(
  binary: string,
  upstreams: Upstream[],
  listen: string,
): Promise<RunningNginx> {
  const prefix = await Deno.makeTempDir({ prefix: "parley-nginx-" });
  // Started as root, nginx's workers run as an unprivileged user: they must be able to
  // enter the prefix to write a large request body to client_body/ (0700 made it a 500).
  await Deno.chmod(prefix, 0o755);
  const configPath = `${prefix}/nginx.conf`;
  await Deno.writeTextFile(
    configPath,
    standaloneNginxConfig(prefix, nginxRouting(upstreams, listen)),
  );
  const child = new Deno.Command(binary, {
    args: ["-p", prefix, "-c", configPath],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const exited = child.status.then(() => true);
  const port = Number(listen.split(":").pop());
  // Ready once the port accepts a connection; an early exit is a config or port error.
  for (let i = 0; i < 200; i++) {
    if (await Promise.race([exited, new Promise((r) => setTimeout(() => r(false), 25))])) {
      throw new Error(`nginx did not start: ${(await stderr).trim()}`);
    }
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch { /* not listening yet */ }
  }
  return {
    configPath,
    stop: async () => {
      try {
        child.kill("SIGTERM"); // fast stop: a graceful one would wait for every socket
      } catch { /* already gone */ }
      await child.status;
      await stderr.catch(() => "");
      await Deno.remove(prefix, { recursive: true }).catch(() => {});
    },
  };
}
