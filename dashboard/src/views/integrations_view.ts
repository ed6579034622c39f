/// <reference lib="dom" />
/**
 * Integrations: the storefront (a Shopify store) and billing (a Stripe
 * account) that customer context reads, one card each with its state, the
 * credential's last four, the last test and (a store) the catalogue's sync;
 * link or replace, "test connection" (the stored credential, or typed values
 * before saving), unlink. Credentials are write-only: the page never sees one
 * back.
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
  readOnlyNote,
  showFieldErrors,
} from "../ui.ts";

type Integration = DashboardOutputs["listIntegrations"]["data"][number];
type TestResult = DashboardOutputs["testIntegration"];

const TITLE: Record<Integration["service"], string> = {
  storefront: "Storefront",
  billing: "Billing",
};

const WHAT: Record<Integration["service"], string> = {
  storefront: "Agents see the visitor's recent orders, and bots can recommend the store's " +
    "products (its catalogue is synced every few hours).",
  billing: "Agents see the visitor's Stripe customer and subscriptions.",
};

const STATE: Record<Integration["state"], [label: string, tone: string]> = {
  not_linked: ["Not linked", "inactive"],
  untested: ["Linked, not tested yet", "pending"],
  connected: ["Connected", "ready"],
  failing: ["Failing", "failed"],
};

/** What a test found, or why it failed, with its warnings. */
function testResult(r: TestResult): HTMLElement {
  return h(
    "div",
    { class: `test-result ${r.ok ? "ok" : "failed"}` },
    h(
      "strong",
      null,
      r.ok
        ? "Connection works. "
        : r.tested === "given"
        ? "The connection test failed (nothing was saved). "
        : "The connection test failed. ",
    ),
    h("span", { class: "test-message" }, r.message),
    r.warnings.length
      ? h("ul", { class: "warnings" }, ...r.warnings.map((w) => h("li", null, w)))
      : null,
    r.tested === "given" ? h("p", { class: "muted small" }, "Tested without saving.") : null,
  );
}

function details(i: Integration): HTMLElement {
  const row = (term: string, value: string | HTMLElement | null) =>
    value === null ? null : [h("dt", null, term), h("dd", null, value)];
  const c = i.catalogue;
  return h(
    "dl",
    { class: "facts" },
    ...[
      row("Shop", i.shop),
      row(
        i.service === "storefront" ? "Access token" : "Secret key",
        i.last_four ? `…${i.last_four}` : null,
      ),
      row(
        "Linked",
        i.linked_at
          ? `${formatDate(i.linked_at)}${i.linked_by ? ` by ${i.linked_by.name}` : ""}`
          : null,
      ),
      row(
        "Last test",
        i.last_check
          ? `${formatDate(i.last_check.checked_at)}: ${i.last_check.message}`
          : i.linked
          ? "Never tested"
          : null,
      ),
      row("Catalogue", c && i.linked ? catalogueWords(c) : null),
    ].flat().filter((x) => x !== null),
  );
}

/** The form that links or replaces, with a test of the typed values before saving. */
function linkForm(
  ctx: ScreenContext,
  i: Integration,
  show: (r: TestResult) => void,
  forget: () => void,
  refresh: () => void,
): HTMLElement {
  const store = i.service === "storefront";
  const shop = store
    ? h("input", {
      name: "shop",
      value: i.shop ?? "",
      placeholder: "acme.myshopify.com",
      autocomplete: "off",
      maxlength: 255,
      required: true,
    })
    : null;
  const credential = h("input", {
    name: "credential",
    type: "password",
    autocomplete: "off",
    maxlength: 300,
    required: true,
    placeholder: i.linked
      ? "Paste a new one to replace it"
      : store
      ? "shpat_…"
      : "sk_live_… or rk_live_…",
  });
  const error = errorLine();
  const values = () => ({
    service: i.service,
    credential: credential.value,
    ...(shop ? { shop: shop.value } : {}),
  });
  const save = h("button", { type: "submit", class: "primary" }, i.linked ? "Replace" : "Link");
  // The last test of typed values: linking those same values after it failed asks first.
  let failedTest: { values: string; message: string } | null = null;
  const test = h("button", {
    type: "button",
    onClick: async () => {
      if (!form.reportValidity()) return;
      test.disabled = true;
      error.textContent = "";
      try {
        const r = await ctx.client.testIntegration.mutate(values());
        failedTest = r.ok ? null : { values: JSON.stringify(values()), message: r.message };
        show(r);
      } catch (err) {
        error.textContent = showFieldErrors(form, err);
      } finally {
        test.disabled = false;
      }
    },
  }, "Test before saving");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid",
      "aria-label": `${TITLE[i.service]} credentials`,
      onSubmit: async (e) => {
        e.preventDefault();
        const anyway = failedTest?.values === JSON.stringify(values());
        if (
          anyway &&
          !confirm(
            `The ${TITLE[i.service].toLowerCase()} did not answer the test: ` +
              `${failedTest?.message ?? ""} ${i.linked ? "Replace" : "Link"} it anyway? Agents ` +
              "will see nothing from it until it answers.",
          )
        ) return;
        save.disabled = true;
        try {
          await ctx.client.linkIntegration.mutate(values());
          // Linked although its test failed: the card keeps saying so ("Test failed").
          if (!anyway) forget();
          ctx.notify(`${TITLE[i.service]} ${i.linked ? "credentials replaced" : "linked"}.`);
          refresh();
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
          save.disabled = false;
        }
      },
    },
    shop ? field("Shop domain", shop, "The store's myshopify.com domain.") : null,
    field(
      store ? "Admin API access token" : "Secret key",
      credential,
      store
        ? "From a custom app with read_orders and read_products."
        : "A secret key, or a restricted key that may read customers and subscriptions.",
    ),
    h("div", { class: "form-actions wide" }, save, test),
    error,
  );
  return form;
}

/** The last test shown per service: it outlives the card's redraw after the test. */
type Results = Map<Integration["service"], TestResult>;

/** Open to link; folded away once linked, as replacing is rare. */
function formPlace(i: Integration, form: HTMLElement): HTMLElement {
  if (!i.linked) return form;
  return h(
    "details",
    { class: "replace" },
    h("summary", null, i.service === "storefront" ? "Change the shop or token" : "Replace the key"),
    form,
  );
}

/**
 * The catalogue's line: a failed sync says what failed first, and "0 products" is
 * not shown as if a queued sync had found none.
 */
function catalogueWords(c: NonNullable<Integration["catalogue"]>): string {
  const count = `${c.products} product${c.products === 1 ? "" : "s"}`;
  const last = c.synced_at ? `, last synced ${formatDate(c.synced_at)}` : "";
  if (c.error) {
    const again = c.status === "pending" || c.status === "syncing" ? " Trying again (queued)." : "";
    return `The last sync failed: ${c.error}${again}${c.products ? ` Kept: ${count}${last}.` : ""}`;
  }
  return `${CATALOGUE[c.status]}${c.products || c.status === "ready" ? `: ${count}` : ""}${last}`;
}

const CATALOGUE: Record<NonNullable<Integration["catalogue"]>["status"], string> = {
  none: "Not synced",
  pending: "Sync queued",
  syncing: "Syncing",
  ready: "Synced",
  failed: "Sync failed",
};

function integrationCard(
  ctx: ScreenContext,
  i: Integration,
  results: Results,
  refresh: () => void,
): HTMLElement {
  const canManage = ctx.can("manage-workspace");
  const shown = results.get(i.service);
  // A test that just failed is the state, whether it tried the stored or the typed values.
  const [label, tone] = shown && !shown.ok ? ["Test failed", "failed"] : STATE[i.state];
  const result = h(
    "div",
    { role: "status", "aria-live": "polite" },
    shown ? testResult(shown) : null,
  );
  const show = (r: TestResult) => {
    results.set(i.service, r);
    result.replaceChildren(testResult(r));
  };
  const testStored = h("button", {
    type: "button",
    onClick: async () => {
      testStored.disabled = true;
      testStored.textContent = "Testing…";
      try {
        show(await ctx.client.testIntegration.mutate({ service: i.service }));
        refresh();
      } catch (err) {
        ctx.notify(failureText(err));
        testStored.disabled = false;
        testStored.textContent = "Test connection";
      }
    },
  }, "Test connection");
  const unlink = h("button", {
    type: "button",
    class: "danger",
    onClick: async () => {
      const loses = i.service === "storefront"
        ? "Agents stop seeing orders and bots stop recommending its products."
        : "Agents stop seeing subscriptions.";
      if (!confirm(`Unlink the ${TITLE[i.service].toLowerCase()} (${i.provider})? ${loses}`)) {
        return;
      }
      try {
        ctx.notify(
          (await ctx.client.unlinkIntegration.mutate({ service: i.service })).message,
        );
        results.delete(i.service);
        refresh();
      } catch (err) {
        ctx.notify(failureText(err));
      }
    },
  }, "Unlink");
  return h(
    "section",
    { class: "card integration", "data-integration": i.service, "data-state": i.state },
    h(
      "header",
      { class: "integration-head" },
      h("h2", null, `${TITLE[i.service]} · ${i.provider}`),
      h("span", { class: `pill ${tone}` }, label),
    ),
    h("p", { class: "muted" }, WHAT[i.service]),
    details(i),
    canManage && i.linked ? h("div", { class: "row-actions" }, testStored, unlink) : null,
    result,
    canManage
      ? formPlace(i, linkForm(ctx, i, show, () => results.delete(i.service), refresh))
      : null,
  );
}

export const integrationsScreen: Screen = {
  path: "integrations",
  title: "Integrations",
  async render(ctx) {
    const cards = h("div", { class: "integrations" });
    const results: Results = new Map();
    const load = async () => {
      const list = await ctx.client.listIntegrations.query({});
      cards.replaceChildren(
        ...list.data.map((i) => integrationCard(ctx, i, results, () => void load())),
      );
    };
    await load();
    ctx.dataReady();
    return h(
      "section",
      null,
      pageHeader("Integrations"),
      h(
        "p",
        { class: "muted" },
        "Customer context: beside a conversation, agents see what your store and billing know " +
          "about the visitor's e-mail. Credentials are stored encrypted and never shown again; " +
          "only their last four characters are.",
      ),
      ctx.can("manage-workspace") ? null : readOnlyNote(),
      cards,
    );
  },
};
