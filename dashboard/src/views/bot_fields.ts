/// <reference lib="dom" />
/** Controls the bot forms share: the provider select and the index languages. */
import { h } from "../../../inbox/src/dom.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";

type Provider = DashboardOutputs["listKeys"]["data"][number];

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

/** A provider select: each of the eight, saying which have a key stored. */
export function providerSelect(providers: Provider[], value: string): HTMLSelectElement {
  return h(
    "select",
    { name: "provider" },
    providers.map((p) =>
      h(
        "option",
        { value: p.provider, selected: p.provider === value },
        `${p.label}${p.configured ? "" : " (no key stored)"}`,
      )
    ),
  );
}
