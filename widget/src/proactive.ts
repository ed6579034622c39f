/// <reference lib="dom" />
/**
 * When to show the proactive message. The page must match `url_contains`
 * (empty matches all); the message then shows once `delay` seconds have
 * passed and the visitor has scrolled `scroll` percent of the page (0 means
 * no scroll condition), or at once on exit intent (the pointer leaving
 * through the top of the window) when that is on. Frequency `session` shows
 * it once per browser tab session, `once` once ever, `always` on every page.
 */
import type { ProactiveSettings } from "./types.ts";
import type { VisitorStore } from "./storage.ts";

export function scheduleProactive(
  p: ProactiveSettings,
  store: VisitorStore,
  show: () => boolean,
): void {
  if (!p.enabled || !p.message.trim()) return;
  if (p.url_contains && !location.href.includes(p.url_contains)) return;
  const kind = p.frequency === "once" ? "local" : "session";
  if (p.frequency !== "always" && store.get("proactive_shown", kind)) return;

  let timeUp = false;
  let scrolled = p.scroll <= 0;
  let done = false;
  const fire = () => {
    if (done) return;
    if (!show()) return;
    done = true;
    store.set("proactive_shown", "1", kind);
    removeEventListener("scroll", onScroll);
    document.removeEventListener("mouseout", onLeave);
  };
  const check = () => timeUp && scrolled && fire();
  const onScroll = () => {
    const max = document.documentElement.scrollHeight - innerHeight;
    const pct = max <= 0 ? 100 : (scrollY / max) * 100;
    if (pct >= p.scroll) {
      scrolled = true;
      check();
    }
  };
  const onLeave = (e: MouseEvent) => {
    if (!e.relatedTarget && e.clientY <= 0) fire();
  };
  setTimeout(() => {
    timeUp = true;
    check();
  }, Math.max(0, p.delay) * 1000);
  if (!scrolled) {
    addEventListener("scroll", onScroll, { passive: true });
    onScroll();
  }
  if (p.exit_intent) document.addEventListener("mouseout", onLeave);
}
