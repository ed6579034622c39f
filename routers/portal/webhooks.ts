/**
 * Outbound webhook endpoints (docs/webhooks.md): /api/portal/webhooks and
 * below, permission `manage-workspace`. A secret appears in the answers to
 * create and rotate only.
 */
import { z } from "zod";
import { portalProcedure } from "../trpc.ts";
import { WEBHOOK_EVENT_TYPES } from "../../domain/webhooks/event_types.ts";
import { createEndpoint } from "../../domain/webhooks/create_endpoint.ts";
import { updateEndpoint } from "../../domain/webhooks/update_endpoint.ts";
import { deleteEndpoint } from "../../domain/webhooks/delete_endpoint.ts";
import { listEndpoints, showEndpoint } from "../../domain/webhooks/list_endpoints.ts";
import { rotateEndpointSecret } from "../../domain/webhooks/rotate_endpoint_secret.ts";
import { listDeliveries } from "../../domain/webhooks/list_deliveries.ts";
import { redeliver } from "../../domain/webhooks/redeliver.ts";
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

export const listWebhooks = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/webhooks",
      summary: "The workspace's webhook endpoints",
    },
    permission: "manage-workspace",
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(endpointSchema) }))
  .query(async ({ ctx }) => ({ data: await listEndpoints(ctx.deps, ctx.auth!.workspace.id) }));

export const createWebhook = portalProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/portal/webhooks",
      summary: "Add a webhook endpoint",
      description: "201 with the endpoint and its signing `secret`, shown this once. The url " +
        "must use https and must not point at a private address. `events` names the types " +
        `sent: ${WEBHOOK_EVENT_TYPES.join(", ")}.`,
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

export const showWebhook = portalProcedure
  .meta({
    openapi: { method: "GET", path: "/api/portal/webhooks/{id}", summary: "One webhook endpoint" },
    permission: "manage-workspace",
  })
  .input(z.object({ id: endpointId }))
  .output(z.object({ data: endpointSchema }))
  .query(async ({ ctx, input }) => ({
    data: await showEndpoint(ctx.deps, ctx.auth!.workspace.id, input.id),
  }));

export const updateWebhook = portalProcedure
  .meta({
    openapi: {
      method: "PATCH",
      path: "/api/portal/webhooks/{id}",
      summary: "Change an endpoint's url, description, events or enabled state",
      description: "Fields left out keep their value. Enabling a disabled endpoint clears its " +
        "failure record; deliveries it missed stay in its log for redelivery.",
      requestExample: { enabled: true },
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

export const deleteWebhook = portalProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/portal/webhooks/{id}",
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

export const rotateWebhookSecret = portalProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/portal/webhooks/{id}/rotate-secret",
      summary: "Issue a new signing secret",
      description: "The new `secret` is shown this once. The previous secret keeps signing " +
        "beside it for `overlap_hours` (default 24; 0 stops it at once): each request carries " +
        "both signatures until `previous_secret_expires_at`.",
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

export const listWebhookDeliveries = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/webhooks/{id}/deliveries",
      summary: "An endpoint's latest deliveries with every attempt",
      description: "Newest first. `status` is `pending` (being sent or waiting to retry, see " +
        "`next_attempt_at`), `succeeded` or `failed`. Attempts are kept 30 days.",
    },
    permission: "manage-workspace",
  })
  .input(z.object({ id: endpointId, limit: deliveriesLimit.optional() }))
  .output(deliveryList)
  .query(async ({ ctx, input }) => ({
    data: await listDeliveries(ctx.deps, ctx.auth!.workspace.id, input.id, input.limit ?? 50),
  }));

export const redeliverWebhook = portalProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/portal/webhooks/{id}/deliveries/{delivery}/redeliver",
      summary: "Send a delivery again",
      description: "Same webhook-id and body, a fresh retry window. 409 while it is in flight.",
      responseExample: { message: "The delivery was queued to be sent again." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ id: endpointId, delivery: deliveryId }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    redeliver(ctx.deps, ctx.auth!.workspace.id, input.id, input.delivery)
  );
