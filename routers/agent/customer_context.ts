/** GET /api/agent/conversations/{conversation}/customer-context (docs/agent-api.md). */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { customerContext as loadCustomerContext } from "../../domain/customer_context/customer_context.ts";

const billingData = z.union([
  z.object({ found: z.literal(false) }),
  z.object({
    found: z.literal(true),
    customer: z.object({ name: z.string().nullable(), email: z.string().nullable() }),
    subscriptions: z.array(z.object({
      status: z.string(),
      plan: z.string().nullable(),
      amount: z.string().nullable(),
      renews: z.string().nullable(),
    })),
  }),
]);

export const customerContext = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/agent/conversations/{conversation}/customer-context",
      summary: "Orders and subscriptions of the visitor's e-mail from the linked services",
    },
  })
  .input(z.object({ conversation: z.string().max(100) }))
  .output(z.object({
    email: z.string().nullable(),
    storefront: z.object({
      connected: z.boolean(),
      orders: z.array(z.object({
        name: z.string(),
        total: z.string(),
        financial_status: z.string().nullable(),
        fulfillment_status: z.string().nullable(),
        created_at: z.string(),
        url: z.string(),
      })),
    }),
    billing: z.object({ connected: z.boolean(), data: billingData.nullable() }),
  }))
  .query(({ ctx, input }) =>
    loadCustomerContext(ctx.deps, {
      workspaceId: ctx.auth!.workspace.id,
      conversationId: input.conversation,
    })
  );
