/**
 * docs/agent-api.md's endpoint table is the agent app's contract: its
 * permission and limit columns must say what each procedure enforces. Read
 * from the procedures' own meta, so a guard added in code and not in the
 * table (or the reverse) fails here.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { apiOperations } from "../../routers/openapi/api_operations.ts";
import type { RateLimitSpec } from "../../routers/guards/rate_limit.ts";

const TABLE = new URL("../../docs/agent-api.md", import.meta.url);
const ROW = /^\|\s*\d+\s*\|\s*`(\w+) ([^`]+)`[^|]*\|\s*\d\s*\|\s*([^|]*)\|\s*([^|]*)\|/;

function limitText(spec: RateLimitSpec | undefined): string {
  if (!spec) return "";
  const window = spec.windowSeconds === 60
    ? "min"
    : spec.windowSeconds === 3600
    ? "hour"
    : `${spec.windowSeconds} s`;
  return `${spec.limit}/${window} per ${spec.by === "ip" ? "IP" : "user"}`;
}

Deno.test("the agent API table states each route's permission and limit", async () => {
  const operations = apiOperations();
  const rows = (await Deno.readTextFile(TABLE)).split("\n").map((l) => ROW.exec(l))
    .filter((m) => m !== null);
  assertOk(rows.length >= 30, `only ${rows.length} rows read`);
  const wrong: string[] = [];
  for (const [, method, path, permission, limit] of rows) {
    const op = operations.find((o) =>
      o.meta.openapi?.method === method && o.meta.openapi?.path === path
    );
    if (!op) {
      wrong.push(`${method} ${path}: no such procedure`);
      continue;
    }
    const documented = permission!.trim().replace(/`/g, "");
    const enforced = op.meta.permission ?? "";
    if ((documented === "none" ? "" : documented) !== enforced) {
      wrong.push(`${method} ${path}: permission "${documented}", code "${enforced}"`);
    }
    if (limit!.trim() !== limitText(op.meta.rateLimit)) {
      wrong.push(
        `${method} ${path}: limit "${limit!.trim()}", code "${limitText(op.meta.rateLimit)}"`,
      );
    }
  }
  assertEquals(wrong, []);
});
