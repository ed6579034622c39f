/** integration:link, integration:unlink (customer context: storefront and billing). */
import { linkIntegration, unlinkIntegration } from "../../domain/admin/link_integration.ts";
import { Invalid } from "../../domain/errors.ts";
import { optional, type ParsedArgs, required } from "../args.ts";
import type { Command } from "./command.ts";

/**
 * The credential from `--credential-env NAME` (kept out of shell history and
 * the process list) or, failing that, `--credential`.
 */
function credential(args: ParsedArgs): string {
  const name = optional(args, "credential-env");
  if (name) {
    const value = Deno.env.get(name);
    if (!value) throw Invalid.field("credential-env", `The variable ${name} is empty or unset.`);
    return value;
  }
  return required(args, "credential");
}

export const integrationCommands: Command[] = [
  {
    name: "integration:link",
    usage:
      "integration:link --workspace <slug> --service storefront|billing [--shop <domain>] (--credential <secret> | --credential-env <VAR>)",
    summary:
      "Link a Shopify store (--shop, Admin API token) or Stripe (secret key) for customer context.",
    run: (deps, args) =>
      linkIntegration(deps, {
        workspace: required(args, "workspace"),
        service: required(args, "service"),
        shop: optional(args, "shop"),
        credential: credential(args),
      }),
  },
  {
    name: "integration:unlink",
    usage: "integration:unlink --workspace <slug> --service storefront|billing",
    summary: "Remove a linked service and its stored credential.",
    run: (deps, args) =>
      unlinkIntegration(deps, {
        workspace: required(args, "workspace"),
        service: required(args, "service"),
      }),
  },
];
