/**
 * A workspace's webhook endpoints from the seed file, keyed by URL: an
 * existing one takes the file's description, events, enabled state and
 * secret. The seed gives the secret (`whsec_…`), so the receiver's operator
 * knows it; the file is the operator's own, so the URL is not held to the
 * API's https rule here, but every delivery passes the address policy.
 */
import type { Tx } from "../../db/client.ts";
import { insertEndpoint, listEndpoints, updateEndpoint } from "../../db/webhook_endpoints.ts";
import { decryptText, encryptText } from "../auth/secrets.ts";

export interface SeedWebhook {
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  secret: string;
}

export async function seedWebhooks(
  tx: Tx,
  deps: { appKey: CryptoKey; now: Date },
  workspaceId: number,
  entries: SeedWebhook[],
): Promise<void> {
  if (entries.length === 0) return;
  const existing = new Map((await listEndpoints(tx, workspaceId)).map((e) => [e.url, e]));
  for (const w of entries) {
    const found = existing.get(w.url);
    if (!found) {
      await insertEndpoint(tx, workspaceId, {
        url: w.url,
        description: w.description,
        events: w.events,
        enabled: w.enabled,
        secretEncrypted: await encryptText(deps.appKey, w.secret),
        now: deps.now,
      });
      continue;
    }
    await updateEndpoint(tx, workspaceId, found.id, {
      description: w.description,
      events: w.events,
      enabled: w.enabled,
    }, deps.now);
    const same = await decryptText(deps.appKey, found.secret_encrypted).catch(() => null);
    if (same !== w.secret) {
      await tx`UPDATE webhook_endpoints SET secret_encrypted = ${await encryptText(
        deps.appKey,
        w.secret,
      )} WHERE id = ${found.id}`;
    }
  }
}
