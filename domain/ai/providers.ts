/**
 * The eight AI providers. Wire codes are neutral (`provider_1` … `provider_8`,
 * SPEC rule R-N); each maps to a real vendor that speaks the OpenAI protocol.
 * Order is the order the provider list returns them. See docs/providers.md.
 */

export interface ProviderInfo {
  code: string;
  label: string;
  baseUrl: string;
  /** Model used for embeddings, or null when the vendor offers none. */
  embeddingModel: string | null;
  defaultModel: string;
}

export const PROVIDERS: readonly ProviderInfo[] = [
  {
    code: "provider_1",
    label: "OpenAI",
    baseUrl: "https://api.openai.com/v1",
    embeddingModel: "text-embedding-3-small",
    defaultModel: "gpt-4o-mini",
  },
  {
    code: "provider_2",
    label: "Anthropic",
    baseUrl: "https://api.anthropic.com/v1",
    embeddingModel: null,
    defaultModel: "claude-3-5-haiku-latest",
  },
  {
    code: "provider_3",
    label: "Google Gemini",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    embeddingModel: "text-embedding-004",
    defaultModel: "gemini-2.0-flash",
  },
  {
    code: "provider_4",
    label: "Mistral AI",
    baseUrl: "https://api.mistral.ai/v1",
    embeddingModel: "mistral-embed",
    defaultModel: "mistral-small-latest",
  },
  {
    code: "provider_5",
    label: "Groq",
    baseUrl: "https://api.groq.com/openai/v1",
    embeddingModel: null,
    defaultModel: "llama-3.1-8b-instant",
  },
  {
    code: "provider_6",
    label: "DeepSeek",
    baseUrl: "https://api.deepseek.com/v1",
    embeddingModel: null,
    defaultModel: "deepseek-chat",
  },
  {
    code: "provider_7",
    label: "xAI",
    baseUrl: "https://api.x.ai/v1",
    embeddingModel: null,
    defaultModel: "grok-3-mini",
  },
  {
    code: "provider_8",
    label: "OpenRouter",
    baseUrl: "https://openrouter.ai/api/v1",
    embeddingModel: null,
    defaultModel: "openai/gpt-4o-mini",
  },
];

export const PROVIDER_CODES = PROVIDERS.map((p) => p.code) as [string, ...string[]];

export function providerInfo(code: string): ProviderInfo | null {
  return PROVIDERS.find((p) => p.code === code) ?? null;
}
