/// <reference lib="dom" />
/**
 * A list screen's rows over the server's keyset cursor, newest first, with
 * "Load more" and a line saying how many are shown. Shared by the history,
 * contacts and audit log screens. A later load wins over an earlier one
 * still in flight (a filter changed twice quickly), so rows never mix.
 */
import { h } from "../../inbox/src/dom.ts";

export interface KeysetPage<Row> {
  data: Row[];
  next_cursor: string | null;
}

export interface KeysetListOptions<Row> {
  /** One page: the first when `cursor` is null. The caller's filter lives in this closure. */
  fetch(cursor: string | null): Promise<KeysetPage<Row>>;
  row(r: Row): HTMLElement;
  /** The status line: `shown` rows so far, and whether more remain. */
  describe(shown: number, more: boolean): string;
  /** A load failed: show why (the caller owns the error line). */
  failed(err: unknown): void;
  /** A load succeeded: clear what `failed` showed. */
  loaded(): void;
}

export interface KeysetList {
  body: HTMLElement;
  more: HTMLButtonElement;
  summary: HTMLElement;
  /** From the first page again (a new filter). */
  reload(): Promise<void>;
}

export function keysetList<Row>(o: KeysetListOptions<Row>): KeysetList {
  const body = h("tbody");
  const more: HTMLButtonElement = h("button", { type: "button", hidden: true }, "Load more");
  const summary = h("p", { class: "muted", role: "status" });
  let cursor: string | null = null;
  let shown = 0;
  let seq = 0;
  const load = async (append: boolean) => {
    const mine = ++seq;
    try {
      const res = await o.fetch(append ? cursor : null);
      if (mine !== seq) return;
      o.loaded();
      if (!append) {
        body.replaceChildren();
        shown = 0;
      }
      body.append(...res.data.map(o.row));
      shown += res.data.length;
      cursor = res.next_cursor;
      more.hidden = cursor === null;
      summary.textContent = o.describe(shown, cursor !== null);
    } catch (err) {
      if (mine === seq) o.failed(err);
    }
  };
  more.addEventListener("click", () => void load(true));
  return { body, more, summary, reload: () => load(false) };
}
