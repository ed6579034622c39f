/** Every surface's procedures under one router, served by both doors. */
import { router } from "./trpc.ts";
import { v1Router } from "./v1/mod.ts";

export const appRouter = router({
  v1: v1Router,
});

export type AppRouter = typeof appRouter;
