/**
 * The dashboard's Webhooks screen (docs/dashboard.md): the portal's webhook
 * procedures (docs/webhooks.md) for a signed-in owner or administrator
 * (permission `manage-workspace`), under /api/dashboard/webhooks. The list
 * also names the event types an endpoint can subscribe to, for the form.
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { WEBHOOK_EVENT_TYPES } from "../../domain/webhooks/event_types.ts";
import { createEndpoint } from "../../domain/webhooks/create_endpoint.ts";
import { updateEndpoint } from "../../domain/webhooks/update_endpoint.ts";
import { deleteEndpoint } from "../../domain/webhooks/delete_endpoint.ts";
import { listEndpoints } from "../../domain/webhooks/list_endpoints.ts";
import { rotateEndpointSecret } from "../../domain/webhooks/rotate_endpoint_secret.ts";
import { listDeliveries } from "../../domain/webhooks/list_deliveries.ts";
import { redeliver } from "../../domain/webhooks/redeliver.ts";
import { sendTestEvent } from "../../domain/webhooks/send_test_event.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import {
  deliveriesLimit,
  deliveryId,
  deliveryList,
  endpointId,
  endpointSchema,
  endpointWithSecret,
  overlapHours,
  webhookDescription,
  webhookEvents,
  webhookUrl,
} from "../schemas/webhooks.ts";

export const listWebhooks = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/webhooks",
      summary: "The workspace's webhook endpoints, and the event types one can subscribe to",
    },
    permission: "manage-workspace",
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(endpointSchema), event_types: z.array(z.string()) }))
  .query(async ({ ctx }) => ({
    data: await listEndpoints(ctx.deps, ctx.auth!.workspace.id),
    event_types: [...WEBHOOK_EVENT_TYPES],
  }));

export const createWebhook = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/webhooks",
      summary: "Add a webhook endpoint; its signing secret is in this answer only",
      created: true,
      requestExample: {
        url: "https://crm.example.com/parley/webhooks",
        description: "CRM sync",
        events: ["conversation.created", "lead.captured"],
      },
    },
    permission: "manage-workspace",
  })
  .input(z.object({
    url: webhookUrl,
    description: webhookDescription.optional(),
    events: webhookEvents,
    enabled: z.boolean().optional(),
  }))
  .output(z.object({ data: endpointWithSecret }))
  .mutation(async ({ ctx, input }) => {
    const data = await createEndpoint(
      ctx.deps,
      ctx.auth!.workspace.id,
      input,
      actorOf(ctx.auth!, ctx.ip),
    );
    ctx.response.status = 201;
    return { data };
  });

export const updateWebhook = dashboardProcedure
  .meta({
    openapi: {
      method: "PATCH",
      path: "/api/dashboard/webhooks/{id}",
      summary: "Change an endpoint's url, description, events or enabled state",
      requestExample: { enabled: false },
    },
    permission: "manage-workspace",
  })
  .input(z.object({
    id: endpointId,
    url: webhookUrl.optional(),
    description: webhookDescription.optional(),
    events: webhookEvents.optional(),
    enabled: z.boolean().optional(),
  }))
  .output(z.object({ data: endpointSchema }))
  .mutation(async ({ ctx, input }) => {
    const { id, ...patch } = input;
    return {
      data: await updateEndpoint(
        ctx.deps,
        ctx.auth!.workspace.id,
        id,
        patch,
        actorOf(ctx.auth!, ctx.ip),
      ),
    };
  });

export const deleteWebhook = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/webhooks/{id}",
      summary: "Remove a webhook endpoint and its delivery log",
      responseExample: { message: "The webhook endpoint was deleted." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ id: endpointId }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    deleteEndpoint(ctx.deps, ctx.auth!.workspace.id, input.id, actorOf(ctx.auth!, ctx.ip))
  );

export const rotateWebhookSecret = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/webhooks/{id}/rotate-secret",
      summary: "Issue a new signing secret, shown once; the previous one signs beside it a while",
      requestExample: { overlap_hours: 24 },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ id: endpointId, overlap_hours: overlapHours.optional() }))
  .output(z.object({ data: endpointWithSecret }))
  .mutation(async ({ ctx, input }) => ({
    data: await rotateEndpointSecret(
      ctx.deps,
      ctx.auth!.workspace.id,
      input.id,
      actorOf(ctx.auth!, ctx.ip),
      input.overlap_hours,
    ),
  }));

export const listWebhookDeliveries = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/webhooks/{id}/deliveries",
      summary: "An endpoint's latest deliveries with every attempt, newest first",
    },
    permission: "manage-workspace",
  })
  .input(z.object({ id: endpointId, limit: deliveriesLimit.optional() }))
  .output(deliveryList)
  .query(async ({ ctx, input }) => ({
    data: await listDeliveries(ctx.deps, ctx.auth!.workspace.id, input.id, input.limit ?? 20),
  }));

export const redeliverWebhook = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/webhooks/{id}/deliveries/{delivery}/redeliver",
      summary: "Send a delivery again (same webhook-id and body); 409 while it is in flight",
      responseExample: { message: "The delivery was queued to be sent again." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ id: endpointId, delivery: deliveryId }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    redeliver(ctx.deps, ctx.auth!.workspace.id, input.id, input.delivery)
  );

export const sendWebhookTestEvent = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/webhooks/{id}/test",
      summary: "Send this endpoint a signed `ping` event; it is listed in its deliveries",
      description: "The `ping` payload is in docs/webhooks.md. A disabled endpoint is 409.",
      responseExample: {
        message: "A test event was queued; it appears in this endpoint's deliveries.",
        event_id: "msg_2f0c9a41d7b35e8c6a1f04b9e27d5c13",
        delivery_id: 42,
      },
    },
    permission: "manage-workspace",
    rateLimit: { name: "dashboard-webhook-test", limit: 20, windowSeconds: 60, by: "user" },
  })
  .input(z.object({ id: endpointId }))
  .output(z.object({ message: z.string(), event_id: z.string(), delivery_id: z.number() }))
  .mutation(({ ctx, input }) => sendTestEvent(ctx.deps, ctx.auth!.workspace.id, input.id));
