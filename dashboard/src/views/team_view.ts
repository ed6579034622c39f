/// <reference lib="dom" />
/**
 * Team: members with role, state and last activity; invite by e-mail with a
 * role (the link e-mailed, or shown once to pass on); change a role, suspend
 * or restore, remove; revoke an open invitation. Seats against the plan.
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
const ROLES = ["owner", "administrator", "agent", "viewer"] as const;
const label = (role: string) => role.charAt(0).toUpperCase() + role.slice(1);

function roleSelect(name: string, value: string, aria: string): HTMLSelectElement {
  const select = h("select", { name, "aria-label": aria });
  for (const r of ROLES) select.append(h("option", { value: r }, label(r)));
  select.value = value;
  return select;
}

function memberRow(ctx: ScreenContext, m: Member, refresh: () => void): HTMLElement {
  const manage = ctx.can("manage-workspace") && m.id !== ctx.session.user.id;
  const act = async (run: () => Promise<{ message: string }>) => {
    try {
      ctx.notify((await run()).message);
      refresh();
    } catch (err) {
      ctx.notify(failureText(err));
      refresh();
    }
  };
  const role = roleSelect("role", m.role, `Role of ${m.name}`);
  role.addEventListener(
    "change",
    () =>
      void act(() =>
        ctx.client.updateMember.mutate({ user: m.id, role: role.value as (typeof ROLES)[number] })
      ),
  );
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
      manage
        ? h("button", {
          type: "button",
          onClick: () =>
            void act(() =>
              ctx.client.updateMember.mutate({ user: m.id, suspended: m.state === "active" })
            ),
        }, m.state === "active" ? "Suspend" : "Restore")
        : null,
      manage
        ? h("button", {
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
        }, "Remove")
        : null,
      manage ? memberAccountActions(ctx, m) : null,
    ),
  );
}

function invitationRow(ctx: ScreenContext, i: Invitation, refresh: () => void): HTMLElement {
  return h(
    "tr",
    { "data-invitation": i.email },
    h("td", null, i.email),
    h("td", null, label(i.role)),
    h("td", null, i.state === "pending" ? `until ${formatDate(i.expires_at)}` : "expired"),
    h(
      "td",
      null,
      ctx.can("manage-workspace")
        ? h("button", {
          type: "button",
          class: "danger",
          onClick: async () => {
            try {
              ctx.notify((await ctx.client.revokeInvite.mutate({ invitation: i.id })).message);
            } catch (err) {
              ctx.notify(failureText(err));
            }
            refresh();
          },
        }, "Revoke")
        : null,
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
            role: role.value as (typeof ROLES)[number],
          });
          error.textContent = "";
          shown.replaceChildren(
            r.link
              ? shownOnce(
                "Invitation link",
                r.link,
                `Send this link to ${r.invitation.email}: it works once, for 7 days, and is not shown again.`,
              )
              : h("p", { role: "status" }, `Invitation e-mailed to ${r.invitation.email}.`),
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
        ...team.invitations.map((i) => invitationRow(ctx, i, () => void load())),
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
      table(["E-mail", "Role", "Valid", ""], invitations),
    );
  },
};
