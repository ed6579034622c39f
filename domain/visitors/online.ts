/**
 * When a visitor counts as online: a heartbeat within the window. The widget
 * beats every 15 s while idle (domain/widget/heartbeat.ts), so two missed
 * beats and some network slack take a visitor offline.
 */
export const VISITOR_ONLINE_SECONDS = 45;

export function isOnline(lastSeenAt: Date | string | null | undefined, now: Date): boolean {
  if (!lastSeenAt) return false;
  const seen = typeof lastSeenAt === "string" ? Date.parse(lastSeenAt) : lastSeenAt.getTime();
  return now.getTime() - seen <= VISITOR_ONLINE_SECONDS * 1000;
}
