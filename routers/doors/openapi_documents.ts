/**
 * The OpenAPI documents this server serves: `/api/openapi.json` (every
 * surface) and `/api/openapi/{slug}.json` (one surface: what the reference
 * page draws, since Swagger UI does not draw 170-odd operations at once in
 * reasonable time). Each is generated on its first request (about 0.1 s),
 * then served from memory with an ETag and gzip.
 */
import { buildOpenApiDocument } from "../openapi/document.ts";
import { apiOperations } from "../openapi/api_operations.ts";
import { surfaceBySlug } from "../openapi/components.ts";
import { API_VERSION } from "../system/status.ts";
import { makeAsset, type StaticAsset } from "./static_files.ts";

const SURFACE_PATH = /^\/api\/openapi\/([a-z0-9]+)\.json$/;

/**
 * A lookup from a request path to its document, or null when the path names none.
 * `baseUrl` is read at generation: the port is known only once the server listens.
 */
export function openApiDocuments(baseUrl: () => string) {
  const made = new Map<string, Promise<StaticAsset>>();
  const make = (surface?: string) =>
    makeAsset(
      JSON.stringify(buildOpenApiDocument(apiOperations(), {
        baseUrl: baseUrl(),
        version: API_VERSION,
        surface,
      })),
      "application/json; charset=utf-8",
      "no-cache",
    );
  return (path: string): Promise<StaticAsset> | null => {
    let surface: string | undefined;
    if (path !== "/api/openapi.json") {
      const slug = SURFACE_PATH.exec(path)?.[1];
      surface = slug ? surfaceBySlug(slug)?.tag : undefined;
      if (!surface) return null;
    }
    const key = surface ?? "";
    let asset = made.get(key);
    if (!asset) made.set(key, asset = make(surface));
    return asset;
  };
}
