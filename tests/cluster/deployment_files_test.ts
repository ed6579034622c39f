/**
 * The deployment files say what the tested topology does: deploy/nginx.conf
 * (compose's balancer) is the routing `deno task cluster` runs in the
 * load-balancer tests, for compose's three instances.
 */
import { assertEquals } from "../helpers/assert.ts";
import { nginxRouting } from "../../cli/cluster/nginx_config.ts";

Deno.test("deploy/nginx.conf is the tested routing for compose's instances", async () => {
  const file = await Deno.readTextFile(new URL("../../deploy/nginx.conf", import.meta.url));
  const routing = nginxRouting(
    [1, 2, 3].map((n) => ({ http: `parley${n}:8080`, socket: `parley${n}:8081` })),
    "80",
  );
  // The file is its header comment, then exactly the tested routing.
  assertEquals(file.slice(file.length - routing.length), routing);
});

Deno.test("no location of the routing sets a header of its own", () => {
  // nginx drops every server-level proxy_set_header in a location that sets one: the
  // instances would lose the client's address (client_address_test.ts shows the effect).
  const routing = nginxRouting([{ http: "a:1", socket: "a:2" }], "80");
  const locations = routing.split(/\n\s*location /).slice(1);
  assertEquals(locations.length > 0, true);
  for (const block of locations) {
    const body = block.slice(0, block.indexOf("\n    }"));
    assertEquals(body.includes("proxy_set_header"), false, `location ${body.split("\n")[0]}`);
  }
});
