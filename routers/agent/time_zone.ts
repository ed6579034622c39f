/** The agent app's time zone for display strings (`X-Timezone`, IANA), else UTC. */
import { isTimeZone } from "../../domain/display_time.ts";

export function timeZoneOf(req: Request): string | undefined {
  const zone = req.headers.get("x-timezone")?.trim();
  return zone && isTimeZone(zone) ? zone : undefined;
}
