/** Every operation the server answers, as the OpenAPI document lists them. */
import { appRouter } from "../app_router.ts";
import { rawRoutes } from "../raw_routes.ts";
import { probeOperations } from "../system/probes_openapi.ts";
import { type DescribedOperation, describeProcedures } from "./document.ts";

export function apiOperations(): DescribedOperation[] {
  return [
    ...describeProcedures(appRouter),
    ...rawRoutes.flatMap((r) => r.openapi ?? []),
    ...probeOperations,
  ];
}
