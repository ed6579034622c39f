/**
 * APP_KEY resolution: the environment's, or in embedded mode one generated on
 * first start and kept under the data dir, so a restart can still decrypt.
 */
import { decodeAppKey } from "./config.ts";

export async function resolveAppKey(
  configured: string | null,
  dataDir: string,
): Promise<Uint8Array> {
  if (configured) return decodeAppKey(configured);
  const path = `${dataDir}/app_key`;
  try {
    return decodeAppKey((await Deno.readTextFile(path)).trim());
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const encoded = "base64:" + btoa(String.fromCharCode(...raw));
  await Deno.mkdir(dataDir, { recursive: true });
  await Deno.writeTextFile(path, encoded + "\n", { mode: 0o600, createNew: true }).catch(
    (err) => {
      // Another process won the race: use its key.
      if (err instanceof Deno.errors.AlreadyExists) return;
      throw err;
    },
  );
  return decodeAppKey((await Deno.readTextFile(path)).trim());
}
