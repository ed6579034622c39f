/// <reference lib="dom" />
/**
 * widget.js entry: reads `data-key` (and optional `data-identity`) from its
 * own script tag, derives the server address from the script's URL, loads
 * the bot's public configuration, and mounts the widget. A disabled or
 * unknown bot leaves the page untouched; a site the bot's owner did not
 * allow gets a notice saying so.
 */
import { ApiError, WidgetApi } from "./api.ts";
import { showUnavailableNotice } from "./unavailable_notice.ts";
import { Widget } from "./widget.ts";

/** `window.Parley`: lets the host page open the chat from its own buttons and pass identity. */
interface ParleyApi {
  open(): void;
  close(): void;
  identify(token: string | null): void;
}
const host = globalThis as unknown as { Parley?: ParleyApi };

/** Calls made before the configuration arrived, replayed once the widget exists. */
const early: { open?: boolean; identity?: string | null } = {};

function findScript(): HTMLScriptElement | null {
  const current = document.currentScript;
  if (current instanceof HTMLScriptElement && current.dataset.key) return current;
  return document.querySelector<HTMLScriptElement>('script[data-key][src*="widget.js"]');
}

async function boot(script: HTMLScriptElement): Promise<void> {
  const key = script.dataset.key ?? "";
  const base = script.src.replace(/\/widget\.js(?:[?#].*)?$/, "");
  const api = new WidgetApi(base, key);
  try {
    const config = await api.config();
    const widget = new Widget(config, api, script.dataset.identity ?? null);
    if (early.identity !== undefined) widget.identify(early.identity);
    if (early.open) widget.open(false);
    host.Parley = {
      open: () => widget.open(),
      close: () => widget.close(),
      identify: (token) => widget.identify(token),
    };
  } catch (err) {
    console.warn("Parley widget not started:", (err as Error).message);
    // 403: the bot's owner did not allow this site; say so where the chat would be.
    if (err instanceof ApiError && err.status === 403) showUnavailableNotice(err.message);
  }
}

const script = findScript();
if (script && !host.Parley) {
  host.Parley = {
    open: () => void (early.open = true),
    close: () => void (early.open = false),
    identify: (token) => void (early.identity = token),
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => void boot(script));
  } else void boot(script);
}
