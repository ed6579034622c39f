/**
 * The typed agent client shared by the web inbox and the agent CLI: tRPC's
 * own client over `/trpc`, typed by the server's `AppRouter`, so a change to a
 * procedure's input or output that breaks a client fails `deno task check`.
 * Only types cross from the server (the import below is type-only), so the
 * browser bundle holds none of the server's code.
 */
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../routers/app_router.ts";

export type AgentOutputs = inferRouterOutputs<AppRouter>["agent"];
export type AgentInputs = inferRouterInputs<AppRouter>["agent"];
export type InboxView = AgentOutputs["inbox"];
export type InboxRow = InboxView["conversations"][number];
export type ActiveConversation = NonNullable<InboxView["active"]>;
export type AgentMessage = ActiveConversation["messages"][number];
export type InboxFilter = NonNullable<AgentInputs["inbox"]["filter"]>;
export type TokenSession = AgentOutputs["login"];
export type CannedReply = AgentOutputs["canned"]["canned"][number];
export type Tag = AgentOutputs["tags"]["tags"][number];

export const FILTERS: readonly InboxFilter[] = [
  "all",
  "waiting",
  "mine",
  "team",
  "ai",
  "human",
  "resolved",
];

export interface AgentClientOptions {
  /** The server's origin, e.g. `https://support.example.com`; "" in a page served by it. */
  baseUrl: string;
  /** The current agent token (read per request, so a refreshed token is used at once). */
  token: () => string | null;
  /** IANA zone for display times (`X-Timezone`); the server shows UTC without it. */
  timeZone?: string;
}

export function createAgentClient(opts: AgentClientOptions) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${opts.baseUrl.replace(/\/+$/, "")}/trpc`,
        headers: () => {
          const h: Record<string, string> = {};
          const token = opts.token();
          if (token) h.authorization = `Bearer ${token}`;
          if (opts.timeZone) h["x-timezone"] = opts.timeZone;
          return h;
        },
      }),
    ],
  });
}

export type AgentClient = ReturnType<typeof createAgentClient>;

/** What a failed call means to a person: the server's message, its HTTP status, field errors. */
export interface CallFailure {
  message: string;
  status: number | null;
  errors?: Record<string, string[]>;
}

export function describeFailure(err: unknown): CallFailure {
  if (err instanceof TRPCClientError) {
    const data = (err.data ?? {}) as { httpStatus?: number; errors?: Record<string, string[]> };
    const status = typeof data.httpStatus === "number" ? data.httpStatus : null;
    if (status === null && !err.shape) {
      return { message: `Cannot reach the server: ${err.message}`, status: null };
    }
    return { message: err.message, status, ...(data.errors ? { errors: data.errors } : {}) };
  }
  return { message: err instanceof Error ? err.message : String(err), status: null };
}

/** Tokens live 30 days; clients renew once less than half of that is left (docs/agent-api.md). */
export const TOKEN_LIFE_MS = 30 * 24 * 3600 * 1000;

export function tokenNeedsRefresh(expiresAt: string, now = Date.now()): boolean {
  const left = Date.parse(expiresAt) - now;
  return Number.isFinite(left) && left < TOKEN_LIFE_MS / 2;
}
