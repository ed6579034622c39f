/**
 * What the operator set for every workspace's AI calls (AI_BASE_URL,
 * AI_API_KEY), said where owners choose keys and models: with AI_BASE_URL set
 * every provider's calls go to that one server whatever a bot names, so a
 * screen that said "no key stored" would contradict bots that answer. The
 * address itself is not shown (it may be an internal host); whether it is set is.
 */

export interface ServerRouting {
  /** AI_BASE_URL is set: every provider is reached at that one server. */
  ai_base_url: boolean;
  /** AI_API_KEY is set: used for each provider whose key this workspace did not store. */
  ai_api_key: boolean;
  /** One sentence for the screens, or null when the operator set neither. */
  note: string | null;
}

export function serverRouting(
  config: { aiBaseUrl: string | null; aiApiKey: string | null },
): ServerRouting {
  const baseUrl = config.aiBaseUrl !== null;
  const apiKey = config.aiApiKey !== null;
  let note: string | null = null;
  if (baseUrl) {
    note = "This server sends every bot's AI calls to one AI server its operator chose " +
      "(AI_BASE_URL), whatever provider a bot names; the model name is passed on as chosen. " +
      (apiKey
        ? "A key stored here is sent with the calls; without one the server's key (AI_API_KEY) is."
        : "A key stored here is sent with the calls; without one, none is needed.");
  } else if (apiKey) {
    note = "The operator set a server-wide key (AI_API_KEY): a provider with no key stored " +
      "here answers with it, on the operator's account.";
  }
  return { ai_base_url: baseUrl, ai_api_key: apiKey, note };
}

/** How a provider without a stored key is reached, in words; null when it is not. */
export function unstoredKeyWords(routing: Pick<ServerRouting, "ai_base_url" | "ai_api_key">) {
  return routing.ai_base_url
    ? "Server routing (AI_BASE_URL)"
    : routing.ai_api_key
    ? "Server key (AI_API_KEY)"
    : null;
}
