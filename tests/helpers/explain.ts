/**
 * A statement's work read from its own plan: an executor that runs the db
 * module's statement under `EXPLAIN (ANALYZE, FORMAT JSON)` as it is sent,
 * and the rows a plan's scans of one table read. Tests of a statement's cost
 * check rows read, not a time: the answer is right either way, only the work
 * differs, and rows read do not depend on how busy the machine is.
 */
import type { Executor } from "../../db/client.ts";

export interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** Rows of `table` the plan's scans read: returned or filtered away, over every loop. */
export function rowsRead(node: PlanNode, table: string): number {
  const own = node["Relation Name"] === table
    ? ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) +
      (node["Rows Removed by Index Recheck"] ?? 0)) * (node["Actual Loops"] ?? 1)
    : 0;
  return own + (node.Plans ?? []).reduce((n, p) => n + rowsRead(p, table), 0);
}

/**
 * An executor that explains each statement whose text starts with `start`
 * (the statement under test: its fragments start otherwise and stay the
 * executor's own) and keeps the plans in `plans`; the explained call returns
 * no rows.
 */
export function explaining(sql: Executor, plans: PlanNode[], start: RegExp): Executor {
  const explain = (strings: TemplateStringsArray, ...values: unknown[]) => {
    const texts = [`EXPLAIN (ANALYZE, FORMAT JSON) ${strings[0]}`, ...strings.slice(1)];
    const explained = Object.assign(texts, { raw: texts }) as unknown as TemplateStringsArray;
    return (sql as unknown as (s: TemplateStringsArray, ...v: unknown[]) => Promise<unknown[]>)(
      explained,
      ...values,
    ).then((rows) => {
      const row = rows[0] as Record<string, unknown>;
      const json = row["QUERY PLAN"];
      const plan = (typeof json === "string" ? JSON.parse(json) : json) as { Plan: PlanNode }[];
      plans.push(plan[0]!.Plan);
      return [];
    });
  };
  return new Proxy(sql, {
    apply: (_target, _this, args: [TemplateStringsArray, ...unknown[]]) => {
      const [strings, ...values] = args;
      return start.test(strings[0]!)
        ? explain(strings, ...values)
        : Reflect.apply(sql as unknown as (...a: unknown[]) => unknown, undefined, args);
    },
  }) as Executor;
}
