/**
 * `redocly lint` (Redocly CLI's recommended rules) on the live document: no
 * errors. Redocly runs on Node through npx, pinned, so a fresh machine with
 * only Node.js and npm runs the same check (the first run downloads it).
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";

const REDOCLY = "@redocly/cli@2.77.0";

Deno.test("redocly lint: the OpenAPI document has no errors", serverTestOptions, async () => {
  const s = await startTestServer({});
  const dir = await Deno.makeTempDir({ prefix: "parley-openapi-" });
  try {
    const file = `${dir}/openapi.json`;
    await Deno.writeTextFile(file, await (await fetch(`${s.url}/api/openapi.json`)).text());
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command("npx", {
        args: ["-y", REDOCLY, "lint", "--format=stylish", file],
        env: {
          NO_UPDATE_NOTIFIER: "1",
          REDOCLY_TELEMETRY: "off",
          REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (err) {
      throw new Error(`npx (Node.js and npm) is needed to run ${REDOCLY}: ${err}`);
    }
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    const findings = text.split("\n").filter((l) =>
      /\b(error|warning)\b/.test(l) && /:\d+:\d+/.test(l)
    );
    const errors = findings.filter((l) => /\berror\b/.test(l));
    assertEquals(errors, [], text);
    assertEquals(out.code, 0, text);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await s.stop();
  }
});
