/// <reference lib="dom" />
/**
 * Team: members with role, state and last activity; invite by e-mail with a
 * role (inviting an address again renews its invitation); change a role,
 * suspend or restore, remove; each open invitation's link to copy, resend by
 * e-mail, renew or revoke. Seats against the plan. Every change that takes
 * something away asks first (the house's `confirm`), and an owner is never
 * made by the role select: "Make owner" is its own button, for owners only.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import { memberAccountActions } from "./team_account_actions.ts";
import {
  errorLine,
  failureText,
  field,
  formatDate,
  pageHeader,
  readOnlyNote,
  showFieldErrors,
  shownOnce,
} from "../ui.ts";

type Team = DashboardOutputs["team"];
type Member = Team["members"][number];
type Invitation = Team["invitations"][number];
type Role = Member["role"];
/** What the select offers; owner is a separate, explicit action. */
const SELECTABLE = ["administrator", "agent", "viewer"] as const;
const label = (role: string) => role.charAt(0).toUpperCase() + role.slice(1);

function roleSelect(name: string, value: Role, aria: string): HTMLSelectElement {
  const select = h("select", { name, "aria-label": aria });
  // An owner's row shows the role, but nobody picks it here.
  if (value === "owner") select.append(h("option", { value, disabled: true }, label(value)));
  for (const r of SELECTABLE) select.append(h("option", { value: r }, label(r)));
  select.value = value;
  return select;
}

type Act = (run: () => Promise<{ message: string }>) => Promise<void>;

function actor(ctx: ScreenContext, refresh: () => void): Act {
  return async (run) => {
    try {
      ctx.notify((await run()).message);
    } catch (err) {
      ctx.notify(failureText(err));
    }
    refresh();
  };
}

function memberRow(ctx: ScreenContext, m: Member, refresh: () => void): HTMLElement {
  const iAmOwner = ctx.session.user.role === "owner";
  // Administrators manage everyone but owners; owners manage everyone but themselves.
  const manage = ctx.can("manage-workspace") && m.id !== ctx.session.user.id &&
    (m.role !== "owner" || iAmOwner);
  const act = actor(ctx, refresh);
  const role = roleSelect("role", m.role, `Role of ${m.name}`);
  role.addEventListener("change", () => {
    const to = role.value as Role;
    const demotesOwner = m.role === "owner" ? " They stop being an owner." : "";
    if (!confirm(`Change ${m.name}'s role from ${label(m.role)} to ${label(to)}?${demotesOwner}`)) {
      role.value = m.role;
      return;
    }
    void act(() => ctx.client.updateMember.mutate({ user: m.id, role: to }));
  });
  const makeOwner = manage && iAmOwner && m.role !== "owner"
    ? h("button", {
      type: "button",
      onClick: () => {
        if (
          !confirm(
            `Make ${m.name} an owner? An owner can do everything you can, including changing ` +
              "or removing other owners.",
          )
        ) return;
        void act(() => ctx.client.updateMember.mutate({ user: m.id, role: "owner" }));
      },
    }, "Make owner")
    : null;
  const suspend = h("button", {
    type: "button",
    onClick: () => {
      const suspending = m.state === "active";
      if (
        suspending &&
        !confirm(`Suspend ${m.name}? They are signed out everywhere at once until restored.`)
      ) return;
      void act(() => ctx.client.updateMember.mutate({ user: m.id, suspended: suspending }));
    },
  }, m.state === "active" ? "Suspend" : "Restore");
  const remove = h("button", {
    type: "button",
    class: "danger",
    onClick: () => {
      if (
        !confirm(
          `Remove ${m.name}? Their own canned replies are deleted; conversations assigned to them become unassigned.`,
        )
      ) return;
      void act(() => ctx.client.removeMember.mutate({ user: m.id }));
    },
  }, "Remove");
  return h(
    "tr",
    { "data-member": m.email },
    h("td", null, m.name, h("div", { class: "muted small" }, m.email)),
    h("td", null, manage ? role : label(m.role)),
    h(
      "td",
      null,
      h("span", { class: `pill ${m.state === "active" ? "active" : "inactive"}` }, m.state),
    ),
    h("td", null, formatDate(m.last_active_at)),
    h(
      "td",
      { class: "row-actions" },
      makeOwner,
      manage ? suspend : null,
      manage ? remove : null,
      manage ? memberAccountActions(ctx, m) : null,
    ),
  );
}

/** The link again, read-only, with a copy button. */
function linkField(i: Invitation, link: string): HTMLElement {
  const input = h("input", {
    readonly: true,
    value: link,
    "aria-label": `Invitation link for ${i.email}`,
  });
  const copy = h("button", {
    type: "button",
    "aria-label": `Copy the link for ${i.email}`,
    onClick: async () => {
      input.select();
      await navigator.clipboard?.writeText(link).catch(() => {});
      copy.textContent = "Copied";
    },
  }, "Copy");
  return h("div", { class: "invitation-link" }, input, copy);
}

function invitationRow(
  ctx: ScreenContext,
  i: Invitation,
  emailEnabled: boolean,
  refresh: () => void,
): HTMLElement {
  const manage = ctx.can("manage-workspace");
  const act = actor(ctx, refresh);
  const renew = h("button", {
    type: "button",
    onClick: () =>
      void act(async () => {
        const r = await ctx.client.invite.mutate({ email: i.email, role: i.role });
        return { message: `Invitation to ${i.email} renewed${r.emailed ? " and e-mailed" : ""}.` };
      }),
  }, "Renew");
  const resend = i.link && emailEnabled
    ? h("button", {
      type: "button",
      onClick: () => void act(() => ctx.client.resendInvite.mutate({ invitation: i.id })),
    }, "Resend e-mail")
    : null;
  const revoke = h("button", {
    type: "button",
    class: "danger",
    onClick: () => {
      if (!confirm(`Revoke the invitation to ${i.email}? Its link stops working.`)) return;
      void act(() => ctx.client.revokeInvite.mutate({ invitation: i.id }));
    },
  }, "Revoke");
  const link = !manage ? null : i.link ? linkField(i, i.link) : h(
    "span",
    { class: "muted small" },
    i.state === "expired"
      ? "Expired: renew to get a new link."
      : "This link cannot be shown again: renew to get a new link.",
  );
  return h(
    "tr",
    { "data-invitation": i.email },
    h("td", null, i.email),
    h("td", null, label(i.role)),
    h("td", null, i.state === "pending" ? `until ${formatDate(i.expires_at)}` : "expired"),
    h("td", null, link),
    h(
      "td",
      { class: "row-actions" },
      manage ? resend : null,
      manage && (!i.link || i.state === "expired") ? renew : null,
      manage ? revoke : null,
    ),
  );
}

function inviteForm(ctx: ScreenContext, shown: HTMLElement, refresh: () => void): HTMLElement {
  const email = h("input", { type: "email", name: "email", required: true, maxlength: 255 });
  const role = roleSelect("role", "agent", "Role");
  const error = errorLine();
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid",
      "aria-label": "Invite a teammate",
      onSubmit: async (e) => {
        e.preventDefault();
        try {
          const r = await ctx.client.invite.mutate({
            email: email.value,
            role: role.value as Role,
          });
          error.textContent = "";
          const to = r.invitation.email;
          const again = r.renewed ? " (the earlier link no longer works)" : "";
          shown.replaceChildren(
            r.link
              ? shownOnce(
                "Invitation link",
                r.link,
                `Send this link to ${to}${again}: it works once, for 7 days. It stays under ` +
                  "Open invitations until it is used.",
              )
              : h("p", { role: "status" }, `Invitation e-mailed to ${to}${again}.`),
          );
          email.value = "";
          refresh();
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
        }
      },
    },
    field("E-mail", email),
    field("Role", role),
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "primary" }, "Invite"),
    ),
    error,
  );
  return form;
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

export const teamScreen: Screen = {
  path: "team",
  title: "Team",
  async render(ctx) {
    const members = h("tbody");
    const invitations = h("tbody");
    const seats = h("p", { class: "muted", "data-seats": "" });
    const shown = h("div");
    const load = async () => {
      const team = await ctx.client.team.query({});
      members.replaceChildren(...team.members.map((m) => memberRow(ctx, m, () => void load())));
      invitations.replaceChildren(
        ...team.invitations.map((i) =>
          invitationRow(ctx, i, team.email_enabled, () => void load())
        ),
      );
      seats.textContent = `${team.seats.used} of ${team.seats.limit} seats taken ` +
        "(owners, administrators and agents, invitations included; viewers take none).";
    };
    await load();
    const manage = ctx.can("manage-workspace");
    return h(
      "section",
      { class: "team" },
      pageHeader("Team"),
      manage ? null : readOnlyNote(),
      seats,
      manage ? inviteForm(ctx, shown, () => void load()) : null,
      shown,
      table(["Member", "Role", "State", "Last active", ""], members),
      h("h2", null, "Open invitations"),
      table(["E-mail", "Role", "Valid", manage ? "Link" : "", ""], invitations),
    );
  },
};
