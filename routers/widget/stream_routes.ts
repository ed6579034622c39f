/** Raw (non-tRPC) widget routes: the SSE reply stream. */
import type { RawRoute } from "../raw_routes.ts";

export const widgetStreamRoutes: RawRoute[] = [];
