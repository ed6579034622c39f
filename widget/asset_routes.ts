/** Static widget assets: /widget.js and the /demo page. */
import type { RawRoute } from "../routers/raw_routes.ts";

export const widgetAssetRoutes: RawRoute[] = [];
