/// <reference lib="dom" />
/**
 * /inbox/screen.js: the read-only view of a visitor's page, run inside the
 * /inbox/screen frame. The inbox posts it the rrweb events it hears on
 * `private-screen.{uuid}`; rrweb's Replayer rebuilds the page in a sandboxed
 * frame of its own where no script of the visitor's page runs and the agent
 * cannot click or type. Messages are taken from the inbox (same origin,
 * the parent window) only.
 */
import { Replayer } from "rrweb";

type Event = { type: number; timestamp: number };
type Message = { kind: "events"; events: string[] } | { kind: "reset" };

/** Events are played this long after they happened, so a batch's events keep their rhythm. */
const LIVE_DELAY_MS = 600;

const root = document.getElementById("screen")!;
const status = document.getElementById("status")!;
let replayer: Replayer | null = null;

function reset(): void {
  replayer?.destroy();
  replayer = null;
  root.replaceChildren();
  status.hidden = false;
}

/** One event from its JSON text; null for anything that is not an rrweb event. */
function parse(text: unknown): Event | null {
  if (typeof text !== "string") return null;
  try {
    const e = JSON.parse(text) as Event;
    return typeof e?.type === "number" && typeof e.timestamp === "number" ? e : null;
  } catch {
    return null;
  }
}

function add(texts: string[]): void {
  for (const text of texts) {
    const e = parse(text);
    if (!e) continue;
    if (!replayer) {
      // A view starts from a full snapshot (type 2) or the meta event just before one.
      if (e.type !== 4 && e.type !== 2) continue;
      replayer = new Replayer([], {
        root,
        liveMode: true,
        mouseTail: false,
        showWarning: false,
        UNSAFE_replayCanvas: false,
      });
      replayer.disableInteract();
      replayer.startLive(e.timestamp - LIVE_DELAY_MS);
      status.hidden = true;
      replayer.on("resize", () => fit());
    }
    // Shaped like rrweb's events (the server checked type and timestamp); rrweb reads the rest.
    replayer.addEvent(e as Parameters<Replayer["addEvent"]>[0]);
  }
  document.body.dataset.events = String(Number(document.body.dataset.events ?? 0) + texts.length);
}

/** Scales the visitor's viewport to fit this frame. */
function fit(): void {
  const wrapper = root.querySelector<HTMLElement>(".replayer-wrapper");
  const frame = root.querySelector<HTMLIFrameElement>("iframe");
  if (!wrapper || !frame) return;
  const w = frame.offsetWidth || Number(frame.width) || 1;
  const h = frame.offsetHeight || Number(frame.height) || 1;
  const scale = Math.min(1, root.clientWidth / w, root.clientHeight / h);
  wrapper.style.transform = `scale(${scale})`;
}

addEventListener("resize", fit);
addEventListener("message", (e: MessageEvent<Message>) => {
  if (e.origin !== location.origin || e.source !== parent) return;
  const m = e.data;
  if (m?.kind === "reset") reset();
  else if (m?.kind === "events" && Array.isArray(m.events)) add(m.events);
});
parent.postMessage({ kind: "screen-ready" }, location.origin);
