/**
 * The deployment files say what the tested topology does: deploy/nginx.conf
 * (compose's balancer) is the routing `deno task cluster` runs in the
 * load-balancer tests, for compose's three instances.
 */
import { assertEquals } from "../helpers/assert.ts";
import { nginxRouting } from "../../cli/cluster/nginx_config.ts";

Deno.test("deploy/nginx.conf is the tested routing for compose's instances", async () => {
  const file = await Deno.readTextFile(new URL("../../deploy/nginx.conf", import.meta.url));
  const routing = file.slice(file.indexOf("upstream parley"));
  assertEquals(
    routing,
    nginxRouting(
      [1, 2, 3].map((n) => ({ http: `parley${n}:8080`, socket: `parley${n}:8081` })),
      "80",
    ),
  );
});
