/** The v1 view of who is calling: user and company, straight from the token. */
import type { Auth } from "../auth/tokens.ts";

export function describeCaller(auth: Auth) {
  return {
    user: { id: auth.user.id, name: auth.user.name, email: auth.user.email, role: auth.user.role },
    company: {
      id: auth.workspace.id,
      name: auth.workspace.name,
      slug: auth.workspace.slug,
      plan: auth.workspace.planCode,
    },
  };
}
