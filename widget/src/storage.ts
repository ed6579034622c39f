/// <reference lib="dom" />
/**
 * What the widget remembers about this visitor, per bot key: the visitor id
 * and the open conversation (localStorage, so they survive reloads), and
 * per-tab flags (sessionStorage). Storage can throw (private modes, sandboxed
 * frames); then values live in memory for the page's lifetime.
 */

const memory = new Map<string, string>();

function area(kind: "local" | "session"): Storage | null {
  try {
    const s = kind === "local" ? globalThis.localStorage : globalThis.sessionStorage;
    const probe = "__parley_probe__";
    s.setItem(probe, "1");
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

export class VisitorStore {
  private readonly local = area("local");
  private readonly session = area("session");

  constructor(private readonly key: string) {}

  get(name: string, kind: "local" | "session" = "local"): string | null {
    const k = this.fullKey(name);
    const s = kind === "local" ? this.local : this.session;
    try {
      return s ? s.getItem(k) : memory.get(`${kind}:${k}`) ?? null;
    } catch {
      return memory.get(`${kind}:${k}`) ?? null;
    }
  }

  set(name: string, value: string | null, kind: "local" | "session" = "local"): void {
    const k = this.fullKey(name);
    const s = kind === "local" ? this.local : this.session;
    try {
      if (!s) throw new Error("no storage");
      if (value === null) s.removeItem(k);
      else s.setItem(k, value);
    } catch {
      if (value === null) memory.delete(`${kind}:${k}`);
      else memory.set(`${kind}:${k}`, value);
    }
  }

  /** The visitor id, created on first use: `v_` and 24 random hex digits. */
  visitorId(): string {
    let id = this.get("visitor");
    if (!id || id.length > 100) {
      const bytes = crypto.getRandomValues(new Uint8Array(12));
      id = "v_" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      this.set("visitor", id);
    }
    return id;
  }

  private fullKey(name: string): string {
    return `parley:${this.key}:${name}`;
  }
}
