/// <reference lib="dom" />
/**
 * The alerts panel: web push on this device (the inbox's service worker and
 * `push/subscriptions`), and the agent's notification preferences (which
 * kinds, push and e-mail, do-not-disturb). Each change is saved at once.
 */
import {
  type AgentClient,
  type AgentOutputs,
  describeFailure,
} from "../../clients/agent_client.ts";
import { fill, h } from "./dom.ts";

type Preferences = AgentOutputs["notificationPreferences"];

const KINDS: [string, string][] = [
  ["chat_started", "A visitor starts a chat"],
  ["visitor_message", "A visitor writes (yours, watched, or waiting for a person)"],
  ["handoff_requested", "A visitor asks for a person"],
  ["sla_breach", "A wait for a person passes the limit"],
  ["visitor_arrived", "A new visitor arrives on the site"],
];

export class NotificationsView {
  readonly root: HTMLElement;
  #body: HTMLElement;
  #note: HTMLElement;
  #prefs: Preferences | null = null;

  constructor(private client: AgentClient) {
    this.#body = h("div", { class: "alerts-body" });
    this.#note = h("p", { class: "alerts-note", role: "status" });
    this.root = h(
      "section",
      { class: "alerts", "aria-label": "Alerts", hidden: true },
      h(
        "header",
        { class: "alerts-head" },
        h("h2", null, "Alerts"),
        h("button", { type: "button", class: "close", onClick: () => this.toggle(false) }, "Close"),
      ),
      this.#body,
      this.#note,
    );
  }

  toggle(open = this.root.hidden): void {
    this.root.hidden = !open;
    if (open) void this.#load();
  }

  async #load(): Promise<void> {
    try {
      this.#prefs = await this.client.agent.notificationPreferences.query({});
      this.#render();
    } catch (err) {
      this.#say(describeFailure(err).message);
    }
  }

  async #save(patch: Parameters<AgentClient["agent"]["updatePreferences"]["mutate"]>[0]) {
    try {
      this.#prefs = await this.client.agent.updatePreferences.mutate(patch);
      this.#say("Saved.");
      this.#render();
    } catch (err) {
      this.#say(describeFailure(err).message);
    }
  }

  #render(): void {
    const p = this.#prefs;
    if (!p) return;
    const check = (label: string, on: boolean, change: (on: boolean) => void, name: string) =>
      h(
        "label",
        { class: "check" },
        h("input", {
          type: "checkbox",
          name,
          checked: on,
          onChange: (e) => change((e.target as HTMLInputElement).checked),
        }),
        ` ${label}`,
      );
    const events = p.events as Record<string, { push: boolean } | undefined>;
    fill(
      this.#body,
      h(
        "div",
        { class: "alerts-push" },
        h("button", {
          type: "button",
          class: "enable-push",
          onClick: () => void this.#enablePush(),
        }, "Turn on push on this device"),
      ),
      check(
        "Push alerts",
        p.push_enabled,
        (on) => void this.#save({ push_enabled: on }),
        "push_enabled",
      ),
      check(
        "E-mail alerts",
        p.email_enabled,
        (on) => void this.#save({ email_enabled: on }),
        "email_enabled",
      ),
      h("h3", null, "Alert me when"),
      KINDS.map(([kind, label]) =>
        check(
          label,
          events[kind]?.push ?? false,
          (on) => void this.#save({ events: { [kind]: { push: on } } }),
          `event-${kind}`,
        )
      ),
      h("h3", null, "Do not disturb"),
      p.dnd_until
        ? [
          h("p", { class: "dnd" }, `Muted until ${new Date(p.dnd_until).toLocaleTimeString()}.`),
          h("button", {
            type: "button",
            onClick: () => void this.#save({ dnd_minutes: 0 }),
          }, "Unmute"),
        ]
        : h("button", {
          type: "button",
          class: "mute",
          onClick: () => void this.#save({ dnd_minutes: 60 }),
        }, "Mute for an hour"),
    );
  }

  async #enablePush(): Promise<void> {
    try {
      if (!("serviceWorker" in navigator) || !("PushManager" in globalThis)) {
        throw new Error("This browser cannot receive push notifications.");
      }
      const vapid = await this.client.agent.pushVapid.query({});
      if (!vapid.configured || !vapid.public_key) {
        throw new Error("Push is not set up on this server (VAPID keys).");
      }
      if (await Notification.requestPermission() !== "granted") {
        throw new Error("This browser blocks notifications for this site.");
      }
      const reg = await navigator.serviceWorker.register("/inbox/sw.js");
      await navigator.serviceWorker.ready;
      const sub = (await reg.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: base64UrlBytes(vapid.public_key),
      })).toJSON();
      await this.client.agent.pushSubscribe.mutate({
        endpoint: sub.endpoint!,
        keys: { p256dh: sub.keys!.p256dh!, auth: sub.keys!.auth! },
        device_name: "Web inbox",
      });
      this.#say("Push is on for this device.");
    } catch (err) {
      this.#say(describeFailure(err).message);
    }
  }

  #say(text: string): void {
    this.#note.textContent = text;
  }
}

function base64UrlBytes(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(s.length / 4) * 4, "=");
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}
