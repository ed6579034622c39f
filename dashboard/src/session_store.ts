/// <reference lib="dom" />
/** The signed-in dashboard session, kept in localStorage so a reload stays signed in. */
import type { DashboardSession } from "../../clients/dashboard_client.ts";

const KEY = "parley:dashboard-session";

export function loadSession(): DashboardSession | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as DashboardSession;
    if (typeof s.token !== "string" || Date.parse(s.expires_at) <= Date.now()) return null;
    return s;
  } catch {
    return null;
  }
}

export function saveSession(s: DashboardSession): void {
  localStorage.setItem(KEY, JSON.stringify(s));
}

export function clearSession(): void {
  localStorage.removeItem(KEY);
}
