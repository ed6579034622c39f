/**
 * Where the agent CLI keeps its session: `parley/agent.json` in the user's
 * config directory (XDG_CONFIG_HOME or ~/.config; %APPDATA% on Windows;
 * ~/Library/Application Support on macOS), or the file PARLEY_AGENT_CONFIG
 * names. The file holds a bearer token, so it is written with mode 600.
 */
import type { TokenSession } from "../../clients/agent_client.ts";

export interface StoredSession {
  server: string;
  realtime_key: string;
  session: TokenSession;
}

export function configPath(env: Record<string, string | undefined>): string {
  if (env.PARLEY_AGENT_CONFIG) return env.PARLEY_AGENT_CONFIG;
  const home = env.HOME ?? env.USERPROFILE ?? ".";
  let dir: string;
  if (Deno.build.os === "windows") dir = env.APPDATA ?? `${home}\\AppData\\Roaming`;
  else if (Deno.build.os === "darwin") dir = `${home}/Library/Application Support`;
  else dir = env.XDG_CONFIG_HOME || `${home}/.config`;
  return `${dir}/parley/agent.json`;
}

export async function readStored(path: string): Promise<StoredSession | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  try {
    const s = JSON.parse(text) as StoredSession;
    return typeof s.server === "string" && typeof s.session?.token === "string" ? s : null;
  } catch {
    return null;
  }
}

export async function writeStored(path: string, s: StoredSession): Promise<void> {
  const dir = path.replace(/[\\/][^\\/]*$/, "");
  if (dir && dir !== path) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  // Created 600 before the token is in it, and chmod-ed in case the file existed wider.
  await Deno.writeTextFile(path, JSON.stringify(s, null, 2) + "\n", { mode: 0o600 });
  if (Deno.build.os !== "windows") await Deno.chmod(path, 0o600);
}

export async function removeStored(path: string): Promise<void> {
  await Deno.remove(path).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
}
