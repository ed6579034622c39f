/**
 * What an agent reads about a visitor's device, parsed from the User-Agent
 * with bowser (a maintained parser, MIT) rather than our own regular
 * expressions. Unknown parts are null, never guessed.
 */
import Bowser from "bowser";

export interface DeviceInfo {
  /** `desktop`, `mobile`, `tablet` or `tv`. */
  device: string | null;
  /** Browser name and major version, e.g. "Chrome 126". */
  browser: string | null;
  /** Operating system and version, e.g. "macOS 14.5" or "Android 14". */
  os: string | null;
}

const NONE: DeviceInfo = { device: null, browser: null, os: null };
// Inbox and live-visitor lists repeat the same few agents' strings.
const cache = new Map<string, DeviceInfo>();
const CACHE_LIMIT = 500;

export function describeDevice(userAgent: string | null | undefined): DeviceInfo {
  if (!userAgent) return NONE;
  const hit = cache.get(userAgent);
  if (hit) return hit;
  const info = parse(userAgent);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(userAgent, info);
  return info;
}

function parse(userAgent: string): DeviceInfo {
  try {
    const parsed = Bowser.parse(userAgent);
    const browserVersion = parsed.browser.version?.split(".")[0];
    const osName = parsed.os.name;
    const osVersion = parsed.os.versionName ?? parsed.os.version;
    return {
      device: parsed.platform.type ?? null,
      browser: parsed.browser.name
        ? [parsed.browser.name, browserVersion].filter(Boolean).join(" ")
        : null,
      os: osName ? [osName, osVersion].filter(Boolean).join(" ") : null,
    };
  } catch {
    return NONE;
  }
}
