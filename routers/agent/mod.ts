/** The agent surface (`/api/agent`, ability `agent`): a map of its procedures, nothing else. */
import { router } from "../trpc.ts";
import { login, logout, me, refresh } from "./session.ts";
import { revenue, suggest, suggestionOutcome, summary } from "./assist.ts";
import { invite, visitors } from "./live_visitors.ts";
import { customerContext } from "./customer_context.ts";

export const agentRouter = router({
  login,
  refresh,
  me,
  logout,
  suggest,
  suggestionOutcome,
  summary,
  revenue,
  visitors,
  invite,
  customerContext,
});
