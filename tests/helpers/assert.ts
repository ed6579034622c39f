/** Assertions for tests (JSR's std is not reachable here; node:assert is built in). */
import assert from "node:assert/strict";

export const assertEquals = <T>(actual: T, expected: T, msg?: string) =>
  assert.deepStrictEqual(actual, expected, msg);
export const assert_ = assert;
export function assertMatch(actual: string, re: RegExp, msg?: string) {
  assert.match(actual, re, msg);
}
export function assertExists<T>(v: T, msg?: string): asserts v is NonNullable<T> {
  assert.ok(v !== null && v !== undefined, msg ?? "expected a value");
}
export function assertOk(v: unknown, msg?: string): asserts v {
  assert.ok(v, msg);
}
