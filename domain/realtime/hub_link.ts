/**
 * What one socket server tells the others through the Kv pub/sub (Redis):
 * client events, and presence. Presence travels as joins and leaves, plus
 * each instance's full member list every few seconds (which also says it is
 * alive) and on request when a new instance starts; members of an instance
 * silent for three periods are removed, so a crashed instance's agents do
 * not stay "online".
 */
import type { Kv, Unsubscribe } from "../../kv/kv.ts";
import type { MemberInfo, MemberState, PresenceRegistry } from "./presence_registry.ts";

const CHANNEL = "realtime";
export const ANNOUNCE_MS = 5_000;
const EXPIRE_MS = 3 * ANNOUNCE_MS;

type Wire =
  | { k: "client"; i: string; channel: string; text: string; from: string }
  | { k: "join"; i: string; channel: string; user: string; info: MemberInfo }
  | { k: "leave"; i: string; channel: string; user: string }
  | { k: "state"; i: string; members: MemberState }
  | { k: "hello"; i: string }
  | { k: "bye"; i: string };

/** What the hub must do locally after a message from another instance. */
export type LinkMessage =
  | { k: "client"; channel: string; text: string; from: string }
  | { k: "presence"; added: [string, string, MemberInfo][]; removed: [string, string][] };

export class HubLink {
  readonly instance = crypto.randomUUID();
  private unsubscribe: Unsubscribe | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly kv: Kv,
    private readonly presence: PresenceRegistry,
    private readonly deliver: (m: LinkMessage) => void,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.kv.subscribe(CHANNEL, (raw) => this.receive(raw));
    const timer = setInterval(() => this.announce(), ANNOUNCE_MS);
    Deno.unrefTimer(timer);
    this.timer = timer;
    this.post({ k: "hello", i: this.instance });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.post({ k: "bye", i: this.instance });
    await this.unsubscribe?.();
  }

  clientEvent(channel: string, text: string, from: string): void {
    this.post({ k: "client", i: this.instance, channel, text, from });
  }

  joined(channel: string, user: string, info: MemberInfo): void {
    this.post({ k: "join", i: this.instance, channel, user, info });
  }

  left(channel: string, user: string): void {
    this.post({ k: "leave", i: this.instance, channel, user });
  }

  /** Drops the members of instances that stopped announcing themselves. */
  expire(now: number): void {
    for (const id of this.presence.staleInstances(now - EXPIRE_MS)) {
      const { added, removed } = this.presence.replaceRemote(id, null, now);
      if (added.length || removed.length) this.deliver({ k: "presence", added, removed });
    }
  }

  private announce(): void {
    this.post({ k: "state", i: this.instance, members: this.presence.localState() });
  }

  private post(message: Wire): void {
    // A lost presence or typing message heals with the next announcement.
    this.kv.publish(CHANNEL, JSON.stringify(message)).catch(() => {});
  }

  private receive(raw: string): void {
    let m: Wire;
    try {
      m = JSON.parse(raw) as Wire;
    } catch {
      return;
    }
    if (m.i === this.instance) return;
    const now = Date.now();
    switch (m.k) {
      case "client":
        return this.deliver({ k: "client", channel: m.channel, text: m.text, from: m.from });
      case "join": {
        const first = this.presence.addRemote(m.i, m.channel, m.user, m.info, now);
        if (first) {
          this.deliver({ k: "presence", added: [[m.channel, m.user, m.info]], removed: [] });
        }
        return;
      }
      case "leave":
        if (this.presence.removeRemote(m.i, m.channel, m.user, now)) {
          this.deliver({ k: "presence", added: [], removed: [[m.channel, m.user]] });
        }
        return;
      case "hello":
        return this.announce();
      case "state":
      case "bye": {
        const { added, removed } = this.presence.replaceRemote(
          m.i,
          m.k === "state" ? m.members : null,
          now,
        );
        if (added.length || removed.length) this.deliver({ k: "presence", added, removed });
        return;
      }
    }
  }
}
