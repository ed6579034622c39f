/// <reference lib="dom" />
/**
 * REST API tokens (the spec's settings-token panel): create one with a name,
 * see its value once with a copy button, list them with their state and a
 * warning a week before one expires, replace one (a new token, same name; the
 * old one is left for the owner to revoke after switching), revoke.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import {
  errorLine,
  failureText,
  field,
  formatDate,
  pageHeader,
  showFieldErrors,
  shownOnce,
} from "../ui.ts";

type ApiToken = DashboardOutputs["listApiTokens"]["data"][number];

/** The expiry, and a warning when the server says it is a week away or less. */
function expiryCell(t: ApiToken): HTMLElement {
  if (!t.expires_soon) return h("td", null, formatDate(t.expires_at));
  const days = Math.max(0, Math.ceil((Date.parse(t.expires_at) - Date.now()) / 86_400_000));
  return h(
    "td",
    { class: "expires-soon" },
    formatDate(t.expires_at),
    h(
      "span",
      { class: "pill pending", role: "note", "data-expires-soon": t.name },
      days <= 1 ? "Expires within a day: replace it" : `Expires in ${days} days: replace it`,
    ),
  );
}

function tokenRow(
  ctx: ScreenContext,
  t: ApiToken,
  once: HTMLElement,
  refresh: () => void,
): HTMLElement {
  // A new token with the same name; the old one keeps working until its owner revokes it.
  const replace = h("button", {
    type: "button",
    "data-action": "replace",
    onClick: async () => {
      try {
        const created = await ctx.client.createApiToken.mutate({ name: t.name });
        once.replaceChildren(shownOnce(
          "New token",
          created.token,
          `Replacement for "${t.name}". Copy it now: it is not shown again. The old token keeps working until you revoke it: switch your integration to this one, then revoke the old.`,
        ));
        refresh();
      } catch (err) {
        ctx.notify(failureText(err));
      }
    },
  }, "Replace");
  return h(
    "tr",
    { "data-token": t.name },
    h("td", null, t.name),
    h("td", null, formatDate(t.created_at)),
    h("td", null, formatDate(t.last_used_at)),
    expiryCell(t),
    h(
      "td",
      null,
      h("span", { class: `pill ${t.state === "active" ? "active" : "inactive"}` }, t.state),
    ),
    h(
      "td",
      null,
      t.state === "active" ? replace : null,
      t.state === "active"
        ? h("button", {
          type: "button",
          class: "danger",
          onClick: async () => {
            if (!confirm(`Revoke "${t.name}"? Integrations using it stop working at once.`)) return;
            try {
              ctx.notify((await ctx.client.revokeApiToken.mutate({ token: t.id })).message);
              refresh();
            } catch (err) {
              ctx.notify(failureText(err));
            }
          },
        }, "Revoke")
        : null,
    ),
  );
}

export const apiTokensScreen: Screen = {
  path: "api-tokens",
  title: "API tokens",
  async render(ctx) {
    const page = h("section", { class: "api-tokens" }, pageHeader("REST API tokens"));
    if (!ctx.can("manage-workspace")) {
      page.append(
        h(
          "p",
          { class: "read-only", role: "note" },
          "API tokens are managed by owners and administrators.",
        ),
      );
      return page;
    }
    const body = h("tbody");
    const once = h("div");
    const load = async () => {
      const list = await ctx.client.listApiTokens.query({});
      body.replaceChildren(...list.data.map((t) => tokenRow(ctx, t, once, () => void load())));
    };
    const name = h("input", {
      name: "name",
      maxlength: 120,
      required: true,
      placeholder: "CRM sync",
    });
    const error = errorLine();
    const form: HTMLFormElement = h(
      "form",
      {
        class: "form-grid",
        "aria-label": "New API token",
        onSubmit: async (e) => {
          e.preventDefault();
          try {
            const created = await ctx.client.createApiToken.mutate({ name: name.value });
            once.replaceChildren(shownOnce(
              "New token",
              created.token,
              "Copy this token now: it is not shown again. Send it as Authorization: Bearer <token> to /api/v1.",
            ));
            name.value = "";
            error.textContent = "";
            await load();
          } catch (err) {
            error.textContent = showFieldErrors(form, err);
          }
        },
      },
      field("Token name", name, "Up to 20 active tokens per account; each is valid 30 days."),
      h(
        "div",
        { class: "form-actions" },
        h("button", { type: "submit", class: "primary" }, "Create token"),
      ),
      error,
    );
    await load();
    page.append(
      h("p", { class: "muted" }, "Settings tokens open the integration API (/api/v1) as you."),
      form,
      once,
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          { class: "list" },
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              ["Name", "Created", "Last used", "Expires", "State", ""].map((t) => h("th", null, t)),
            ),
          ),
          body,
        ),
      ),
    );
    return page;
  },
};
