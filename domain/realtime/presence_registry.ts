/**
 * Who is on each presence channel, across instances: members held by this
 * instance's sockets (counted per user, since one agent may have several
 * tabs), plus the members other instances announced. A user is present while
 * any instance holds a socket for them; callers learn when that flips, to
 * send `member_added` / `member_removed` exactly once.
 */

export type MemberInfo = unknown;
type Members = Map<string, MemberInfo>;

interface Remote {
  seenAt: number;
  channels: Map<string, Members>;
}

/** A snapshot of one instance's members: channel → user id → info. */
export type MemberState = Record<string, Record<string, MemberInfo>>;

export class PresenceRegistry {
  private readonly local = new Map<string, Map<string, { info: MemberInfo; sockets: number }>>();
  private readonly remote = new Map<string, Remote>();

  /** Adds one local socket of `userId`; true when the user was not present anywhere before. */
  addLocal(channel: string, userId: string, info: MemberInfo): boolean {
    const wasPresent = this.isPresent(channel, userId);
    let members = this.local.get(channel);
    if (!members) this.local.set(channel, members = new Map());
    const entry = members.get(userId);
    if (entry) {
      entry.sockets++;
      entry.info = info;
    } else members.set(userId, { info, sockets: 1 });
    return !wasPresent;
  }

  /** Removes one local socket; `lastLocal` when this instance no longer holds the user, `gone` when no instance does. */
  removeLocal(channel: string, userId: string): { lastLocal: boolean; gone: boolean } {
    const members = this.local.get(channel);
    const entry = members?.get(userId);
    if (!members || !entry) return { lastLocal: false, gone: false };
    if (--entry.sockets > 0) return { lastLocal: false, gone: false };
    members.delete(userId);
    if (members.size === 0) this.local.delete(channel);
    return { lastLocal: true, gone: !this.isPresent(channel, userId) };
  }

  /** Another instance gained the user; true when they were not present anywhere before. */
  addRemote(instance: string, channel: string, userId: string, info: MemberInfo, now: number) {
    const wasPresent = this.isPresent(channel, userId);
    const r = this.remoteOf(instance, now);
    let members = r.channels.get(channel);
    if (!members) r.channels.set(channel, members = new Map());
    members.set(userId, info);
    return !wasPresent;
  }

  /** Another instance lost the user; true when nobody holds them any more. */
  removeRemote(instance: string, channel: string, userId: string, now: number): boolean {
    const r = this.remoteOf(instance, now);
    const members = r.channels.get(channel);
    if (!members?.delete(userId)) return false;
    if (members.size === 0) r.channels.delete(channel);
    return !this.isPresent(channel, userId);
  }

  /**
   * Replaces what an instance holds (its periodic announcement); returns the
   * users that appeared and disappeared overall, per channel.
   */
  replaceRemote(instance: string, state: MemberState | null, now: number) {
    const before = this.remote.get(instance);
    const touched = new Set<string>([
      ...(before ? before.channels.keys() : []),
      ...Object.keys(state ?? {}),
    ]);
    const snapshot = new Map<string, Set<string>>();
    for (const ch of touched) snapshot.set(ch, new Set(this.members(ch).keys()));
    if (state) {
      const channels = new Map<string, Members>();
      for (const [ch, m] of Object.entries(state)) channels.set(ch, new Map(Object.entries(m)));
      this.remote.set(instance, { seenAt: now, channels });
    } else this.remote.delete(instance);
    const added: [string, string, MemberInfo][] = [];
    const removed: [string, string][] = [];
    for (const ch of touched) {
      const was = snapshot.get(ch)!;
      const is = this.members(ch);
      for (const [u, info] of is) if (!was.has(u)) added.push([ch, u, info]);
      for (const u of was) if (!is.has(u)) removed.push([ch, u]);
    }
    return { added, removed };
  }

  /** Instances not heard from since `before` (crashed without saying goodbye). */
  staleInstances(before: number): string[] {
    return [...this.remote].filter(([, r]) => r.seenAt < before).map(([id]) => id);
  }

  /** Everyone present on a channel, on any instance. */
  members(channel: string): Members {
    const out: Members = new Map();
    for (const r of this.remote.values()) {
      for (const [u, info] of r.channels.get(channel) ?? []) out.set(u, info);
    }
    for (const [u, e] of this.local.get(channel) ?? []) out.set(u, e.info);
    return out;
  }

  /** What this instance holds, for announcements to the others. */
  localState(): MemberState {
    const out: MemberState = {};
    for (const [ch, members] of this.local) {
      out[ch] = Object.fromEntries([...members].map(([u, e]) => [u, e.info]));
    }
    return out;
  }

  private isPresent(channel: string, userId: string): boolean {
    if (this.local.get(channel)?.has(userId)) return true;
    for (const r of this.remote.values()) if (r.channels.get(channel)?.has(userId)) return true;
    return false;
  }

  private remoteOf(instance: string, now: number): Remote {
    let r = this.remote.get(instance);
    if (!r) this.remote.set(instance, r = { seenAt: now, channels: new Map() });
    r.seenAt = now;
    return r;
  }
}
