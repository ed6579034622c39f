/// <reference lib="dom" />
/**
 * widget.js entry: reads `data-key` (and optional `data-identity`) from its
 * own script tag, derives the server address from the script's URL, loads
 * the bot's public configuration, and mounts the widget. A disabled or
 * unknown bot leaves the page untouched.
 */
import { WidgetApi } from "./api.ts";
import { Widget } from "./widget.ts";

/** `host.Parley`: lets the host page open or close the chat from its own buttons. */
interface ParleyApi {
  open(): void;
  close(): void;
}
const host = globalThis as unknown as { Parley?: ParleyApi };

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
    host.Parley = { open: () => widget.open(), close: () => widget.close() };
  } catch (err) {
    console.warn("Parley widget not started:", (err as Error).message);
  }
}

const script = findScript();
if (script && !host.Parley) {
  host.Parley = { open() {}, close() {} };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => void boot(script));
  } else void boot(script);
}
