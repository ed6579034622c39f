/**
 * What a procedure declares about its HTTP operation, in `meta.openapi`. The
 * REST door routes by `method` and `path`; the OpenAPI document is generated
 * from the rest (docs/openapi.md says how a procedure declares its statuses).
 */

/** Error statuses a procedure may add to those derived from its declaration. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503;

export interface OperationMeta {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** `/api/v1/chatbots/{key}`: `{name}` segments are path parameters from the input. */
  path: `/${string}`;
  /** One line, shown in the reference's operation list. Required: every operation has one. */
  summary: string;
  /** The rule when it is not obvious from the schema (Markdown). */
  description?: string;
  /**
   * The operation creates: `true` answers 201; `"if-new"` answers 201 for a
   * new record and 200 when an equal one already existed.
   */
  created?: true | "if-new";
  /** Statuses beyond the derived ones (docs/openapi.md), e.g. `[409, 502]`. */
  errors?: ErrorStatus[];
  /**
   * Whether an unknown path parameter is a 404. Default: true when the path
   * has parameters (they name records); false for e.g. a provider code,
   * which is validated (422) rather than looked up.
   */
  notFound?: boolean;
  /** A realistic request body or query for the reference (otherwise built from the schema). */
  requestExample?: Record<string, unknown>;
  /** A realistic success body (otherwise built from the schema and field examples). */
  responseExample?: unknown;
  /** Set false to keep a procedure off the REST door and out of the document. */
  enabled?: boolean;
  /** Ignored: tags come from the path's surface (Integration v1, Portal, Agent, Widget, System). */
  tags?: string[];
  /** Ignored: security comes from the procedure builder (public or a token ability). */
  protect?: boolean;
}
