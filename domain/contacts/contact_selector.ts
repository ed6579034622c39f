/**
 * How the integration API names a person to erase or export: by the e-mail
 * address they gave, or by the verified user id (`sub`) of the identity token
 * the workspace's site signed. Exactly one of the two.
 */
import { Invalid } from "../errors.ts";
import type { ContactSelector } from "../../db/contact_scope.ts";

export interface PersonInput {
  email?: string;
  user_id?: string;
}

export function personSelector(input: PersonInput): ContactSelector {
  const email = input.email?.trim();
  const userId = input.user_id?.trim();
  if (email && userId) {
    const why = "Give either email or user_id, not both.";
    throw new Invalid(why, { email: [why] });
  }
  if (email) {
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      throw new Invalid("The email must be an e-mail address.", {
        email: ["The email must be an e-mail address."],
      });
    }
    return { emails: [email] };
  }
  if (userId) return { userIds: [userId] };
  const why = "Give the person's email or their verified user_id.";
  throw new Invalid(why, { email: [why] });
}
