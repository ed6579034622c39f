/// <reference lib="dom" />
/**
 * The branding preview (`/dashboard/preview?key=…#<draft>`), framed by the
 * dashboard's branding form: it runs the real widget.js for the bot, with the
 * form's draft laid over the bot's public configuration as it arrives (the
 * draft rides in the URL's fragment, so it never reaches the server). The
 * dashboard reloads the frame as the owner types. Messages are not sent from
 * the preview: it is a look, not a conversation.
 */
import type { WidgetConfig } from "../../domain/widget/widget_config_shape.ts";

interface Draft {
  branding?: Record<string, unknown> & { proactive?: Record<string, unknown> };
  prechat?: WidgetConfig["prechat"];
  welcome_message?: string;
  name?: string;
  open?: boolean;
}

const LABELS = { name: "Name", email: "E-mail", phone: "Phone" } as const;
const TYPES = { name: "text", email: "email", phone: "tel" } as const;

function readDraft(): Draft {
  try {
    return JSON.parse(decodeURIComponent(location.hash.slice(1)) || "{}") as Draft;
  } catch {
    return {};
  }
}

/** The bot's configuration with the draft over it, shaped as the server shapes it. */
export function applyDraft(config: WidgetConfig, draft: Draft): WidgetConfig {
  const d = draft.branding ?? {};
  const branding = {
    ...config.branding,
    ...d,
    proactive: { ...config.branding.proactive, ...(d.proactive ?? {}) },
  } as WidgetConfig["branding"];
  const prechat = draft.prechat
    ? {
      enabled: draft.prechat.enabled && draft.prechat.fields.length > 0,
      fields: draft.prechat.fields.map((f) => ({
        name: f.name,
        label: f.label?.trim() || LABELS[f.name],
        type: TYPES[f.name],
        required: f.required === true,
      })),
    }
    : config.prechat;
  return {
    ...config,
    name: draft.name?.trim() || config.name,
    welcome_message: draft.welcome_message?.trim() || config.welcome_message,
    branding,
    quick_replies: branding.quick_replies,
    proactive: branding.proactive,
    prechat,
  };
}

const draft = readDraft();
const key = new URLSearchParams(location.search).get("key") ?? "";
const realFetch = globalThis.fetch.bind(globalThis);
globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = new URL(input instanceof Request ? input.url : String(input), location.href);
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  if (method === "POST" && url.pathname.endsWith("/stream")) {
    return new Response(
      JSON.stringify({ message: "This is a preview: messages are not sent." }),
      { status: 409, headers: { "content-type": "application/json" } },
    );
  }
  const res = await realFetch(input, init);
  if (!res.ok || !/^\/widget\/[^/]+\/config$/.test(url.pathname)) return res;
  const body = await res.json() as { data: WidgetConfig };
  return new Response(JSON.stringify({ data: applyDraft(body.data, draft) }), {
    status: 200,
    headers: { "content-type": "application/json" },
  });
};

const script = document.createElement("script");
script.src = "/widget.js";
script.dataset.key = key;
/**
 * Opens or closes the widget once it has started. The two preview frames share
 * the tab's sessionStorage, where the widget keeps "open": the closed frame
 * would otherwise open because the open one did.
 */
function settle(tries = 0): void {
  const api = (globalThis as { Parley?: { open(): void; close(): void } }).Parley;
  if (!document.querySelector("#parley-widget")) {
    if (tries < 200) setTimeout(() => settle(tries + 1), 25);
    return;
  }
  if (draft.open === false) api?.close();
  else api?.open();
}
script.addEventListener("load", () => settle());
document.body.append(script);
