/// <reference lib="dom" />
/**
 * The dashboard's frame: the brand (the workspace's own under the white-label
 * portal), the navigation built from `screens.ts`, the signed-in user with a
 * link to the inbox and sign-out, and the screen of the URL's hash
 * (`#/bots/acme-helper/knowledge`). Holds the session's realtime feed
 * (`clients/dashboard_live.ts`) for the screens. Renews the token past half
 * its life, as the inbox does, and leaves for the sign-in form when the
 * server says 401.
 */
import {
  type DashboardClient,
  type DashboardSession,
  describeFailure,
  tokenNeedsRefresh,
} from "../../clients/dashboard_client.ts";
import { type DashboardLive, followDashboard } from "../../clients/dashboard_live.ts";
import { fill, h } from "../../inbox/src/dom.ts";
import type { Screen, ScreenContext } from "./screen.ts";
import { SCREENS } from "./screens.ts";
import { failureText } from "./ui.ts";

const RENEW_CHECK_MS = 60_000;

export interface ShellOptions {
  root: HTMLElement;
  client: DashboardClient;
  session: DashboardSession;
  realtimeKey: string | null;
  /** The socket server's `ws(s)://` address (REALTIME_URL); null: ask this page's origin. */
  realtimeUrl: string | null;
  setSession(fresh: DashboardSession): void;
  onSignedOut(notice: string | null): void;
}

export class DashboardShell {
  #o: ShellOptions;
  #main = h("main", { id: "main", tabindex: "-1" });
  #nav = h("ul", { class: "nav-list" });
  #status = h("div", { class: "status-line", role: "status", "aria-live": "polite" });
  #leave: (() => void)[] = [];
  #renewTimer: ReturnType<typeof setInterval> | null = null;
  #renderSeq = 0;
  #live: DashboardLive | null = null;
  #onHash = () => void this.#route();
  #menu: HTMLButtonElement | null = null;

  constructor(o: ShellOptions) {
    this.#o = o;
  }

  start(): void {
    const s = this.#o.session;
    const brandName = s.brand?.name ?? "Parley";
    document.title = `Dashboard · ${brandName}`;
    const logo = s.brand?.logo_url
      ? h("img", { class: "brand-logo", src: s.brand.logo_url, alt: "" })
      : h("span", { class: "brand-mark", "aria-hidden": "true" }, brandName.charAt(0));
    const brand = h(
      "a",
      { class: "brand", href: "#/overview" },
      logo,
      h("span", { class: "brand-name" }, brandName),
      s.brand ? h("span", { class: "powered-by" }, `powered by ${s.brand.powered_by}`) : null,
    );
    for (const screen of this.#screens()) {
      this.#nav.append(
        h(
          "li",
          null,
          h("a", { href: `#/${screen.path}`, "data-screen": screen.path }, screen.title),
        ),
      );
    }
    // On a phone the navigation folds behind this button (dashboard.css): every entry,
    // however many screens.ts lists, is one tap away instead of scrolled out of sight.
    this.#menu = h("button", {
      type: "button",
      class: "nav-toggle",
      "aria-controls": "dashboard-nav",
      "aria-expanded": "false",
      onClick: () => this.#toggleMenu(),
    }, "Menu");
    const signOut = h("button", {
      type: "button",
      class: "link",
      onClick: () => void this.#signOut(),
    }, "Sign out");
    fill(
      this.#o.root,
      h("a", { class: "skip", href: "#main", onClick: (e) => this.#skip(e) }, "Skip to content"),
      h(
        "div",
        { class: "shell" },
        h(
          "header",
          { class: "top" },
          brand,
          this.#menu,
          h(
            "div",
            { class: "who" },
            h("span", { class: "user-name" }, s.user.name),
            h("span", { class: "role-badge", "data-role": s.user.role }, s.user.role_label),
            h("span", { class: "company" }, s.company.name),
            h("a", { href: "/inbox", class: "to-inbox" }, "Inbox"),
            signOut,
          ),
        ),
        h("nav", { class: "side", id: "dashboard-nav", "aria-label": "Dashboard" }, this.#nav),
        h("div", { class: "content" }, this.#status, this.#main),
      ),
    );
    this.#oneNoticeAtATime();
    // One socket for the session; screens listen to it while they are shown.
    this.#live = followDashboard({
      client: this.#o.client,
      baseUrl: this.#o.realtimeUrl ?? location.origin,
      realtimeKey: this.#o.realtimeKey,
      workspaceId: s.company.id,
    });
    addEventListener("hashchange", this.#onHash);
    this.#renewTimer = setInterval(() => void this.#renewIfDue(), RENEW_CHECK_MS);
    void this.#renewIfDue();
    void this.#route();
  }

  stop(): void {
    removeEventListener("hashchange", this.#onHash);
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    this.#leaveScreen();
    this.#live?.close();
    this.#live = null;
  }

  /**
   * One notice at a time, cleared by the next action: the status line (ctx.notify)
   * and every screen's error lines (`.form-error`, `.field-error`) are emptied when
   * a form is sent or a button pressed, before the action's own handler runs; an
   * error that appears clears the status line, and a notice clears the errors. So
   * a success never stays beside a later error, nor an error beside later successes,
   * on any screen, without each screen having to remember to.
   */
  #oneNoticeAtATime(): void {
    const clear = () => {
      this.#status.textContent = "";
      this.#clearErrors();
    };
    this.#main.addEventListener("submit", clear, true);
    this.#main.addEventListener("click", (e) => {
      const button = (e.target as Element).closest("button");
      if (button && button.type !== "submit" && !button.disabled) clear();
    }, true);
    new MutationObserver((records) => {
      const errorShown = records.some((r) => {
        const el = r.target instanceof Element ? r.target : r.target.parentElement;
        const slot = el?.closest(".form-error, .field-error");
        return !!slot?.textContent?.trim();
      });
      if (errorShown) this.#status.textContent = "";
    }).observe(this.#main, { subtree: true, childList: true, characterData: true });
  }

  #clearErrors(): void {
    for (const el of this.#main.querySelectorAll(".form-error, .field-error")) {
      el.textContent = "";
    }
  }

  /** Opens or folds the phone navigation; `open` forces a state. */
  #toggleMenu(open?: boolean): void {
    const shell = this.#o.root.querySelector(".shell");
    const next = open ?? !shell?.classList.contains("nav-open");
    shell?.classList.toggle("nav-open", next);
    this.#menu?.setAttribute("aria-expanded", String(next));
  }

  #skip(e: Event): void {
    e.preventDefault();
    this.#main.focus();
  }

  #leaveScreen(): void {
    for (const fn of this.#leave.splice(0)) {
      try {
        fn();
      } catch { /* a screen's clean-up must not stop the next screen */ }
    }
  }

  async #route(): Promise<void> {
    const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean)
      .map((p) => decodeURIComponent(p));
    const screens = this.#screens();
    const screen = screens.find((s) => s.path === parts[0]) ?? screens[0]!;
    const seq = ++this.#renderSeq;
    this.#leaveScreen();
    delete document.body.dataset.screen;
    this.#toggleMenu(false);
    if (this.#menu) this.#menu.textContent = `Menu · ${screen.title}`;
    for (const a of this.#nav.querySelectorAll("a")) {
      if (a.dataset.screen === screen.path) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    const ctx = this.#context(screen.path, seq);
    fill(this.#main, h("p", { class: "loading" }, "Loading…"));
    // Marks around each render (its calls included), read by the browser test.
    performance.mark(`screen-start:${screen.path}:${seq}`);
    try {
      const view = await screen.render(ctx, parts.slice(1));
      if (seq !== this.#renderSeq) return;
      fill(this.#main, view);
      void this.#main.offsetHeight; // lay the page out: the render is done when it can paint
      performance.measure(`screen:${screen.path}`, `screen-start:${screen.path}:${seq}`);
      const data = `screen-data:${screen.path}:${seq}`;
      if (performance.getEntriesByName(data, "mark").length) {
        performance.measure(`screen-render:${screen.path}`, data);
      }
      document.body.dataset.screen = screen.path;
    } catch (err) {
      if (seq !== this.#renderSeq) return;
      const f = describeFailure(err);
      fill(
        this.#main,
        h(
          "div",
          { class: "screen-error", role: "alert" },
          h("h1", null, f.status === 404 ? "Not found" : "Something went wrong"),
          h("p", null, failureText(err)),
          h("a", { href: `#/${screen.path}` }, `Back to ${screen.title}`),
        ),
      );
    }
  }

  /** The screens this role may open: a screen with a permission is hidden from others. */
  #screens(): readonly Screen[] {
    const held = this.#o.session.permissions;
    return SCREENS.filter((s) => !s.permission || held.includes(s.permission));
  }

  #context(path: string, seq: number): ScreenContext {
    const s = this.#o.session;
    return {
      dataReady: () => performance.mark(`screen-data:${path}:${seq}`),
      client: this.#o.client,
      session: s,
      can: (p) => s.permissions.includes(p),
      navigate: (path) => {
        location.hash = `#/${path}`;
      },
      onLeave: (fn) => this.#leave.push(fn),
      notify: (message) => {
        // A notice replaces whatever was said before it, errors included.
        if (message) this.#clearErrors();
        this.#status.textContent = message;
      },
      live: this.#live!,
    };
  }

  async #renewIfDue(): Promise<void> {
    if (!tokenNeedsRefresh(this.#o.session.expires_at)) return;
    try {
      const fresh = await this.#o.client.refresh.mutate({});
      this.#o.session = fresh;
      this.#o.setSession(fresh);
    } catch {
      // A 401 signs out through the client's hook; anything else is retried next minute.
    }
  }

  async #signOut(): Promise<void> {
    try {
      await this.#o.client.logout.mutate({});
    } catch { /* signed out locally either way */ }
    this.#o.onSignedOut(null);
  }
}
