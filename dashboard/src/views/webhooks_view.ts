/// <reference lib="dom" />
/**
 * Outbound webhooks (docs/webhooks.md): the workspace's endpoints with their
 * state; a form to add one (URL, description, the event types it receives);
 * its signing secret shown once, after creating or rotating; disable, enable
 * and delete; and per endpoint its recent deliveries with their status and
 * last attempt, each of which can be sent again; "Send test event" sends an
 * enabled endpoint a signed `ping` and opens its deliveries.
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

type Endpoint = DashboardOutputs["listWebhooks"]["data"][number];
type Delivery = DashboardOutputs["listWebhookDeliveries"]["data"][number];

function lastAttempt(d: Delivery): string {
  const a = d.attempt_log.at(-1);
  if (!a) return d.status === "pending" ? "Not sent yet" : "—";
  const what = a.status_code !== null ? `HTTP ${a.status_code}` : a.error ?? a.outcome;
  return `${what}, ${a.duration_ms} ms, ${formatDate(a.at)}`;
}

/** The endpoint's recent deliveries, each with a resend button. */
async function deliveriesPanel(ctx: ScreenContext, ep: Endpoint): Promise<HTMLElement> {
  const panel = h("div", { class: "deliveries", "data-deliveries": ep.id });
  const load = async () => {
    const list = await ctx.client.listWebhookDeliveries.query({ id: ep.id, limit: 20 });
    if (list.data.length === 0) {
      panel.replaceChildren(h("p", { class: "muted" }, "No deliveries yet."));
      return;
    }
    const rows = list.data.map((d) =>
      h(
        "tr",
        { "data-delivery": d.event_type },
        h("td", null, d.event_type),
        h("td", null, h("span", { class: `pill ${pillOf(d.status)}` }, d.status)),
        h("td", { class: "num" }, d.attempts),
        h("td", null, lastAttempt(d)),
        h("td", null, formatDate(d.next_attempt_at ?? d.created_at)),
        h(
          "td",
          null,
          h("button", {
            type: "button",
            onClick: async () => {
              try {
                ctx.notify(
                  (await ctx.client.redeliverWebhook.mutate({ id: ep.id, delivery: d.id })).message,
                );
                await load();
              } catch (err) {
                ctx.notify(failureText(err));
              }
            },
          }, "Resend"),
        ),
      )
    );
    panel.replaceChildren(
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          { class: "list", "aria-label": `Deliveries to ${ep.url}` },
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              ["Event", "Status", "Attempts", "Last attempt", "Created / next", ""].map((t) =>
                h("th", null, t)
              ),
            ),
          ),
          h("tbody", null, ...rows),
        ),
      ),
    );
  };
  await load();
  return panel;
}

function pillOf(status: string): string {
  return status === "succeeded" ? "active" : status === "failed" ? "failed" : "pending";
}

/** One endpoint: what it is, its state, its actions, and a place for its deliveries. */
function endpointCard(
  ctx: ScreenContext,
  ep: Endpoint,
  once: HTMLElement,
  refresh: () => Promise<void>,
): HTMLElement {
  const deliveries = h("div");
  const act = (label: string, run: () => Promise<unknown>, cls = "") =>
    h("button", {
      type: "button",
      class: cls,
      onClick: async () => {
        try {
          await run();
          await refresh();
        } catch (err) {
          ctx.notify(failureText(err));
        }
      },
    }, label);
  const state = ep.enabled ? "enabled" : "disabled";
  return h(
    "article",
    { class: "card webhook", "data-endpoint": ep.url },
    h(
      "header",
      { class: "page-header" },
      h("h2", null, ep.url),
      h("span", { class: `pill ${ep.enabled ? "active" : "inactive"}` }, state),
    ),
    ep.description ? h("p", null, ep.description) : null,
    h("p", { class: "muted" }, `Events: ${ep.events.join(", ")}`),
    ep.disabled_reason ? h("p", { class: "form-error" }, ep.disabled_reason) : null,
    ep.previous_secret_expires_at
      ? h(
        "p",
        { class: "muted" },
        `The previous secret also signs until ${formatDate(ep.previous_secret_expires_at)}.`,
      )
      : null,
    h(
      "div",
      { class: "row-actions" },
      act(
        ep.enabled ? "Disable" : "Enable",
        () => ctx.client.updateWebhook.mutate({ id: ep.id, enabled: !ep.enabled }),
      ),
      act("Rotate secret", async () => {
        if (!confirm("Issue a new secret? The current one keeps signing beside it for 24 hours.")) {
          return;
        }
        const r = await ctx.client.rotateWebhookSecret.mutate({ id: ep.id });
        once.replaceChildren(shownOnce(
          "Signing secret",
          r.data.secret,
          `Signing secret for ${r.data.url}. Copy it now: it is not shown again. Verify each request's webhook-signature with it (docs/webhooks.md).`,
        ));
      }),
      ep.enabled
        ? h("button", {
          type: "button",
          "data-action": "test-event",
          onClick: async () => {
            try {
              const sent = await ctx.client.sendWebhookTestEvent.mutate({ id: ep.id });
              ctx.notify(sent.message);
              // The ping is listed at once (pending until the worker sends it).
              deliveries.replaceChildren(await deliveriesPanel(ctx, ep));
            } catch (err) {
              ctx.notify(failureText(err));
            }
          },
        }, "Send test event")
        : null,
      h("button", {
        type: "button",
        onClick: async () => {
          try {
            deliveries.replaceChildren(await deliveriesPanel(ctx, ep));
          } catch (err) {
            ctx.notify(failureText(err));
          }
        },
      }, "Recent deliveries"),
      act("Delete", async () => {
        if (!confirm(`Delete the endpoint ${ep.url} and its delivery log?`)) return;
        ctx.notify((await ctx.client.deleteWebhook.mutate({ id: ep.id })).message);
      }, "danger"),
    ),
    deliveries,
  );
}

function newEndpointForm(
  ctx: ScreenContext,
  types: string[],
  once: HTMLElement,
  refresh: () => Promise<void>,
): HTMLFormElement {
  const url = h("input", {
    name: "url",
    type: "url",
    required: true,
    maxlength: 2048,
    placeholder: "https://crm.example.com/parley/webhooks",
  });
  const description = h("input", { name: "description", maxlength: 500, placeholder: "CRM sync" });
  const boxes = types.map((t) => h("input", { type: "checkbox", name: "events", value: t }));
  const error = errorLine();
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid",
      "aria-label": "New webhook endpoint",
      onSubmit: async (e) => {
        e.preventDefault();
        try {
          const created = await ctx.client.createWebhook.mutate({
            url: url.value,
            description: description.value,
            events: boxes.filter((b) => b.checked).map((b) => b.value),
          });
          once.replaceChildren(shownOnce(
            "Signing secret",
            created.data.secret,
            `Signing secret for ${created.data.url}. Copy it now: it is not shown again. Verify each request's webhook-signature with it (docs/webhooks.md).`,
          ));
          form.reset();
          for (const slot of form.querySelectorAll("[data-error-for]")) slot.textContent = "";
          error.textContent = "";
          await refresh();
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
      },
    },
    field(
      "Endpoint URL",
      url,
      "https to a public address, unless the server's operator allows the host " +
        "(WEBHOOK_ALLOW_HOSTS): then http and private addresses are accepted too.",
    ),
    field("Description", description),
    h(
      "fieldset",
      { class: "wide" },
      h("legend", null, "Events to send"),
      ...boxes.map((b, i) => h("label", { class: "check" }, b, types[i]!)),
      h("span", { class: "field-error", "data-error-for": "events" }),
    ),
    h(
      "div",
      { class: "form-actions wide" },
      h("button", { type: "submit", class: "primary" }, "Add endpoint"),
    ),
    error,
  );
  return form;
}

export const webhooksScreen: Screen = {
  path: "webhooks",
  title: "Webhooks",
  async render(ctx) {
    const page = h("section", { class: "webhooks" }, pageHeader("Webhooks"));
    if (!ctx.can("manage-workspace")) {
      page.append(
        h(
          "p",
          { class: "read-only", role: "note" },
          "Webhooks are managed by owners and administrators.",
        ),
      );
      return page;
    }
    const once = h("div");
    const list = h("div", { class: "webhook-list" });
    let form: HTMLFormElement | null = null;
    const refresh = async () => {
      const r = await ctx.client.listWebhooks.query({});
      form ??= newEndpointForm(ctx, r.event_types, once, refresh);
      list.replaceChildren(
        ...(r.data.length
          ? r.data.map((ep) => endpointCard(ctx, ep, once, refresh))
          : [h("p", { class: "muted" }, "No endpoints yet.")]),
      );
    };
    await refresh();
    ctx.dataReady();
    page.append(
      h(
        "p",
        { class: "muted" },
        "Parley POSTs each event to your endpoints, signed (Standard Webhooks), retried for a day.",
      ),
      form!,
      once,
      list,
    );
    return page;
  },
};
