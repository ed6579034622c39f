/**
 * Where an endpoint may point. https only, except hosts listed in
 * WEBHOOK_ALLOW_HOSTS (`host` or `host:port`: tests, intranets), which may
 * also use http and private addresses (a single-label name such as
 * `intranet` counts as private). Every delivery passes the one address
 * policy after DNS (domain/crawl/address_policy.ts); CRAWL_ALLOW_PRIVATE does
 * not apply to webhooks, as it does not to push.
 */
import type { WebhookConfig } from "../../app/config.ts";
import {
  type AddressPolicy,
  AddressRefused,
  allowHint,
  assertAddressAllowed,
  literalAddressRefusal,
  type Resolver,
} from "../crawl/address_policy.ts";
import { Invalid } from "../errors.ts";

function exempt(config: WebhookConfig, url: URL): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return config.allowHosts.includes(host) || config.allowHosts.includes(`${host}:${port}`);
}

export function webhookAddressPolicy(config: WebhookConfig, url: URL): AddressPolicy {
  return { allowPrivate: exempt(config, url), allowHosts: [], allowSetting: "WEBHOOK_ALLOW_HOSTS" };
}

/** The URL as stored, or Invalid on `url` naming what is wrong with it. */
export function checkEndpointUrl(config: WebhookConfig, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw Invalid.field("url", "The url must be an absolute https URL.");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && exempt(config, url))) {
    throw Invalid.field(
      "url",
      `The url must use https. To allow http for this host, the server's operator adds ` +
        `"${url.hostname.toLowerCase()}" (any port) or "${url.host.toLowerCase()}" to ` +
        "WEBHOOK_ALLOW_HOSTS.",
    );
  }
  if (url.username || url.password) {
    throw Invalid.field("url", "The url must not contain credentials.");
  }
  const refusal = literalAddressRefusal(url.href, webhookAddressPolicy(config, url));
  if (refusal) throw Invalid.field("url", `The url ${refusal}.`);
  url.hash = "";
  return url.href;
}

/** Before each attempt: throws AddressRefused for a forbidden target (after DNS). */
export async function assertWebhookTargetAllowed(
  config: WebhookConfig,
  url: URL,
  resolve?: Resolver,
): Promise<void> {
  if (url.protocol === "http:" && !exempt(config, url)) {
    throw new AddressRefused(
      url.href,
      "http is allowed only for hosts in WEBHOOK_ALLOW_HOSTS",
      allowHint(url, webhookAddressPolicy(config, url)),
    );
  }
  await assertAddressAllowed(url, webhookAddressPolicy(config, url), resolve);
}
