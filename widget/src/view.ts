/// <reference lib="dom" />
/**
 * The widget's DOM skeleton inside its shadow root: the launcher button, the
 * chat dialog (header, message log, quick replies, composer) and the
 * proactive teaser. It only builds and returns references; behaviour lives
 * in the controller.
 */
import { h, icon, ICONS } from "./dom.ts";
import { STYLES } from "./styles.ts";
import { themeProperties } from "./themes.ts";
import type { WidgetConfig } from "./types.ts";

export interface View {
  root: HTMLDivElement;
  launcher: HTMLButtonElement;
  /** Unread agent messages, on the launcher. */
  badge: HTMLSpanElement;
  panel: HTMLDivElement;
  log: HTMLDivElement;
  chips: HTMLDivElement;
  composer: HTMLFormElement;
  input: HTMLTextAreaElement;
  send: HTMLButtonElement;
  close: HTMLButtonElement;
  human: HTMLButtonElement;
  newChat: HTMLButtonElement;
  proactive: HTMLDivElement;
  /** The teaser's text, a button that opens the chat. */
  proactiveOpen: HTMLButtonElement;
  proactiveClose: HTMLButtonElement;
  /** "Sharing this page · Stop", shown while the visitor shares their screen. */
  shareBar: HTMLDivElement;
}

/** Mounts the widget on `document.body` and applies the bot's branding. */
export function mountView(config: WidgetConfig): View {
  const b = config.branding;
  const host = h("div", { id: "parley-widget", "data-parley": config.public_key });
  const shadow = host.attachShadow({ mode: "open" });
  const layout = ["compact", "fullscreen"].includes(b.layout) ? b.layout : "";
  const root = h("div", {
    class: `root ${b.position === "left" ? "left" : ""} ${layout}`,
    "data-theme": b.theme,
  });
  for (const [k, v] of Object.entries(themeProperties(b.theme, b.primary_color))) {
    root.style.setProperty(k, v);
  }

  const panelId = "parley-panel";
  const launcherKind = b.launcher === "tab" || b.launcher === "hidden" ? b.launcher : "";
  const launcher = h(
    "button",
    {
      type: "button",
      class: `launcher ${launcherKind}`,
      "aria-expanded": "false",
      "aria-controls": panelId,
      "aria-haspopup": "dialog",
    },
    icon(ICONS.chat),
    h("span", {}, b.launcher_text || "Chat"),
  );
  const badge = h("span", { class: "badge", hidden: true });
  launcher.append(badge);

  const hbtn = (label: string, path: string) => {
    const btn = h("button", { type: "button", class: "hbtn", "aria-label": label, title: label });
    btn.append(icon(path));
    return btn;
  };
  const human = hbtn("Talk to a human", ICONS.human);
  const newChat = hbtn("Start a new chat", ICONS.refresh);
  const close = hbtn("Close chat", ICONS.close);
  const logo = httpUrl(b.logo_url ?? b.avatar_url);
  const header = h(
    "div",
    { class: "header" },
    logo ? h("img", { src: logo, alt: "" }) : null,
    h(
      "div",
      { class: "heading" },
      h("h2", { class: "title", id: "parley-title" }, b.title || config.name),
      b.subtitle ? h("p", { class: "subtitle" }, b.subtitle) : null,
    ),
    human,
    newChat,
    close,
  );

  const log = h("div", {
    class: "log",
    role: "log",
    "aria-live": "polite",
    "aria-relevant": "additions text",
    "aria-label": "Conversation",
    tabindex: "0",
  });
  const chips = h("div", { class: "chips", role: "group", "aria-label": "Suggested questions" });
  const input = h("textarea", {
    rows: "1",
    placeholder: "Type your message…",
    "aria-label": "Message",
    maxlength: "4000",
  });
  const send = h("button", { type: "submit", class: "send", "aria-label": "Send message" });
  send.append(icon(ICONS.send));
  const composer = h("form", { class: "composer" }, input, send);
  const panel = h(
    "div",
    {
      class: "panel",
      id: panelId,
      role: "dialog",
      "aria-label": `${b.title || config.name} chat`,
      hidden: true,
    },
    header,
    log,
    chips,
    composer,
    h("div", { class: "brand" }, "Powered by Parley"),
  );

  const proactiveOpen = h("button", { type: "button", class: "teaser" });
  const proactiveClose = hbtn("Dismiss message", ICONS.close);
  const proactive = h(
    "div",
    { class: "proactive", role: "status", hidden: true },
    proactiveOpen,
    proactiveClose,
  );

  const shareBar = h("div", { class: "sharebar", role: "status", hidden: true });
  root.append(panel, proactive, shareBar, launcher);
  adoptStyles(shadow);
  shadow.append(root);
  document.body.append(host);
  return {
    root,
    launcher,
    badge,
    panel,
    log,
    chips,
    composer,
    input,
    send,
    close,
    human,
    newChat,
    proactive,
    proactiveOpen,
    proactiveClose,
    shareBar,
  };
}

/** The URL when it is http(s), else null: images come only from the web. */
export function httpUrl(url: string | null | undefined): string | null {
  return url && /^https?:\/\//i.test(url) ? url : null;
}

/**
 * A constructed stylesheet is CSSOM, not inline CSS, so host pages with a
 * strict `style-src` need no 'unsafe-inline' for us; older browsers get a
 * `<style>` element instead.
 */
function adoptStyles(shadow: ShadowRoot): void {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    shadow.adoptedStyleSheets = [sheet];
  } catch {
    const style = h("style");
    style.textContent = STYLES;
    shadow.append(style);
  }
}
