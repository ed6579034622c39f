/**
 * The VAPID key pair push delivery signs with: the environment's, or (where
 * VAPID_GENERATE is on, by default in embedded mode) one generated on first
 * start and kept under the data dir like APP_KEY, so push works with no
 * set-up and subscriptions survive restarts. Null where push is not set up.
 */
import webpush from "web-push";
import type { NotificationConfig } from "./config.ts";

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

export async function resolveVapidKeys(
  config: NotificationConfig,
  dataDir: string,
): Promise<VapidKeys | null> {
  const subject = config.vapidSubject;
  if (config.vapidPublicKey && config.vapidPrivateKey) {
    return { publicKey: config.vapidPublicKey, privateKey: config.vapidPrivateKey, subject };
  }
  if (!config.vapidGenerate) return null;
  const path = `${dataDir}/vapid_keys.json`;
  const read = async () => {
    const stored = JSON.parse(await Deno.readTextFile(path));
    return { publicKey: String(stored.publicKey), privateKey: String(stored.privateKey), subject };
  };
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const pair = webpush.generateVAPIDKeys();
  await Deno.mkdir(dataDir, { recursive: true });
  await Deno.writeTextFile(
    path,
    JSON.stringify({ publicKey: pair.publicKey, privateKey: pair.privateKey }) + "\n",
    { mode: 0o600, createNew: true },
  ).catch((err) => {
    // Another process won the race: use its pair.
    if (err instanceof Deno.errors.AlreadyExists) return;
    throw err;
  });
  return await read();
}
