/// <reference lib="dom" />
/**
 * A bot's branding (`#/bots/<key>/branding`): every branding field of the
 * spec (colours, theme, layout, launcher, position, texts, images, quick
 * replies, the proactive message, the pre-chat form, the feature flags) in a
 * form beside a live preview. The preview is a frame running the real
 * widget.js with the draft laid over the bot's configuration
 * (dashboard/preview/preview.ts); it reloads as one types. Saving goes through
 * updateBot, the portal's own update, so its merge rules hold.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardInputs } from "../../../clients/dashboard_client.ts";
import type { ScreenContext } from "../screen.ts";
import { errorLine, field, pageHeader, readOnlyNote, showFieldErrors } from "../ui.ts";
import { botTabs } from "./bot_tabs.ts";
import {
  COMPOSER_STYLES,
  LAUNCHERS,
  LAYOUTS,
  PROACTIVE_FREQUENCIES,
  RECOMMEND_MODES,
  THEMES,
} from "../../../domain/chatbots/branding.ts";
import {
  type Choices,
  COMPOSER_WORDS,
  FLAG_WORDS,
  FREQUENCY_WORDS,
  LAUNCHER_WORDS,
  LAYOUT_WORDS,
  POSITION_WORDS,
  RECOMMEND_WORDS,
  THEME_WORDS,
} from "./branding_words.ts";

type BrandingDraft = NonNullable<DashboardInputs["updateBot"]["branding"]>;

const PRECHAT_FIELDS = [["name", "Name"], ["email", "E-mail"], ["phone", "Phone"]] as const;

/** A select of codes shown in words (branding_words.ts); the code stays the value sent. */
const select = (name: string, options: readonly string[], value: string, words: Choices) =>
  h(
    "select",
    { name },
    ...options.map((o) => h("option", { value: o, selected: o === value }, words[o]?.[0] ?? o)),
  );

/** A labelled select whose hint says, in one line, what the chosen option does. */
function choiceField(label: string, control: HTMLSelectElement, words: Choices): HTMLElement {
  const wrap = field(label, control, words[control.value]?.[1] ?? "");
  const hint = wrap.querySelector<HTMLElement>(".hint");
  control.addEventListener("change", () => {
    if (hint) hint.textContent = words[control.value]?.[1] ?? "";
  });
  return wrap;
}
const checkbox = (name: string, checked: boolean) =>
  h("input", { type: "checkbox", name, checked });
const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter(Boolean);

export async function botBrandingView(ctx: ScreenContext, key: string): Promise<HTMLElement> {
  const { data: bot } = await ctx.client.showBot.query({ key });
  const b = bot.branding;
  const p = b.proactive;
  const canManage = ctx.can("manage-chatbots");
  const input = (name: string, value: string, extra: Record<string, string | number> = {}) =>
    h("input", { name, value, ...extra });
  const el = {
    primary_color: input("branding.primary_color", b.primary_color, { maxlength: 9 }),
    colour_picker: h("input", {
      type: "color",
      value: /^#[0-9a-f]{6}$/i.test(b.primary_color) ? b.primary_color : "#4f46e5",
      "aria-label": "Pick the primary colour",
    }),
    theme: select("branding.theme", THEMES, b.theme, THEME_WORDS),
    layout: select("branding.layout", LAYOUTS, b.layout, LAYOUT_WORDS),
    launcher: select("branding.launcher", LAUNCHERS, b.launcher, LAUNCHER_WORDS),
    position: select("branding.position", ["right", "left"], b.position, POSITION_WORDS),
    composer_style: select(
      "branding.composer_style",
      COMPOSER_STYLES,
      b.composer_style,
      COMPOSER_WORDS,
    ),
    recommend_mode: select(
      "branding.recommend_mode",
      RECOMMEND_MODES,
      b.recommend_mode,
      RECOMMEND_WORDS,
    ),
    launcher_text: input("branding.launcher_text", b.launcher_text, { maxlength: 40 }),
    title: input("branding.title", b.title, { maxlength: 60 }),
    subtitle: input("branding.subtitle", b.subtitle, { maxlength: 120 }),
    logo_url: input("branding.logo_url", b.logo_url ?? "", { type: "url" }),
    avatar_url: input("branding.avatar_url", b.avatar_url ?? "", { type: "url" }),
    quick_replies: h(
      "textarea",
      { name: "branding.quick_replies", rows: 3 },
      b.quick_replies.join("\n"),
    ),
    agent_avatars: h(
      "textarea",
      { name: "branding.agent_avatars", rows: 2 },
      b.agent_avatars.join("\n"),
    ),
    p_enabled: checkbox("branding.proactive.enabled", p.enabled),
    p_message: input("branding.proactive.message", p.message, { maxlength: 300 }),
    p_delay: input("branding.proactive.delay", String(p.delay), {
      type: "number",
      min: 0,
      max: 3600,
    }),
    p_scroll: input("branding.proactive.scroll", String(p.scroll), {
      type: "number",
      min: 0,
      max: 100,
    }),
    p_exit: checkbox("branding.proactive.exit_intent", p.exit_intent),
    p_url: input("branding.proactive.url_contains", p.url_contains, { maxlength: 200 }),
    p_frequency: select(
      "branding.proactive.frequency",
      PROACTIVE_FREQUENCIES,
      p.frequency,
      FREQUENCY_WORDS,
    ),
    prechat_enabled: checkbox("branding.prechat.enabled", bot.prechat.enabled),
  };
  const flags = FLAG_WORDS.map(([name, label, help]) => ({
    name,
    label,
    help,
    box: checkbox(`branding.${name}`, b[name]),
  }));
  const prechatRows = PRECHAT_FIELDS.map(([name, label]) => {
    const stored = bot.prechat.fields.find((f) => f.name === name);
    return {
      name,
      ask: checkbox(`prechat.${name}.ask`, !!stored),
      label: input(`prechat.${name}.label`, stored?.label ?? label, {
        maxlength: 80,
        "aria-label": `${label} label`,
      }),
      required: checkbox(`prechat.${name}.required`, stored?.required ?? false),
      title: label,
    };
  });

  const draft = (): { branding: BrandingDraft } => ({
    branding: {
      primary_color: el.primary_color.value.trim(),
      theme: el.theme.value as never,
      layout: el.layout.value as never,
      launcher: el.launcher.value as never,
      position: el.position.value as never,
      composer_style: el.composer_style.value as never,
      recommend_mode: el.recommend_mode.value as never,
      launcher_text: el.launcher_text.value,
      title: el.title.value,
      subtitle: el.subtitle.value,
      logo_url: el.logo_url.value.trim() || null,
      avatar_url: el.avatar_url.value.trim() || null,
      quick_replies: lines(el.quick_replies.value),
      agent_avatars: lines(el.agent_avatars.value),
      ...Object.fromEntries(flags.map((f) => [f.name, f.box.checked])),
      proactive: {
        enabled: el.p_enabled.checked,
        message: el.p_message.value,
        delay: Number(el.p_delay.value),
        scroll: Number(el.p_scroll.value),
        exit_intent: el.p_exit.checked,
        url_contains: el.p_url.value,
        frequency: el.p_frequency.value as never,
      },
      prechat: {
        enabled: el.prechat_enabled.checked,
        fields: prechatRows.filter((r) => r.ask.checked).map((r) => ({
          name: r.name,
          label: r.label.value,
          required: r.required.checked,
        })),
      },
    },
  });

  // Two frames: the page with the launcher (text, colour, position) and the open chat.
  const frames = (["closed", "open"] as const).map((state) =>
    h("iframe", {
      class: `preview-frame preview-${state}`,
      title: state === "open"
        ? "Live preview of the open chat widget"
        : "Live preview of the launcher on a page",
      "data-preview": state,
    })
  );
  let version = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const showPreview = () => {
    const { branding } = draft();
    ++version;
    frames.forEach((frame, i) => {
      const fragment = encodeURIComponent(
        JSON.stringify({ branding, prechat: branding.prechat, open: i === 1 }),
      );
      frame.src = `/dashboard/preview?key=${encodeURIComponent(key)}&v=${version}#${fragment}`;
    });
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(showPreview, 250);
  };
  ctx.onLeave(() => clearTimeout(timer));
  el.colour_picker.addEventListener("input", () => {
    el.primary_color.value = el.colour_picker.value;
  });
  el.primary_color.addEventListener("input", () => {
    const v = el.primary_color.value.trim();
    if (/^#[0-9a-f]{6}$/i.test(v)) el.colour_picker.value = v.toLowerCase();
  });

  const error = errorLine();
  const save = h("button", { type: "submit", class: "primary" }, "Save branding");
  const group = (title: string, ...children: HTMLElement[]) =>
    h("fieldset", { class: "form-grid" }, h("legend", null, title), ...children);
  const form: HTMLFormElement = h(
    "form",
    {
      class: "card branding-form",
      onInput: schedule,
      onChange: schedule,
      onSubmit: async (e) => {
        e.preventDefault();
        save.disabled = true;
        error.textContent = "";
        try {
          await ctx.client.updateBot.mutate({ key, name: bot.name, ...draft() });
          ctx.notify("Branding saved.");
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
        save.disabled = false;
      },
    },
    group(
      "Look",
      field(
        "Primary colour",
        h("span", { class: "colour-pair" }, el.colour_picker, el.primary_color),
      ),
      choiceField("Theme", el.theme, THEME_WORDS),
      choiceField("Layout", el.layout, LAYOUT_WORDS),
      choiceField("Composer", el.composer_style, COMPOSER_WORDS),
    ),
    group(
      "Launcher",
      choiceField("Launcher", el.launcher, LAUNCHER_WORDS),
      choiceField("Position", el.position, POSITION_WORDS),
      field("Launcher text", el.launcher_text),
    ),
    group(
      "Header",
      field("Title", el.title),
      field("Subtitle", el.subtitle),
      field("Logo address", el.logo_url),
      field("Avatar address", el.avatar_url),
      h(
        "div",
        { class: "wide" },
        field("Agent avatars", el.agent_avatars, "One https address per line, up to 5."),
      ),
    ),
    group(
      "Quick replies",
      h(
        "div",
        { class: "wide" },
        field("Quick replies", el.quick_replies, "One per line, up to 6."),
      ),
    ),
    group(
      "Proactive message",
      field("Show it", el.p_enabled),
      field("Message", el.p_message),
      field("After (seconds)", el.p_delay),
      field("Or after scrolling (%)", el.p_scroll),
      field("On exit intent", el.p_exit),
      field("Only where the address contains", el.p_url),
      choiceField("How often", el.p_frequency, FREQUENCY_WORDS),
    ),
    group(
      "Pre-chat form",
      field("Ask before the chat starts", el.prechat_enabled),
      ...prechatRows.map((r) =>
        h(
          "div",
          { class: "prechat-row wide" },
          h("label", null, r.ask, ` Ask for ${r.title.toLowerCase()}`),
          r.label,
          h("label", null, r.required, " Required"),
        )
      ),
      h("span", { class: "field-error wide", "data-error-for": "branding.prechat.fields" }),
    ),
    group(
      "Features",
      ...flags.map((f) =>
        h(
          "label",
          { class: "check flag wide" },
          f.box,
          h("span", null, h("strong", null, f.label), h("span", { class: "hint" }, f.help)),
        )
      ),
      choiceField("Product recommendations", el.recommend_mode, RECOMMEND_WORDS),
    ),
    error,
    canManage ? h("div", { class: "form-actions" }, save) : null,
  );
  if (!canManage) {
    for (const c of form.querySelectorAll<HTMLInputElement>("input, select, textarea")) {
      c.disabled = true;
    }
  }
  showPreview();
  return h(
    "section",
    { class: "bot" },
    pageHeader(bot.name),
    botTabs(key, bot.name, "branding"),
    canManage ? null : readOnlyNote(),
    bot.is_active ? null : h(
      "p",
      { class: "read-only", role: "note" },
      "This bot is inactive: the preview shows once it is activated.",
    ),
    h(
      "div",
      { class: "branding" },
      form,
      h(
        "div",
        { class: "preview-pane", "aria-label": "Preview" },
        h("h2", null, "Preview"),
        h(
          "div",
          { class: "preview-frames" },
          h("figure", null, frames[0], h("figcaption", null, "Closed: the launcher")),
          h("figure", null, frames[1], h("figcaption", null, "Open")),
        ),
      ),
    ),
  );
}
