/**
 * The ten themes as sets of CSS custom properties. The bot's primary colour
 * is applied on top (launcher, visitor bubbles, buttons, and the header of
 * themes whose header follows it).
 */

export interface ThemeVars {
  bg: string;
  fg: string;
  muted: string;
  surface: string;
  border: string;
  /** Header background; `P` stands for the primary colour. */
  header: string;
  radius: string;
}

const T = (
  bg: string,
  fg: string,
  muted: string,
  surface: string,
  border: string,
  header: string,
  radius = "14px",
): ThemeVars => ({ bg, fg, muted, surface, border, header, radius });

const gradient = (to: string) => `linear-gradient(135deg,P,${to})`;

export const THEMES: Record<string, ThemeVars> = {
  minimal: T("#ffffff", "#111827", "#6b7280", "#f3f4f6", "#e5e7eb", "P"),
  ocean: T("#f8fcff", "#0c2d48", "#4b6a84", "#e0f2fe", "#bae6fd", gradient("#0369a1")),
  emerald: T("#f7fdf9", "#052e16", "#4d6b58", "#dcfce7", "#bbf7d0", gradient("#047857")),
  midnight: T("#0f172a", "#e2e8f0", "#94a3b8", "#1e293b", "#334155", "#020617"),
  sunset: T("#fffaf5", "#431407", "#7c4a32", "#ffedd5", "#fed7aa", gradient("#db2777")),
  crisp: T("#ffffff", "#000000", "#404040", "#f4f4f5", "#18181b", "P", "4px"),
  violet: T("#fcfaff", "#2e1065", "#6b5b8a", "#f3e8ff", "#e9d5ff", gradient("#6d28d9")),
  rose: T("#fffbfb", "#4c0519", "#86505e", "#ffe4e6", "#fecdd3", gradient("#be123c")),
  slate: T("#f8fafc", "#0f172a", "#64748b", "#e2e8f0", "#cbd5e1", "#334155", "8px"),
  forest: T("#fbfef7", "#14290a", "#55684a", "#ecfccb", "#d9f99d", gradient("#166534")),
};

/** `#rgb`, `#rrggbb` or `#rrggbbaa`, else the default indigo (never raw CSS). */
export function safeColor(value: string): string {
  return /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(value) ? value : "#4f46e5";
}

/** Black or white, whichever reads better on `hex`. */
export function contrastOn(hex: string): string {
  let h = hex.slice(1);
  if (h.length === 3) h = h.replace(/./g, (c) => c + c);
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255);
  const lum = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  return lum > 0.6 ? "#111827" : "#ffffff";
}

/** The custom properties to set on the widget root. */
export function themeProperties(theme: string, primary: string): Record<string, string> {
  const t = THEMES[theme] ?? THEMES.minimal!;
  const p = safeColor(primary);
  const headerIsDark = !t.header.startsWith("P") && !t.header.startsWith("linear");
  return {
    "--pw-primary": p,
    "--pw-on-primary": contrastOn(p),
    "--pw-bg": t.bg,
    "--pw-fg": t.fg,
    "--pw-muted": t.muted,
    "--pw-surface": t.surface,
    "--pw-border": t.border,
    "--pw-header": t.header.replace(/P/g, p),
    "--pw-on-header": headerIsDark ? "#f8fafc" : contrastOn(p),
    "--pw-radius": t.radius,
  };
}
