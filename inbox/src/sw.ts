/**
 * The inbox's service worker (`/inbox/sw.js`): shows the server's web push
 * alerts (docs/notifications.md) and, on a click, brings the inbox forward
 * on the alert's conversation. Typed by hand so the inbox's DOM types and a
 * worker's never meet in one type check.
 */

interface PushPayload {
  kind?: string;
  title?: string;
  body?: string;
  conversation_id?: string | null;
  url?: string;
}

interface WindowClientLike {
  url: string;
  focus(): Promise<unknown>;
  postMessage(message: unknown): void;
}

interface WorkerScope {
  addEventListener(type: "push", fn: (e: PushEventLike) => void): void;
  addEventListener(type: "notificationclick", fn: (e: ClickEventLike) => void): void;
  addEventListener(type: "install" | "activate", fn: (e: ExtendableLike) => void): void;
  registration: {
    showNotification(title: string, options: Record<string, unknown>): Promise<void>;
  };
  clients: {
    matchAll(o: { type: "window"; includeUncontrolled: boolean }): Promise<WindowClientLike[]>;
    openWindow(url: string): Promise<unknown>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  location: { origin: string };
}

interface ExtendableLike {
  waitUntil(p: Promise<unknown>): void;
}
interface PushEventLike extends ExtendableLike {
  data: { json(): unknown; text(): string } | null;
}
interface ClickEventLike extends ExtendableLike {
  notification: { close(): void; data?: { url?: string } };
}

const sw = globalThis as unknown as WorkerScope;

sw.addEventListener("install", (e) => e.waitUntil(sw.skipWaiting()));
sw.addEventListener("activate", (e) => e.waitUntil(sw.clients.claim()));

sw.addEventListener("push", (e) => {
  let p: PushPayload = {};
  try {
    p = (e.data?.json() ?? {}) as PushPayload;
  } catch {
    p = { body: e.data?.text() ?? "" };
  }
  e.waitUntil(
    sw.registration.showNotification(p.title || "Parley", {
      body: p.body ?? "",
      tag: p.conversation_id ?? p.kind ?? "parley",
      data: { url: p.url ?? "/inbox" },
    }),
  );
});

sw.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const url = new URL(e.notification.data?.url ?? "/inbox", sw.location.origin);
  // Only our own inbox is ever opened, whatever the payload says.
  const target = url.origin === sw.location.origin ? url.href : `${sw.location.origin}/inbox`;
  e.waitUntil((async () => {
    const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
    const inbox = windows.find((w) => new URL(w.url).pathname === "/inbox");
    if (inbox) {
      await inbox.focus();
      inbox.postMessage({ type: "parley:open", url: target });
      return;
    }
    await sw.clients.openWindow(target);
  })());
});
