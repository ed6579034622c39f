/**
 * Widget branding: the full object with its defaults, so every surface shows
 * the same values whatever subset was stored. Stored branding is merged over
 * these defaults, never replacing fields it does not name.
 */

export const THEMES = [
  "minimal",
  "ocean",
  "emerald",
  "midnight",
  "sunset",
  "crisp",
  "violet",
  "rose",
  "slate",
  "forest",
] as const;
export type Theme = typeof THEMES[number];

export const LAYOUTS = ["classic", "compact", "fullscreen"] as const;
export const LAUNCHERS = ["bubble", "tab", "hidden"] as const;
export const COMPOSER_STYLES = ["full", "minimal"] as const;
export const RECOMMEND_MODES = ["reactive", "proactive", "off"] as const;
export const PROACTIVE_FREQUENCIES = ["session", "always", "once"] as const;

export interface Proactive {
  enabled: boolean;
  message: string;
  /** Seconds on the page before the message shows. */
  delay: number;
  /** Percentage of the page scrolled before the message shows (0 = no condition). */
  scroll: number;
  exit_intent: boolean;
  url_contains: string;
  frequency: typeof PROACTIVE_FREQUENCIES[number];
}

export interface Branding {
  primary_color: string;
  launcher_text: string;
  position: "left" | "right";
  theme: Theme;
  logo_url: string | null;
  avatar_url: string | null;
  title: string;
  subtitle: string;
  layout: string;
  launcher: string;
  quick_replies: string[];
  agent_avatars: string[];
  composer_style: string;
  sound: boolean;
  screen_share: boolean;
  copilot: boolean;
  auto_actions: boolean;
  copilot_use_profile: boolean;
  copilot_autostart: boolean;
  live_visitors: boolean;
  behavior_tracking: boolean;
  recommend_mode: string;
  proactive: Proactive;
}

export const DEFAULT_BRANDING: Branding = {
  primary_color: "#4f46e5",
  launcher_text: "Chat with us",
  position: "right",
  theme: "minimal",
  logo_url: null,
  avatar_url: null,
  title: "Support",
  subtitle: "We typically reply in a few minutes",
  layout: "classic",
  launcher: "bubble",
  quick_replies: [],
  agent_avatars: [],
  composer_style: "full",
  sound: false,
  screen_share: false,
  // On by default: the agent API's suggest and summary work unless an owner turns them off.
  copilot: true,
  auto_actions: false,
  copilot_use_profile: false,
  copilot_autostart: false,
  live_visitors: true,
  // On by default: the inbox's journey, page views, entry page and referrer come from it.
  behavior_tracking: true,
  recommend_mode: "reactive",
  proactive: {
    enabled: false,
    message: "",
    delay: 10,
    scroll: 0,
    exit_intent: false,
    url_contains: "",
    frequency: "session",
  },
};

export const DEFAULT_WELCOME_MESSAGE = "Hi there! How can I help you today?";

/** The complete branding for a stored (possibly partial) object. */
export function brandingOf(stored: Record<string, unknown> | null | undefined): Branding {
  const s = (stored ?? {}) as Partial<Branding>;
  return {
    ...DEFAULT_BRANDING,
    ...s,
    proactive: { ...DEFAULT_BRANDING.proactive, ...(s.proactive ?? {}) },
  };
}

/** Merge an update over stored branding: fields not sent stay as they were. */
export function mergeBranding(
  stored: Record<string, unknown> | null | undefined,
  update: Partial<Branding>,
): Record<string, unknown> {
  const defined = Object.fromEntries(
    Object.entries(update).filter(([, v]) => v !== undefined),
  );
  const merged: Record<string, unknown> = { ...(stored ?? {}), ...defined };
  if (update.proactive) {
    merged.proactive = {
      ...((stored?.proactive as Record<string, unknown>) ?? {}),
      ...update.proactive,
    };
  }
  return merged;
}
