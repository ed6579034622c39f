/**
 * The branding screen's options in words: each code the spec stores
 * (`minimal`, `reactive`, `session`…) with the label an owner reads and one
 * line on what it does, and the feature flags with theirs (docs/widget-api.md,
 * "Feature flags" and "Branding", says the same at length).
 */

/** `[label, one line on what it does]` for each option code. */
export type Choices = Readonly<Record<string, readonly [string, string]>>;

export const THEME_WORDS: Choices = {
  minimal: ["Minimal", "White and grey, lets your primary colour lead."],
  ocean: ["Ocean", "Cool blues."],
  emerald: ["Emerald", "Fresh greens."],
  midnight: ["Midnight", "Dark panel with light text."],
  sunset: ["Sunset", "Warm oranges."],
  crisp: ["Crisp", "High contrast, sharp edges."],
  violet: ["Violet", "Soft purples."],
  rose: ["Rose", "Soft pinks."],
  slate: ["Slate", "Quiet blue-greys."],
  forest: ["Forest", "Deep greens."],
};

export const LAYOUT_WORDS: Choices = {
  classic: ["Classic", "A panel in the corner of the page."],
  compact: ["Compact", "A smaller panel that covers less of the page."],
  fullscreen: ["Full screen", "The chat fills the whole window when open."],
};

export const LAUNCHER_WORDS: Choices = {
  bubble: ["Round button", "A round button with the launcher text, in the corner."],
  tab: ["Side tab", "A tab on the edge of the page."],
  hidden: ["No button", "Nothing shown: your page opens the chat with Parley.open()."],
};

export const POSITION_WORDS: Choices = {
  right: ["Bottom right", "The launcher and the chat sit on the right."],
  left: ["Bottom left", "The launcher and the chat sit on the left."],
};

export const COMPOSER_WORDS: Choices = {
  full: ["Full", "The message box with its buttons (the default)."],
  minimal: [
    "Minimal",
    "A slimmer message box (stored for your own widget; widget.js draws both alike today).",
  ],
};

export const RECOMMEND_WORDS: Choices = {
  reactive: [
    "When asked",
    "Shows products only when the visitor looks for one (what to buy, price, stock).",
  ],
  proactive: ["When relevant", "Also shows products when the question's topic matches them well."],
  off: ["Never", "The bot never shows product cards."],
};

export const FREQUENCY_WORDS: Choices = {
  session: ["Once per visit", "Shown once per browser tab session."],
  once: ["Once ever", "Shown once per browser, never again."],
  always: ["Every page", "Shown on every page the visitor opens."],
};

/** The feature flags: `[name, label, one line on what it does]`. */
export const FLAG_WORDS = [
  [
    "sound",
    "Sound on new messages",
    "A short tone when a reply arrives while the chat is closed or the tab hidden.",
  ],
  [
    "screen_share",
    "Screen sharing",
    "An agent may ask to see the visitor's page; the visitor must accept.",
  ],
  ["copilot", "Copilot", "Agents can ask the AI for a suggested reply in the inbox."],
  [
    "auto_actions",
    "Automatic actions",
    "On resolve, the AI writes the summary and adds the tags it is sure of.",
  ],
  [
    "copilot_use_profile",
    "Copilot uses the visitor's profile",
    "Suggestions may use the pre-chat answers, identity, orders and billing.",
  ],
  [
    "copilot_autostart",
    "Copilot starts by itself",
    "The inbox asks for a suggestion when a visitor's message waits for an answer.",
  ],
  [
    "live_visitors",
    "Live visitors",
    "Agents see who is on your site now and can invite them to chat.",
  ],
  [
    "behavior_tracking",
    "Behaviour tracking",
    "Keeps the pages a visitor viewed (journey, referrer) for agents; off keeps only the current page.",
  ],
] as const;
