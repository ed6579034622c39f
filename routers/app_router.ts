/** Every surface's procedures under one router, served by both doors. */
import { router } from "./trpc.ts";
import { v1Router } from "./v1/mod.ts";
import { portalRouter } from "./portal/mod.ts";
import { widgetRouter } from "./widget/mod.ts";
import { agentRouter } from "./agent/mod.ts";
import { systemRouter } from "./system/mod.ts";
import { dashboardRouter } from "./dashboard/mod.ts";

export const appRouter = router({
  v1: v1Router,
  portal: portalRouter,
  agent: agentRouter,
  widget: widgetRouter,
  system: systemRouter,
  dashboard: dashboardRouter,
});

export type AppRouter = typeof appRouter;
