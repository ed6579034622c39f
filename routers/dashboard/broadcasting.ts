/**
 * POST /api/dashboard/broadcasting/auth: signs the dashboard's realtime
 * subscription (`private-dashboard.{workspace_id}`, docs/realtime.md).
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { authorizeChannel } from "../../domain/realtime/authorize_channel.ts";

export const dashboardBroadcastingAuth = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/broadcasting/auth",
      summary: "Authorise the workspace's dashboard channel (Pusher signature)",
      description: "Signs `private-dashboard.{workspace_id}` for the token's own workspace " +
        "(crawl progress, usage changes); any other channel is 403. Accepts the form " +
        "pusher-js posts as well as JSON.",
    },
  })
  .input(z.object({
    socket_id: z.string().regex(/^\d{1,20}\.\d{1,20}$/, "Must be a socket id like 123.456."),
    channel_name: z.string().min(1).max(164),
  }))
  .output(z.object({ auth: z.string() }))
  .mutation(async ({ ctx, input }) => {
    const { auth } = await authorizeChannel(ctx.deps, ctx.auth!, {
      socketId: input.socket_id,
      channelName: input.channel_name,
    });
    return { auth };
  });
