/// <reference lib="dom" />
/**
 * The `sound` flag's notification: a short two-note chime made with the Web
 * Audio API (no audio file to download), played when an agent's or the AI's
 * message arrives while the chat is closed or the tab hidden. Never before
 * the visitor has interacted with the page: browsers keep audio suspended
 * until then (autoplay rules), and a sound out of nowhere startles.
 */
export class Chime {
  private interacted = false;
  private ctx: AudioContext | null = null;

  constructor(private readonly enabled: boolean) {
    if (!enabled) return;
    const mark = (e: Event) => {
      if (e.isTrusted) this.interacted = true;
    };
    for (const type of ["pointerdown", "keydown", "touchstart"]) {
      addEventListener(type, mark, { capture: true, passive: true });
    }
  }

  play(): void {
    if (!this.enabled || !this.interacted || typeof AudioContext !== "function") return;
    try {
      const ctx = this.ctx ??= new AudioContext();
      if (ctx.state === "suspended") void ctx.resume();
      const t = ctx.currentTime;
      const gain = ctx.createGain();
      gain.connect(ctx.destination);
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.15, t + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.4);
      for (const [freq, at] of [[880, 0], [1320, 0.1]] as const) {
        const osc = ctx.createOscillator();
        osc.frequency.setValueAtTime(freq, t + at);
        osc.connect(gain);
        osc.start(t + at);
        osc.stop(t + at + 0.3);
      }
    } catch { /* no audio output: stay silent */ }
  }
}
