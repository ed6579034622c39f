/** GET /api/agent/push/vapid, POST /api/agent/push/subscriptions. */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { chars } from "../schemas/text.ts";
import { registerPushSubscription } from "../../domain/notifications/register_subscription.ts";

export const pushVapid = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/agent/push/vapid",
      summary: "The VAPID public key a device subscribes with; configured false without keys",
    },
    permission: "handle-conversations",
  })
  .input(z.object({}))
  .output(z.object({ configured: z.boolean(), public_key: z.string().nullable() }))
  .query(({ ctx }) => ({
    configured: ctx.deps.vapid !== null,
    public_key: ctx.deps.vapid?.publicKey ?? null,
  }));

export const pushSubscribe = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/push/subscriptions",
      summary: "Register this device's push subscription (upserted on the agent and endpoint)",
    },
    permission: "handle-conversations",
    rateLimit: { name: "agent-push-subscribe", limit: 20, windowSeconds: 60, by: "user" },
  })
  .input(z.object({
    endpoint: z.string().trim().max(2048).pipe(z.url()),
    keys: z.object({ p256dh: z.string().min(1).max(255), auth: z.string().min(1).max(255) }),
    device_name: chars(120).nullable().optional(),
  }))
  .output(z.object({
    id: z.number().int(),
    endpoint: z.string(),
    device_name: z.string().nullable(),
    created: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  }))
  .mutation(async ({ ctx, input }) => {
    const view = await registerPushSubscription(ctx.deps, ctx.auth!, {
      endpoint: input.endpoint,
      p256dh: input.keys.p256dh,
      auth: input.keys.auth,
      deviceName: input.device_name?.trim() || null,
    });
    ctx.response.status = view.created ? 201 : 200;
    return view;
  });
