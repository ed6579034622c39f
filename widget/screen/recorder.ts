/// <reference lib="dom" />
/**
 * widget-screen.js: the page recorder, loaded by widget.js only after the
 * visitor consents to share their screen, so the widget itself stays small.
 * It records the page with rrweb, hiding everything a visitor types (every
 * input, textarea and select, editable text, and whatever the site marks
 * `data-parley-mask` or `data-parley-block`), never the chat widget itself,
 * and drops the page address's query and fragment (tokens live there).
 * Events are sent in batches of at most BATCH_BYTES, twice a second.
 */
import { record } from "rrweb";

/** Under the server's 512 KiB per request, with room for the envelope. */
const BATCH_BYTES = 480 * 1024;
const FLUSH_MS = 500;
/** An empty batch at least this often tells the server the page is still there. */
const KEEPALIVE_MS = 15_000;

export interface RecorderOptions {
  /** Sends one batch (each event as JSON text); resolves with the HTTP status (409: ended). */
  send(events: string[]): Promise<number>;
  /** The recording stopped by itself: why, for the visitor. */
  onStop(reason: string): void;
}

export interface Recorder {
  /** A fresh full view (an agent joined late). */
  snapshot(): void;
  stop(): void;
}

type RrwebEvent = { type: number; data?: Record<string, unknown> } & Record<string, unknown>;

const META = 4;

export function startRecorder(opts: RecorderOptions): Recorder {
  let queue: string[] = [];
  let queued = 0;
  let sending = false;
  let stopped = false;
  // Filled once rrweb starts; `end` may run earlier, from the first full view's emit.
  const recording: { stop?: () => void } = {};

  const end = (reason: string | null) => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    recording.stop?.();
    queue = [];
    if (reason) opts.onStop(reason);
  };

  let lastSent = Date.now();
  const flush = async () => {
    if (sending || stopped) return;
    if (queue.length === 0 && Date.now() - lastSent < KEEPALIVE_MS) return;
    sending = true;
    lastSent = Date.now();
    const batch = queue;
    queue = [];
    queued = 0;
    try {
      const status = await opts.send(batch);
      if (status === 409 || status === 404 || status === 403) end("Screen sharing ended.");
      else if (status === 413) end("This page is too large to share.");
    } catch {
      // A lost batch: the agent's view may miss a change; the next full view repairs it.
    } finally {
      sending = false;
    }
  };

  const timer = setInterval(() => void flush(), FLUSH_MS);

  recording.stop = record({
    emit(event: RrwebEvent) {
      if (stopped) return;
      if (event.type === META && event.data && typeof event.data.href === "string") {
        event.data.href = withoutQuery(event.data.href);
      }
      const json = JSON.stringify(event);
      if (json.length > BATCH_BYTES) return end("This page is too large to share.");
      if (queued + json.length > BATCH_BYTES) void flush();
      queue.push(json);
      queued += json.length;
    },
    maskAllInputs: true,
    maskInputOptions: { password: true, email: true, tel: true, text: true, textarea: true },
    // A fixed mask: not even the length of what was typed is shown.
    maskInputFn: (text: string) => (text ? "••••••" : ""),
    maskTextSelector: "[data-parley-mask], [contenteditable], [contenteditable] *",
    blockSelector: "#parley-widget, [data-parley-block]",
    recordCanvas: false,
    collectFonts: false,
    inlineImages: false,
    slimDOMOptions: "all",
    sampling: { mousemove: 100, scroll: 150, input: "last" },
  }) as (() => void) | undefined;
  if (stopped) recording.stop?.();

  return {
    snapshot: () => !stopped && record.takeFullSnapshot(true),
    stop: () => end(null),
  };
}

function withoutQuery(href: string): string {
  try {
    const u = new URL(href);
    return u.origin + u.pathname;
  } catch {
    return "";
  }
}

(globalThis as unknown as { ParleyScreenRecorder?: typeof startRecorder }).ParleyScreenRecorder =
  startRecorder;
