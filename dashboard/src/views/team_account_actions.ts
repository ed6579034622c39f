/// <reference lib="dom" />
/**
 * A member's account actions on Team (docs/accounts.md): "Reset link" issues
 * a one-hour, single-use password reset link shown once in place (for a
 * server without SMTP), and "Sign out everywhere" ends the member's sessions.
 * Kept out of team_view.ts so that screen only places them.
 */
import { h } from "../../../inbox/src/dom.ts";
import type { ScreenContext } from "../screen.ts";
import { failureText, shownOnce } from "../ui.ts";

export function memberAccountActions(
  ctx: ScreenContext,
  m: { id: number; name: string },
): HTMLElement {
  const holder = h("span", { class: "account-actions" });
  const reset = h("button", {
    type: "button",
    onClick: async () => {
      try {
        const r = await ctx.client.issueMemberResetLink.mutate({ user: m.id });
        holder.append(
          shownOnce(
            `Reset link for ${m.name}`,
            r.link,
            `Pass this link to ${m.name}: it sets a new password once, until ` +
              `${new Date(r.expires_at).toLocaleTimeString()}. It is not shown again.`,
          ),
        );
      } catch (err) {
        ctx.notify(failureText(err));
      }
    },
  }, "Reset link");
  const end = h("button", {
    type: "button",
    onClick: async () => {
      if (!confirm(`Sign ${m.name} out of every app and device?`)) return;
      try {
        ctx.notify((await ctx.client.endMemberSessions.mutate({ user: m.id })).message);
      } catch (err) {
        ctx.notify(failureText(err));
      }
    },
  }, "Sign out everywhere");
  holder.append(reset, end);
  return holder;
}
