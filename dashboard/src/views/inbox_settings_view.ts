/// <reference lib="dom" />
/**
 * Inbox settings: the tag catalogue agents attach from (create, rename,
 * recolour, delete: conversations carrying a deleted tag lose it) and the
 * shared canned replies every agent sees (create, edit, delete).
 */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import { errorLine, failureText, field, pageHeader, readOnlyNote, showFieldErrors } from "../ui.ts";

type Tag = DashboardOutputs["listTags"]["data"][number];
type Canned = DashboardOutputs["listCanned"]["data"][number];

function tagRow(ctx: ScreenContext, tag: Tag, refresh: () => void): HTMLElement {
  const name = h("input", { name: "name", value: tag.name, maxlength: 50, "aria-label": "Name" });
  const color = h("input", {
    type: "color",
    name: "color",
    value: tag.color,
    "aria-label": "Colour",
  });
  const error = errorLine();
  const save = h("button", { type: "submit", disabled: true }, "Save");
  // Cancel puts back what is stored; both buttons wait for a change.
  const cancel = h("button", {
    type: "button",
    disabled: true,
    onClick: () => {
      name.value = tag.name;
      color.value = tag.color;
      error.textContent = "";
      form.querySelectorAll<HTMLElement>("[data-error-for]").forEach((e) => e.textContent = "");
      changed();
      name.focus();
    },
  }, "Cancel");
  const changed = () => {
    const dirty = name.value !== tag.name || color.value.toLowerCase() !== tag.color.toLowerCase();
    save.disabled = !dirty;
    cancel.disabled = !dirty;
  };
  const form: HTMLFormElement = h(
    "form",
    {
      class: "inline-form",
      "aria-label": `Tag ${tag.name}`,
      onInput: changed,
      onSubmit: async (e) => {
        e.preventDefault();
        try {
          await ctx.client.updateTag.mutate({ tag: tag.id, name: name.value, color: color.value });
          ctx.notify(`Tag "${name.value}" saved.`);
          refresh();
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
      },
    },
    name,
    color,
    save,
    cancel,
    h("span", { class: "field-error", "data-error-for": "name" }),
    error,
  );
  const remove = h("button", {
    type: "button",
    class: "danger",
    onClick: async () => {
      const on = tag.conversations === 1 ? "1 conversation" : `${tag.conversations} conversations`;
      if (!confirm(`Delete the tag "${tag.name}"? It is removed from ${on}.`)) return;
      try {
        ctx.notify((await ctx.client.deleteTag.mutate({ tag: tag.id })).message);
        refresh();
      } catch (err) {
        ctx.notify(failureText(err));
      }
    },
  }, "Delete");
  const manage = ctx.can("manage-workspace");
  const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
  swatch.style.background = tag.color; // CSSOM, not a style attribute (the page's policy)
  return h(
    "tr",
    { "data-tag": tag.name },
    h("td", null, manage ? form : h("span", null, swatch, " ", tag.name)),
    h("td", null, String(tag.conversations)),
    h("td", null, manage ? remove : null),
  );
}

function newTagForm(ctx: ScreenContext, refresh: () => void): HTMLElement {
  const name = h("input", { name: "name", maxlength: 50, required: true });
  const color = h("input", { type: "color", name: "color", value: "#6b7280" });
  const error = errorLine();
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid",
      "aria-label": "New tag",
      onSubmit: async (e) => {
        e.preventDefault();
        try {
          await ctx.client.createTag.mutate({ name: name.value, color: color.value });
          ctx.notify(`Tag "${name.value}" created.`);
          refresh();
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
      },
    },
    field("New tag", name),
    field("Colour", color),
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "primary" }, "Add tag"),
    ),
    error,
  );
  return form;
}

/** A new reply's form, or an existing one's edit (with Cancel, which puts its row back). */
function cannedForm(
  ctx: ScreenContext,
  existing: Canned | null,
  done: () => void,
  cancel?: () => void,
): HTMLFormElement {
  const title = h("input", {
    name: "title",
    maxlength: 120,
    required: true,
    value: existing?.title ?? "",
  });
  const shortcut = h("input", { name: "shortcut", maxlength: 40, value: existing?.shortcut ?? "" });
  const body = h("textarea", { name: "body", maxlength: 4000, required: true, rows: 3 });
  body.value = existing?.body ?? "";
  const error = errorLine();
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid",
      "aria-label": existing ? `Edit ${existing.title}` : "New canned reply",
      onSubmit: async (e) => {
        e.preventDefault();
        const fields = { title: title.value, shortcut: shortcut.value || null, body: body.value };
        try {
          if (existing) await ctx.client.updateCanned.mutate({ canned: existing.id, ...fields });
          else await ctx.client.createCanned.mutate(fields);
          ctx.notify(`Canned reply "${title.value}" saved.`);
          done();
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
      },
    },
    field("Title", title),
    field("Shortcut", shortcut, "Typed as /word in the inbox's composer"),
    h("div", { class: "wide" }, field("Reply", body)),
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "primary" }, existing ? "Save" : "Add reply"),
      cancel ? h("button", { type: "button", onClick: cancel }, "Cancel") : null,
    ),
    error,
  );
  return form;
}

function cannedRow(ctx: ScreenContext, c: Canned, refresh: () => void): HTMLElement {
  const manage = ctx.can("manage-workspace");
  const row = h(
    "tr",
    { "data-canned": c.title },
    h("td", null, c.title),
    h("td", null, c.shortcut ?? "—"),
    h("td", { class: "preview" }, c.body),
    h("td", null, String(c.use_count)),
    h(
      "td",
      { class: "row-actions" },
      manage
        ? h("button", {
          type: "button",
          onClick: () => {
            const editing = h(
              "tr",
              { "data-editing": c.title },
              h("td", { colspan: 5 }, cannedForm(ctx, c, refresh, () => editing.replaceWith(row))),
            );
            row.replaceWith(editing);
            editing.querySelector<HTMLInputElement>("input[name=title]")?.focus();
          },
        }, "Edit")
        : null,
      manage
        ? h("button", {
          type: "button",
          class: "danger",
          onClick: async () => {
            if (!confirm(`Delete the canned reply "${c.title}"?`)) return;
            try {
              ctx.notify((await ctx.client.deleteCanned.mutate({ canned: c.id })).message);
              refresh();
            } catch (err) {
              ctx.notify(failureText(err));
            }
          },
        }, "Delete")
        : null,
    ),
  );
  return row;
}

const table = (heads: string[], body: HTMLElement) =>
  h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "list" },
      h("thead", null, h("tr", null, heads.map((t) => h("th", null, t)))),
      body,
    ),
  );

export const inboxSettingsScreen: Screen = {
  path: "inbox-settings",
  title: "Inbox settings",
  async render(ctx) {
    const tagBody = h("tbody");
    const cannedBody = h("tbody");
    const manage = ctx.can("manage-workspace");
    const tagSlot = h("div");
    const cannedSlot = h("div");
    const load = async () => {
      const [tags, canned] = await Promise.all([
        ctx.client.listTags.query({}),
        ctx.client.listCanned.query({}),
      ]);
      tagBody.replaceChildren(...tags.data.map((t) => tagRow(ctx, t, () => void load())));
      cannedBody.replaceChildren(...canned.data.map((c) => cannedRow(ctx, c, () => void load())));
      if (manage) {
        tagSlot.replaceChildren(newTagForm(ctx, () => void load()));
        cannedSlot.replaceChildren(cannedForm(ctx, null, () => void load()));
      }
    };
    await load();
    return h(
      "section",
      { class: "inbox-settings" },
      pageHeader("Inbox settings"),
      manage ? null : readOnlyNote(),
      h(
        "section",
        { class: "card", "aria-labelledby": "tags-title" },
        h("h2", { id: "tags-title" }, "Tags"),
        h(
          "p",
          { class: "muted" },
          "Agents attach these to conversations. Deleting a tag removes it from every conversation carrying it.",
        ),
        table(["Tag", "Conversations", ""], tagBody),
        tagSlot,
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "canned-title" },
        h("h2", { id: "canned-title" }, "Shared canned replies"),
        h(
          "p",
          { class: "muted" },
          "Every agent sees these in the inbox's composer; agents' own replies stay theirs.",
        ),
        table(["Title", "Shortcut", "Reply", "Used", ""], cannedBody),
        cannedSlot,
      ),
    );
  },
};
