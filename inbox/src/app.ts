/// <reference lib="dom" />
/**
 * The signed-in inbox: three panes kept current from one inbox view (the
 * `agent.inbox` answer with the open conversation in `active`), reloaded
 * whenever realtime says something changed (polled while it cannot), and
 * keyboard-first: j/k move, r reply, n note, e resolve, t take over, / filter.
 */
import {
  type AgentClient,
  type CannedReply,
  describeFailure,
  type InboxFilter,
  type InboxView,
  type Tag,
  tokenNeedsRefresh,
  type TokenSession,
} from "../../clients/agent_client.ts";
import { followInbox, type InboxLive } from "../../clients/inbox_live.ts";
import type { RealtimeState } from "../../clients/realtime.ts";
import { fill, h } from "./dom.ts";
import { ListView } from "./list_view.ts";
import { type ConversationAction, ConversationView } from "./conversation_view.ts";
import { VisitorView } from "./visitor_view.ts";
import { Composer, type ComposerMode } from "./composer.ts";
import { saveSession } from "./session_store.ts";
import { NotificationsView } from "./notifications_view.ts";
import { ScreenView } from "./screen_view.ts";
import { accountView } from "./account_view.ts";
import { twoFactorSection } from "./two_factor_section.ts";

const REFRESH_CHECK_MS = 3600_000;

export interface AppOptions {
  root: HTMLElement;
  client: AgentClient;
  session: TokenSession;
  setSession(s: TokenSession): void;
  realtimeKey: string | null;
  /** Where the socket server listens (`ws(s)://…`); null: this page's own host. */
  realtimeUrl?: string | null;
  onSignedOut(notice: string | null): void;
}

export class InboxApp {
  #o: AppOptions;
  #view: InboxView | null = null;
  #filter: InboxFilter = "all";
  #openId: string | null = null;
  #search = "";
  #tags: Tag[] = [];
  #live: InboxLive | null = null;
  #loading = false;
  #again = false;
  #debounce: ReturnType<typeof setTimeout> | null = null;
  #refreshTimer: ReturnType<typeof setInterval> | null = null;
  #firstRender = true;
  /** Visitor messages the inbox already asked a suggestion for (copilot_autostart). */
  #autoSuggested = new Set<number>();
  #shownKey = "";
  #list: ListView;
  #conv: ConversationView;
  #visitor: VisitorView;
  #composer: Composer;
  #status: HTMLElement;
  #conn: HTMLElement;
  #shell: HTMLElement;
  #alerts: NotificationsView;
  #screen: ScreenView;
  /** The Account panel (profile, password, sessions, two-factor), built when opened. */
  #account = h("section", { class: "account-panel", "aria-label": "Account", hidden: true });
  #onKey = (e: KeyboardEvent) => this.#key(e);

  constructor(o: AppOptions) {
    this.#o = o;
    this.#list = new ListView({
      onFilter: (f) => {
        this.#filter = f;
        void this.reload();
      },
      onSearch: (text) => {
        this.#search = text;
        this.#render();
      },
      onOpen: (id) => this.open(id),
    });
    this.#composer = new Composer({
      onSend: (mode, text, clientId) => this.#send(mode, text, clientId),
      onCannedUsed: (c: CannedReply) => {
        void o.client.agent.cannedUsed.mutate({ canned: c.id }).catch(() => {});
      },
      onTyping: (typing) => this.#live?.typing(typing, this.#o.session.user.name),
      onSuggest: async (draft) => {
        const conversation = this.#openId;
        if (!conversation) return null;
        try {
          const r = await this.#c.suggest.mutate({
            conversation,
            ...(draft.trim() ? { draft } : {}),
          });
          if (!r.suggestion) this.#say("The AI has no suggestion for this conversation.");
          return r.suggestion ? { id: r.id, text: r.suggestion } : null;
        } catch (err) {
          this.#failed(err);
          return null;
        }
      },
      onSuggestionOutcome: (id, outcome) => {
        void this.#c.suggestionOutcome.mutate({ suggestion: id, outcome }).catch(() => {});
      },
    });
    this.#conv = new ConversationView(
      this.#composer.root,
      (a) => void this.#act(a),
      (message, question, answer) => this.#correct(message, question, answer),
    );
    this.#screen = new ScreenView({
      client: o.client,
      follow: (id) => this.#live?.followScreen(id),
      say: (text) => this.#say(text),
    });
    this.#conv.attach(this.#screen.root);
    this.#visitor = new VisitorView({
      onAttach: (tagId) =>
        void this.#do(() =>
          this.#c.attachTag.mutate({ conversation: this.#openId!, tag_id: tagId })
        ),
      onDetach: (tagId) =>
        void this.#do(() => this.#c.detachTag.mutate({ conversation: this.#openId!, tag: tagId })),
    });
    this.#status = h("p", { class: "status", role: "status", "aria-live": "polite" });
    this.#alerts = new NotificationsView(o.client);
    this.#conn = h("span", { class: "conn", "data-state": "connecting" }, "connecting");
    const top = h(
      "header",
      { class: "top" },
      h("strong", { class: "brand" }, "Parley"),
      h("span", { class: "workspace" }, o.session.company.name),
      this.#conn,
      h("span", { class: "spacer" }),
      h("span", { class: "me" }, o.session.user.name),
      // Owners and administrators also run the workspace: the dashboard is one click away.
      o.session.user.role === "Agent"
        ? null
        : h("a", { class: "to-dashboard", href: "/dashboard" }, "Dashboard"),
      h(
        "button",
        { type: "button", class: "alerts-toggle", onClick: () => this.#alerts.toggle() },
        "Alerts",
      ),
      h(
        "button",
        { type: "button", class: "account-toggle", onClick: () => void this.#toggleAccount() },
        "Account",
      ),
      h(
        "button",
        { type: "button", class: "signout", onClick: () => void this.signOut() },
        "Sign out",
      ),
    );
    this.#shell = h(
      "div",
      { class: "shell" },
      top,
      h("div", { class: "panes" }, this.#list.root, this.#conv.root, this.#visitor.root),
      this.#status,
      this.#alerts.root,
      this.#account,
    );
    fill(o.root, this.#shell);
    this.#composer.setEnabled(false);
  }

  get #c() {
    return this.#o.client.agent;
  }

  async start(): Promise<void> {
    document.addEventListener("keydown", this.#onKey);
    this.#openId = conversationIn(location.href);
    // A click on a push alert while the inbox is open (the service worker asks us).
    navigator.serviceWorker?.addEventListener("message", (e) => {
      const msg = e.data as { type?: string; url?: string } | null;
      const id = msg?.type === "parley:open" && msg.url ? conversationIn(msg.url) : null;
      if (id) this.open(id);
    });
    void this.#renewIfDue();
    this.#refreshTimer = setInterval(() => void this.#renewIfDue(), REFRESH_CHECK_MS);
    const [canned, tags] = await Promise.all([
      this.#c.canned.query({}).catch(() => ({ canned: [] })),
      this.#c.tags.query({}).catch(() => ({ tags: [] })),
    ]);
    this.#composer.setCanned(canned.canned);
    this.#tags = tags.tags;
    await this.reload();
    this.#live = followInbox({
      baseUrl: this.#o.realtimeUrl ?? location.origin,
      client: this.#o.client,
      realtimeKey: this.#o.realtimeKey,
      workspaceId: this.#o.session.company.id,
      onChange: () => this.#schedule(),
      onEvent: (channel, event, data) => {
        this.#screen.event(channel, event, data);
        if (channel !== `private-conversation.${this.#openId}`) return;
        if (event === "message.created") return this.#conv.showTyping(null);
        if (event !== "client-typing") return;
        const t = data as { role?: string; typing?: boolean; name?: string };
        const who = t.role === "visitor" ? this.#view?.active?.visitor ?? "The visitor" : t.name;
        this.#conv.showTyping(t.typing ? who ?? "A teammate" : null);
      },
      onState: (s) => this.#showConnection(s),
      onSubscribed: (channel) => void this.#screen.subscribed(channel),
      onSubscribeError: (channel, message) => this.#screen.refused(channel, message),
    });
    this.#live.follow(this.#openId);
  }

  stop(): void {
    document.removeEventListener("keydown", this.#onKey);
    this.#live?.close();
    if (this.#refreshTimer) clearInterval(this.#refreshTimer);
  }

  async #toggleAccount(): Promise<void> {
    if (!this.#account.hidden) {
      this.#account.hidden = true;
      return;
    }
    this.#account.hidden = false;
    const close = h("button", {
      type: "button",
      class: "close",
      onClick: () => (this.#account.hidden = true),
    }, "Close");
    try {
      const say = (t: string) => this.#say(t);
      const [view, twoFactor] = await Promise.all([
        accountView(this.#o.client.dashboard, say),
        twoFactorSection(this.#o.client.dashboard, say),
      ]);
      fill(
        this.#account,
        h("div", { class: "alerts-head" }, h("h2", null, "Account"), close),
        view,
        twoFactor,
      );
    } catch (err) {
      this.#failed(err);
      this.#account.hidden = true;
    }
  }

  async signOut(): Promise<void> {
    await this.#c.logout.mutate({}).catch(() => {});
    this.stop();
    this.#o.onSignedOut(null);
  }

  open(id: string | null): void {
    if (id !== this.#openId) {
      this.#screen.close();
      this.#composer.reset();
      this.#conv.showTyping(null);
    }
    this.#openId = id;
    history.replaceState(null, "", id ? `/inbox?conversation=${id}` : "/inbox");
    this.#live?.follow(id);
    this.#render();
    void this.reload();
  }

  /** Loads the inbox (and the open conversation) now; calls made meanwhile coalesce into one. */
  async reload(): Promise<void> {
    if (this.#loading) {
      this.#again = true;
      return;
    }
    this.#loading = true;
    try {
      do {
        this.#again = false;
        const filter = this.#filter;
        const openId = this.#openId;
        const view = await this.#c.inbox.query({ filter, conversation: openId ?? undefined });
        if (filter === this.#filter && openId === this.#openId) {
          this.#view = view;
          this.#render();
        } else {
          this.#again = true;
        }
      } while (this.#again);
    } catch (err) {
      this.#failed(err);
    } finally {
      this.#loading = false;
    }
  }

  #schedule(): void {
    if (this.#debounce) return;
    this.#debounce = setTimeout(() => {
      this.#debounce = null;
      void this.reload();
    }, 60);
  }

  #render(): void {
    const view = this.#view;
    if (!view) return;
    // Most live reloads change nothing on screen: leave the page (focus, open menus) alone then.
    const key = `${this.#filter}|${this.#openId}|${this.#search}|${JSON.stringify(view)}`;
    if (key === this.#shownKey) return;
    this.#shownKey = key;
    const first = this.#firstRender;
    if (first) performance.mark("inbox-render-start");
    this.#list.render(view, this.#filter, this.#openId, this.#search);
    const active = view.active && view.active.id === this.#openId ? view.active : null;
    if (active) {
      this.#conv.render(active);
      this.#visitor.render(active, this.#tags);
      this.#composer.setCopilot(active.copilot);
      this.#autostart(active);
    } else {
      this.#conv.renderEmpty(this.#openId !== null && !view.active);
      this.#visitor.renderEmpty();
    }
    this.#composer.setEnabled(active !== null);
    this.#shell.classList.toggle("has-open", this.#openId !== null);
    if (first) {
      this.#firstRender = false;
      void this.#shell.offsetHeight; // lay out, so the measure covers what the agent sees
      performance.measure("inbox-first-render", "inbox-render-start");
      document.body.dataset.ready = "1";
    }
  }

  /** `copilot_autostart`: a suggestion for an unanswered visitor message, once per message. */
  #autostart(active: NonNullable<InboxView["active"]>): void {
    const last = active.messages[active.messages.length - 1];
    if (!active.copilot_autostart || active.status === "closed" || last?.role !== "visitor") return;
    if (this.#autoSuggested.has(last.id)) return;
    this.#autoSuggested.add(last.id);
    this.#composer.autoSuggest();
  }

  async #send(mode: ComposerMode, text: string, clientId: string): Promise<boolean> {
    const id = this.#openId;
    if (!id) return false;
    try {
      if (mode === "note") {
        await this.#c.note.mutate({ conversation: id, body: text });
      } else {
        await this.#c.reply.mutate({ conversation: id, body: text, client_id: clientId });
      }
      this.#say("");
      void this.reload();
      return true;
    } catch (err) {
      this.#failed(err);
      return false;
    }
  }

  /** "Correct this answer": the error text to show in the form, or null when saved. */
  async #correct(message: number, question: string, answer: string): Promise<string | null> {
    const conversation = this.#openId;
    if (!conversation) return "No conversation is open.";
    try {
      await this.#c.correctAnswer.mutate({
        conversation,
        message,
        question: question || undefined,
        answer,
      });
      this.#say("Correction saved: the bot answers from it from now on.");
      return null;
    } catch (err) {
      const f = describeFailure(err);
      if (f.status === 401) this.#failed(err);
      return f.errors ? Object.values(f.errors).flat().join(" ") : f.message;
    }
  }

  async #act(a: ConversationAction): Promise<void> {
    const conversation = this.#openId;
    if (a === "back") return this.open(null);
    if (!conversation) return;
    if (a === "screen") return this.#screen.open(conversation);
    const me = this.#o.session.user.id;
    const c = this.#c;
    const calls: Record<Exclude<ConversationAction, "back" | "screen">, () => Promise<unknown>> = {
      takeover: () => c.takeover.mutate({ conversation }),
      release: () => c.release.mutate({ conversation }),
      resolve: () => c.resolve.mutate({ conversation }),
      reopen: () => c.reopen.mutate({ conversation }),
      "assign-me": () => c.assign.mutate({ conversation, user_id: me }),
      unassign: () => c.assign.mutate({ conversation, user_id: null }),
      watch: () => c.watch.mutate({ conversation, watching: true }),
      unwatch: () => c.watch.mutate({ conversation, watching: false }),
      block: () => c.block.mutate({ conversation, blocked: true }),
      unblock: () => c.block.mutate({ conversation, blocked: false }),
    };
    await this.#do(calls[a]);
  }

  async #do(call: () => Promise<unknown>): Promise<void> {
    if (!this.#openId) return;
    try {
      await call();
      this.#say("");
      await this.reload();
    } catch (err) {
      this.#failed(err);
    }
  }

  #key(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.closest("input, textarea, select") || t.isContentEditable)) return;
    const active = this.#view?.active ?? null;
    switch (e.key) {
      case "j":
      case "k": {
        const rows = [...this.#list.root.querySelectorAll<HTMLElement>("li[data-id]")];
        if (!rows.length) return;
        const at = rows.findIndex((r) => r.dataset.id === this.#openId);
        const next = at === -1
          ? 0
          : Math.max(0, Math.min(rows.length - 1, at + (e.key === "j" ? 1 : -1)));
        rows[next]!.scrollIntoView({ block: "nearest" });
        this.open(rows[next]!.dataset.id!);
        break;
      }
      case "r":
        if (active) this.#composer.focus("reply");
        break;
      case "n":
        if (active) this.#composer.focus("note");
        break;
      case "e":
        if (active && active.status !== "closed") void this.#act("resolve");
        break;
      case "t":
        if (active && active.status !== "closed") void this.#act("takeover");
        break;
      case "/":
        this.#list.focusSearch();
        break;
      case "Escape":
        if (this.#openId) this.open(null);
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  /** Renews the token once past half its life; a failure leaves the current one to try later. */
  async #renewIfDue(): Promise<void> {
    if (!tokenNeedsRefresh(this.#o.session.expires_at)) return;
    try {
      const fresh = await this.#c.refresh.mutate({});
      this.#o.session = fresh;
      this.#o.setSession(fresh);
      saveSession(fresh);
    } catch (err) {
      if (describeFailure(err).status === 401) this.#failed(err);
    }
  }

  #failed(err: unknown): void {
    const f = describeFailure(err);
    if (f.status === 401) {
      this.stop();
      this.#o.onSignedOut("Your session has ended. Sign in again.");
      return;
    }
    this.#say(f.errors ? Object.values(f.errors).flat().join(" ") : f.message, true);
  }

  #say(text: string, error = false): void {
    this.#status.textContent = text;
    this.#status.classList.toggle("is-error", error);
  }

  #showConnection(s: RealtimeState): void {
    this.#conn.dataset.state = s;
    this.#conn.textContent = s === "connected"
      ? "live"
      : s === "connecting"
      ? "connecting"
      : "polling";
    this.#conn.title = s === "connected"
      ? "Updates arrive as they happen"
      : "Realtime unavailable: the inbox is refreshed every few seconds";
  }
}

/** The conversation a link names: `/inbox?conversation=<id>` (the alerts' deep link). */
function conversationIn(href: string): string | null {
  const id = new URL(href, location.origin).searchParams.get("conversation") ?? "";
  return /^[0-9a-f-]{36}$/i.test(id) ? id.toLowerCase() : null;
}
