/// <reference lib="dom" />
/** Controls the bot forms share: the provider select and the index languages. */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import { unstoredKeyWords } from "../../../domain/ai/server_routing.ts";

type Keys = DashboardOutputs["listKeys"];

export const LANGUAGES = [
  "english",
  "french",
  "german",
  "spanish",
  "italian",
  "portuguese",
  "dutch",
  "swedish",
  "danish",
  "norwegian",
  "finnish",
  "russian",
  "simple",
] as const;

/**
 * A provider select: each of the eight, saying how each is reached: its stored
 * key, the operator's routing (AI_BASE_URL) or key (AI_API_KEY), or nothing.
 */
export function providerSelect(keys: Keys, value: string): HTMLSelectElement {
  const viaServer = unstoredKeyWords(keys.server);
  return h(
    "select",
    { name: "provider" },
    keys.data.map((p) =>
      h(
        "option",
        { value: p.provider, selected: p.provider === value },
        `${p.label}${
          p.configured ? "" : viaServer ? ` (${viaServer.toLowerCase()})` : " (no key stored)"
        }`,
      )
    ),
  );
}

/** The operator's AI routing in one sentence, for under the provider select; "" when none. */
export function routingHint(keys: Keys): string | undefined {
  return keys.server.note ?? undefined;
}
