/** Raw (non-tRPC) widget routes: the SSE reply stream. */
import type { RawRoute } from "../raw_routes.ts";
import { handleStream } from "./stream.ts";
import { streamOperation } from "./stream_openapi.ts";

export const widgetStreamRoutes: RawRoute[] = [{
  method: "POST",
  pattern: ["widget", null, "stream"],
  template: "/widget/{key}/stream",
  handle: (req, params, deps, ip) => handleStream(req, params[0]!, deps, ip),
  openapi: streamOperation,
}];
