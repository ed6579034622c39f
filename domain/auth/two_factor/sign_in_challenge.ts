/**
 * The short-lived challenge a login answers with when the password was right
 * but a second step is due: it names the user and the surface that asked,
 * lives five minutes in Kv (shared by every instance, hashed in its key), and
 * is closed when the second step succeeds.
 */
import type { Kv } from "../../../kv/kv.ts";
import type { Ability } from "../../../db/tokens.ts";
import { randomSecret, sha256Hex } from "../secrets.ts";

export const CHALLENGE_TTL_SECONDS = 300;

export interface SignInChallenge {
  /** `verify`: type a code; `enrol`: the workspace requires two-factor, set it up first. */
  purpose: "verify" | "enrol";
  userId: number;
  workspaceId: number;
  email: string;
  /** The surface whose login asked: its second step alone may complete it. */
  ability: Ability;
  deviceName: string | null;
}

const keyOf = async (challenge: string) => `two-factor-challenge:${await sha256Hex(challenge)}`;

export async function openChallenge(
  kv: Kv,
  c: SignInChallenge,
  now: Date,
): Promise<{ challenge: string; expiresAt: Date }> {
  const challenge = randomSecret(24);
  await kv.setCached(await keyOf(challenge), JSON.stringify(c), CHALLENGE_TTL_SECONDS * 1000);
  return { challenge, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000) };
}

/** The challenge's content, or null when unknown, expired or closed. */
export async function readChallenge(kv: Kv, challenge: string): Promise<SignInChallenge | null> {
  const raw = await kv.getCached(await keyOf(challenge));
  return raw ? JSON.parse(raw) as SignInChallenge : null;
}

/** Kv's `del` is for counters: a cached value is closed by an empty one that lapses at once. */
export async function closeChallenge(kv: Kv, challenge: string): Promise<void> {
  await kv.setCached(await keyOf(challenge), "", 1);
}
