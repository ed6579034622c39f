/// <reference lib="dom" />
/** The signed-in agent's session, kept in localStorage so a reload stays signed in. */
import type { TokenSession } from "../../clients/agent_client.ts";

const KEY = "parley:agent-session";

export function loadSession(): TokenSession | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as TokenSession;
    if (typeof s.token !== "string" || Date.parse(s.expires_at) <= Date.now()) return null;
    return s;
  } catch {
    return null;
  }
}

export function saveSession(s: TokenSession): void {
  localStorage.setItem(KEY, JSON.stringify(s));
}

export function clearSession(): void {
  localStorage.removeItem(KEY);
}
