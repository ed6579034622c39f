/** The agent surface (`/api/agent`, ability `agent`): a map of its procedures, nothing else. */
import { router } from "../trpc.ts";
import { login, logout, me, refresh } from "./session.ts";
import { broadcastingAuth } from "./broadcasting.ts";

export const agentRouter = router({
  login,
  refresh,
  me,
  logout,
  broadcastingAuth,
});
