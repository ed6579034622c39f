/**
 * The webhook-endpoint schemas the portal and the dashboard share: inputs'
 * bounds, the endpoint (its secret only in the answers to create and rotate),
 * and a delivery with its attempts.
 */
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "../../domain/webhooks/event_types.ts";

export const endpointId = z.coerce.number().int().min(1);
export const webhookUrl = z.string().trim().min(1).max(2048);
export const webhookEvents = z.array(z.string().max(64)).max(WEBHOOK_EVENT_TYPES.length * 2).meta({
  examples: [["conversation.created", "message.created"]],
});
export const webhookDescription = z.string().max(500);
export const overlapHours = z.int().min(0).max(168);
export const deliveryId = z.coerce.number().int().min(1);
export const deliveriesLimit = z.coerce.number().int().min(1).max(100);

export const endpointSchema = z.object({
  id: z.int(),
  url: z.string(),
  description: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const endpointWithSecret = endpointSchema.extend({
  secret: z.string().meta({ examples: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] }),
});

const attemptSchema = z.object({
  attempt: z.int(),
  at: z.string(),
  status_code: z.int().nullable(),
  duration_ms: z.int(),
  response_excerpt: z.string().nullable(),
  error: z.string().nullable(),
  outcome: z.enum(["succeeded", "retry", "failed"]),
});

export const deliveryList = z.object({
  data: z.array(z.object({
    id: z.int(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    attempts: z.int(),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
    attempt_log: z.array(attemptSchema),
  })),
});
