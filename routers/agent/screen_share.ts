/**
 * Screen sharing from the agent's side (branding `screen_share`, docs/agent-api.md):
 * GET and POST conversations/{conversation}/screen-share, POST …/screen-share/stop.
 * The visitor's page itself arrives on `private-screen.{uuid}` (docs/realtime.md).
 */
import { z } from "zod";
import { agentProcedure } from "../trpc.ts";
import { requestScreenShare } from "../../domain/screen_share/request_screen_share.ts";
import { stopScreenShare } from "../../domain/screen_share/stop_screen_share.ts";
import { getScreenShare } from "../../domain/screen_share/get_screen_share.ts";

const conversation = z.string().max(100);

const screenShare = z.object({
  id: z.int(),
  state: z.enum(["requested", "active", "declined", "ended"]),
  requested_at: z.string(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  ended_by: z.enum(["visitor", "agent", "closed", "left", "turned_off"]).nullable(),
});

const path = "/api/agent/conversations/{conversation}/screen-share";

export const screenShareStatus = agentProcedure
  .meta({
    openapi: {
      method: "GET",
      path,
      summary: "The conversation's latest screen share, and whether its bot allows one",
    },
    permission: "handle-conversations",
  })
  .input(z.object({ conversation }))
  .output(z.object({ enabled: z.boolean(), screen_share: screenShare.nullable() }))
  .query(({ ctx, input }) =>
    getScreenShare(ctx.deps, { workspaceId: ctx.auth!.workspace.id }, input.conversation)
  );

export const requestShare = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path,
      summary: "Ask to see the visitor's page (the widget asks the visitor for consent)",
      description:
        "Nothing is recorded until the visitor accepts. Asking while a request waits repeats it; asking while sharing asks the widget for a fresh full view. 403 when the bot's `screen_share` flag is off; 409 when the conversation is closed.",
      errors: [409],
    },
    permission: "handle-conversations",
    rateLimit: { name: "agent-screen-share", limit: 20, windowSeconds: 60, by: "user" },
  })
  .input(z.object({ conversation }))
  .output(z.object({ screen_share: screenShare }))
  .mutation(({ ctx, input }) =>
    requestScreenShare(
      ctx.deps,
      { workspaceId: ctx.auth!.workspace.id, userId: ctx.auth!.user.id },
      input.conversation,
    )
  );

export const stopShare = agentProcedure
  .meta({
    openapi: {
      method: "POST",
      path: `${path}/stop`,
      summary: "End the screen share (or withdraw an unanswered request)",
    },
    permission: "handle-conversations",
  })
  .input(z.object({ conversation }))
  .output(z.object({ screen_share: screenShare.nullable() }))
  .mutation(({ ctx, input }) =>
    stopScreenShare(ctx.deps, { workspaceId: ctx.auth!.workspace.id }, input.conversation)
  );
