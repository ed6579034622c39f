/**
 * How many sockets one client address may hold open, counted across every
 * instance through the Kv (Redis), so a single address cannot pile up sockets
 * (and the memory each one costs) by spreading them over instances. Each
 * instance also counts its own: the Kv is asked only below the cap, and while
 * Redis is unreachable the cap still holds per instance.
 */
import type { Kv } from "../../kv/kv.ts";

/** A count lives this long after its last renewal: the slots of a crashed instance free themselves. */
const SLOT_TTL_MS = 60_000;
const RENEW_EVERY_MS = SLOT_TTL_MS / 3;

export class AddressQuota {
  private readonly local = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly kv: Kv, readonly limit: number) {}

  start(): void {
    const timer = setInterval(() => {
      this.kv.keepSlots([...this.local.keys()].map(slotKey), SLOT_TTL_MS).catch(() => {});
    }, RENEW_EVERY_MS);
    Deno.unrefTimer(timer);
    this.timer = timer;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Takes a slot for a new socket from `address`; false when the address is at its cap. */
  async take(address: string): Promise<boolean> {
    const here = this.local.get(address) ?? 0;
    if (here >= this.limit) return false;
    this.local.set(address, here + 1);
    let granted = true;
    try {
      granted = await this.kv.takeSlot(slotKey(address), this.limit, SLOT_TTL_MS);
    } catch {
      // Redis unreachable: this instance's own count still caps the address.
    }
    if (!granted) this.drop(address);
    return granted;
  }

  /** The socket from `address` closed. */
  give(address: string): void {
    this.drop(address);
    this.kv.giveSlot(slotKey(address)).catch(() => {});
  }

  private drop(address: string): void {
    const n = (this.local.get(address) ?? 1) - 1;
    if (n <= 0) this.local.delete(address);
    else this.local.set(address, n);
  }
}

const slotKey = (address: string) => `sockets:${address}`;
