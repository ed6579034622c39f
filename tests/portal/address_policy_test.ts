/**
 * The crawler's address rule, checked directly: every private, loopback,
 * link-local, metadata and reserved form is refused, in IPv4 and IPv6;
 * public addresses pass; names are judged by what they resolve to, except
 * local names (single-label ones included) and names no DNS can hold.
 */
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import {
  AddressRefused,
  assertAddressAllowed,
  hostNameProblem,
  isPrivateAddress,
  literalAddressRefusal,
} from "../../domain/crawl/address_policy.ts";

Deno.test("private, loopback, link-local and reserved addresses are refused", () => {
  for (
    const ip of [
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "[::1]",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:169.254.169.254",
      "64:ff9b::a9fe:a9fe",
      "2002:7f00:1::",
      "fe80::1",
      "fd12:3456::1",
      "fc00::1",
      "ff02::1",
      "not-an-ip",
    ]
  ) assertEquals(isPrivateAddress(ip), true, ip);
});

Deno.test("public addresses are allowed", () => {
  for (
    const ip of [
      "8.8.8.8",
      "1.1.1.1",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
    ]
  ) assertEquals(isPrivateAddress(ip), false, ip);
});

Deno.test("a name is refused when any address it resolves to is private", async () => {
  const strict = { allowPrivate: false, allowHosts: [] };
  const refused = async (url: string, addresses: string[]) => {
    try {
      await assertAddressAllowed(new URL(url), strict, () => Promise.resolve(addresses));
      return false;
    } catch (err) {
      return err instanceof AddressRefused;
    }
  };
  assertEquals(await refused("https://example.test/", ["93.184.216.34"]), false);
  assertEquals(await refused("https://rebind.test/", ["93.184.216.34", "10.0.0.5"]), true);
  assertEquals(await refused("http://metadata.google.internal/", ["169.254.169.254"]), true);
  assertEquals(await refused("http://localhost:8080/", ["127.0.0.1"]), true);
  assertEquals(await refused("http://2130706433/", []), true); // 127.0.0.1 as one number
  assertEquals(await refused("http://user:pw@example.test/", ["93.184.216.34"]), true);
  assertEquals(await refused("file:///etc/passwd", []), true);
  // The allow-list opens one exact host and port, nothing else.
  const listed = { allowPrivate: false, allowHosts: ["127.0.0.1:8080"] };
  await assertAddressAllowed(new URL("http://127.0.0.1:8080/x"), listed);
  let other = false;
  await assertAddressAllowed(new URL("http://127.0.0.1:8081/x"), listed).catch((e) =>
    other = e instanceof AddressRefused
  );
  assertEquals(other, true);
});

Deno.test("a single-label name is local; a name DNS cannot hold is refused whatever the policy", async () => {
  const strict = { allowPrivate: false, allowHosts: [] };
  const open = { allowPrivate: true, allowHosts: [] };
  const outcome = async (url: string, policy: typeof strict) => {
    let lookedUp = false;
    const resolve = () => {
      lookedUp = true;
      return Promise.resolve(["93.184.216.34"]);
    };
    try {
      await assertAddressAllowed(new URL(url), policy, resolve);
      return { refused: false, lookedUp };
    } catch (err) {
      return { refused: err instanceof AddressRefused, lookedUp };
    }
  };
  // `intranet` is completed with the server's search domains: refused without a lookup.
  assertEquals(await outcome("https://intranet/h", strict), { refused: true, lookedUp: false });
  assertEquals(await outcome("https://intranet./h", strict), { refused: true, lookedUp: false });
  assertEquals(await outcome("https://intranet/h", open), { refused: false, lookedUp: false });
  assertEquals(await outcome("https://example.test/h", strict), { refused: false, lookedUp: true });
  const long = `https://${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(62)}/`;
  const label = `https://${"e".repeat(64)}.example.com/`;
  for (const url of [long, label, "https://a..example.com/"]) {
    assertEquals(await outcome(url, open), { refused: true, lookedUp: false }, url);
  }
  assertEquals(hostNameProblem(new URL(long)), "the host name is longer than 253 characters");
  assertEquals(hostNameProblem(new URL("https://[::1]/")), null);
  assertEquals(hostNameProblem(new URL("https://93.184.216.34/")), null);
  // What is checked when a URL is stored, without DNS.
  assertEquals(literalAddressRefusal("https://intranet/h", open), null);
  assertMatch(literalAddressRefusal("https://intranet/h", strict)!, /local address/);
  assertMatch(literalAddressRefusal(long, open)!, /253 characters/);
  assertEquals(literalAddressRefusal("https://example.test/h", strict), null);
});
