/**
 * The provider-key schemas the portal and the dashboard share: one rule for a
 * provider code (unknown is 422 on `provider`, not 404), the key's bounds, and
 * the answers' shapes.
 */
import { z } from "zod";
import { providerInfo } from "../../domain/ai/providers.ts";

export const providerCode = z.string().refine(
  (code) => providerInfo(code) !== null,
  "The selected provider is invalid.",
);

export const apiKeyField = z.string().trim().min(1).max(300);

export const providerKeyList = z.object({
  data: z.array(z.object({
    provider: z.string(),
    label: z.string(),
    last_four: z.string().nullable(),
    configured: z.boolean(),
  })),
});

export const storedProviderKey = z.object({
  data: z.object({ provider: z.string(), last_four: z.string(), configured: z.boolean() }),
});
