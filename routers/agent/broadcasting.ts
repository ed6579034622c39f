/** POST /api/agent/broadcasting/auth: signs a realtime subscription (docs/realtime.md). */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { authorizeChannel } from "../../domain/realtime/authorize_channel.ts";

export const broadcastingAuth = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/agent/broadcasting/auth",
      tags: ["agent"],
      summary: "Authorise a private or presence channel subscription (Pusher signature)",
    },
  })
  .input(z.object({
    socket_id: z.string().regex(/^\d{1,20}\.\d{1,20}$/, "Must be a socket id like 123.456."),
    channel_name: z.string().min(1).max(164),
  }))
  .output(z.object({ auth: z.string(), channel_data: z.string().optional() }))
  .mutation(({ ctx, input }) =>
    authorizeChannel(ctx.deps, ctx.auth!, {
      socketId: input.socket_id,
      channelName: input.channel_name,
    })
  );
