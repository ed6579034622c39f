/**
 * The provider's HTTP/1.1 connection (domain/ai/http1/), through the real
 * server against a provider on a raw socket (tests/helpers/raw_provider.ts):
 * replies split at awkward places arrive whole, and so do large ones (read
 * past the small buffer); kept-alive connections are used again (also after
 * a streamed reply), one the provider closed while idle is never written to,
 * idle ones are closed by us before common servers' 5 s; a body cut short or
 * an `error` event is a failed reply (never a short one), the visitor leaving
 * closes the connection, a redirect is answered as it is, and no request is
 * sent twice.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import {
  answerNormally,
  chunked,
  completionJson,
  head,
  type RawReply,
  type RawRequest,
  sleep,
  sseEvent,
  sseReply,
  startRawProvider,
} from "../helpers/raw_provider.ts";
import { postStream, streamUntil } from "../widget/widget_client.ts";

const KEY = "acme-helper";
const PATH = "/api/v1/chatbots/acme-helper/messages";
const owner = T.acme.owner.api;
const enc = new TextEncoder();

/** Write `bytes` in pieces of `size`, pausing between them so each arrives on its own. */
async function trickle(reply: RawReply, bytes: Uint8Array, size: number): Promise<void> {
  for (let at = 0; at < bytes.length; at += size) {
    await reply.write(bytes.subarray(at, at + size));
    await sleep(1);
  }
}

Deno.test(
  "provider connection: HTTP/1.1 framing, reuse, and failures",
  serverTestOptions,
  async (t) => {
    let script: (req: RawRequest, reply: RawReply) => Promise<void> = (req, reply) =>
      answerNormally(req, reply, "Our desk is open Monday to Friday.");
    const provider = startRawProvider((req, reply) => script(req, reply));
    const s = await startTestServer({
      seed: standardSeed(),
      env: { AI_BASE_URL: provider.baseUrl, AI_TIMEOUT_MS: "1500", TRUSTED_PROXIES: "127.0.0.1" },
    });
    const visitor = () => `v-${crypto.randomUUID()}`;
    const deltas = (events: { event: string; data: { delta?: string } }[]) =>
      events.filter((e) => e.event === "delta").map((e) => e.data.delta).join("");
    const snapshot = async (visitorId: string, conversationId: string) =>
      (await http(
        s.url,
        "GET",
        `/widget/${KEY}/conversation?visitor_id=${visitorId}&conversation_id=${conversationId}`,
      )).body.messages.map((m: { role: string }) => m.role);
    try {
      await t.step(
        "a chunked reply split at awkward places reaches the visitor whole",
        async () => {
          // Multi-byte characters split between reads, CRLF and CR line ends, a comment.
          const text = "Café déjà vu: 5 € a month 🙂 and naïve résumés.";
          script = async (req, reply) => {
            assertOk(req.body.stream);
            const body = sseReply(text).replaceAll(
              "data: [DONE]\n\n",
              ": done soon\r\ndata: [DONE]\r\r",
            );
            const events = body.split(/(?<=\n\n)/);
            const bytes = enc.encode(
              head(200, { "content-type": "text/event-stream", "transfer-encoding": "chunked" }),
            );
            await trickle(reply, new Uint8Array([...bytes, ...chunked(events)]), 3);
          };
          const v = visitor();
          const r = await postStream(s.url, KEY, { visitor_id: v, message: "Prices?" });
          assertEquals(r.events.map((e) => e.event).at(-1), "done", r.text);
          assertEquals(deltas(r.events), text);
          const stored = await http(
            s.url,
            "GET",
            `/widget/${KEY}/conversation?visitor_id=${v}&conversation_id=${
              r.events[0]!.data.conversation_id
            }`,
          );
          assertEquals(stored.body.messages.at(-1).content, text);
        },
      );

      await t.step(
        "a JSON reply with a Content-Length, split in small pieces, is read whole",
        async () => {
          script = async (_req, reply) => {
            const body = enc.encode(JSON.stringify({
              id: "x",
              object: "chat.completion",
              created: 1,
              model: "m",
              choices: [{
                index: 0,
                message: { role: "assistant", content: "Délivré ✓" },
                finish_reason: "stop",
              }],
              usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
            }));
            const bytes = enc.encode(
              head(200, { "content-type": "application/json", "content-length": body.length }),
            );
            await trickle(reply, new Uint8Array([...bytes, ...body]), 5);
          };
          const r = await http(s.url, "POST", PATH, {
            token: owner,
            body: { message: "Status?", visitor_id: "pc" },
          });
          assertEquals(r.status, 200, r.text);
          assertEquals(r.body.reply.content, "Délivré ✓");
        },
      );

      await t.step("large bodies (read past the small buffer) arrive whole", async () => {
        // 60 KB in one chunk of a chunked stream, and in a JSON body with its length.
        const big = Array.from({ length: 6000 }, (_, i) => `w${i % 97}é`).join(" ").slice(
          0,
          60_000,
        );
        script = async (req, reply) => {
          if (req.body.stream) {
            await reply.write(
              head(200, { "content-type": "text/event-stream", "transfer-encoding": "chunked" }),
            );
            await reply.write(chunked([sseEvent({ content: big }), "data: [DONE]\n\n"]));
          } else {
            const body = enc.encode(completionJson(big));
            await reply.write(
              head(200, { "content-type": "application/json", "content-length": body.length }),
            );
            await reply.write(body);
          }
        };
        const r = await postStream(s.url, KEY, { visitor_id: visitor(), message: "Everything?" });
        assertEquals(r.events.at(-1)!.event, "done", r.text.slice(0, 200));
        assertEquals(deltas(r.events), big);
        const v1 = await http(s.url, "POST", PATH, {
          token: owner,
          body: { message: "Everything, again?", visitor_id: "pc-big" },
        });
        assertEquals(v1.status, 200, v1.text.slice(0, 200));
        assertEquals(v1.body.reply.content, big);
      });

      await t.step("kept-alive connections carry the next calls, streamed or not", async () => {
        script = (req, reply) => answerNormally(req, reply, "Yes, we ship abroad.");
        // Warm up: whatever connections the first message opens.
        await postStream(s.url, KEY, { visitor_id: visitor(), message: "Shipping?" });
        const opened = provider.accepted;
        const before = provider.requests.length;
        for (let i = 0; i < 3; i++) {
          const r = await postStream(s.url, KEY, {
            visitor_id: visitor(),
            message: `Shipping ${i}?`,
          });
          assertEquals(r.events.at(-1)!.event, "done", r.text);
          const v1 = await http(s.url, "POST", PATH, {
            token: owner,
            body: { message: `Abroad ${i}?`, visitor_id: `pc${i}` },
          });
          assertEquals(v1.status, 200, v1.text);
        }
        assertEquals(provider.requests.length - before, 6);
        assertEquals(provider.accepted, opened, "no new connection for six sequential calls");
      });

      await t.step(
        "a connection the provider closes while idle is not written to again",
        async () => {
          // As a server with a short keep-alive timeout does: answer, then close the idle socket.
          script = async (req, reply) => {
            await answerNormally(req, reply, "Closing after this one.");
            setTimeout(() => reply.close(), 30);
          };
          const before = provider.requests.length;
          for (let i = 0; i < 4; i++) {
            const r = await http(s.url, "POST", PATH, {
              token: owner,
              body: { message: `Again ${i}?`, visitor_id: "pc-close" },
            });
            assertEquals(r.status, 200, r.text);
            await sleep(100);
          }
          const mine = provider.requests.slice(before);
          assertEquals(mine.length, 4, "each call sent once, none retried");
          assertEquals(new Set(mine.map((r) => r.conn)).size, 4, "each on a connection of its own");
        },
      );

      await t.step("idle connections are closed by us after about 4 s", async () => {
        script = (req, reply) => answerNormally(req, reply, "Fine.");
        const r = await http(s.url, "POST", PATH, {
          token: owner,
          body: { message: "Idle?", visitor_id: "pc-idle" },
        });
        assertEquals(r.status, 200);
        const answeredAt = performance.now();
        const conn = provider.requests.at(-1)!.conn;
        for (let i = 0; i < 70 && !provider.clientClosed.has(conn); i++) await sleep(100);
        const closedAt = provider.clientClosed.get(conn);
        assertOk(closedAt !== undefined, "the client closed its idle connection");
        const idle = closedAt - answeredAt;
        assertOk(idle >= 3500 && idle < 5000, `closed after ${Math.round(idle)} ms idle`);
      });

      await t.step("a streamed body cut short is an error, and no reply is stored", async () => {
        script = async (_req, reply) => {
          await reply.write(
            head(200, { "content-type": "text/event-stream", "transfer-encoding": "chunked" }),
          );
          const first = enc.encode(sseEvent({ content: "Half " }) + sseEvent({ content: "an " }));
          await reply.write(enc.encode(`${first.length.toString(16)}\r\n`));
          await reply.write(first);
          await reply.write('\r\n40\r\ndata: {"id":');
          await sleep(30);
          reply.close(); // mid-chunk, no terminator
        };
        const v = visitor();
        const r = await postStream(s.url, KEY, { visitor_id: v, message: "Cut?" });
        const names = r.events.map((e) => e.event);
        assertEquals(names[0], "meta");
        assertEquals(names.at(-1), "error", r.text);
        assertEquals(deltas(r.events), "Half an ");
        assertEquals(r.events.at(-1)!.data.code, "provider_unreachable");
        assertEquals(await snapshot(v, r.events[0]!.data.conversation_id), ["visitor"]);
      });

      await t.step(
        "a JSON body shorter than its Content-Length is a 502, not a short reply",
        async () => {
          const before = provider.requests.length;
          script = async (_req, reply) => {
            await reply.write(
              head(200, { "content-type": "application/json", "content-length": 400 }),
            );
            await reply.write('{"id":"x","object":"chat.completion","choices":[');
            await sleep(30);
            reply.close();
          };
          const r = await http(s.url, "POST", PATH, {
            token: owner,
            body: { message: "Short?", visitor_id: "pc-short" },
          });
          assertEquals(r.status, 502, r.text);
          assertMatch(r.body.message, /could not be reached/);
          assertEquals(provider.requests.length - before, 1, "not sent again");
        },
      );

      await t.step("an error event or a malformed event mid-stream ends with error", async () => {
        for (
          const bad of [
            'event: error\ndata: {"error":{"message":"overloaded"}}\n\n',
            'data: {"error":{"message":"model crashed"}}\n\n',
            "data: {not json\n\n",
          ]
        ) {
          script = async (_req, reply) => {
            await reply.write(
              head(200, { "content-type": "text/event-stream", "transfer-encoding": "chunked" }),
            );
            await reply.write(
              chunked([sseEvent({ content: "Partly " }), bad, sseEvent({ content: "never" })]),
            );
          };
          const v = visitor();
          const r = await postStream(s.url, KEY, { visitor_id: v, message: "Errors?" });
          assertEquals(r.events.map((e) => e.event), ["meta", "delta", "error"], bad);
          assertEquals(r.events[2]!.data.code, "provider_unreachable");
          assertEquals(await snapshot(v, r.events[0]!.data.conversation_id), ["visitor"]);
        }
      });

      await t.step("the visitor leaving closes the provider's connection at once", async () => {
        let conn = 0;
        script = async (req, reply) => {
          conn = req.conn;
          await reply.write(
            head(200, { "content-type": "text/event-stream", "transfer-encoding": "chunked" }),
          );
          for (let i = 0; i < 100; i++) {
            await reply.write(chunked([sseEvent({ content: `w${i} ` })]).subarray(0, -5));
            await sleep(30);
          }
        };
        const seen = await streamUntil(
          s.url,
          KEY,
          { visitor_id: visitor(), message: "Long?" },
          (events) => events.some((e) => e.event === "delta"),
        );
        const left = performance.now();
        assertEquals(seen[0]!.event, "meta");
        for (let i = 0; i < 50 && !provider.clientClosed.has(conn); i++) await sleep(20);
        const closedAt = provider.clientClosed.get(conn);
        assertOk(closedAt !== undefined, "the provider saw the connection close");
        assertOk(closedAt - left < 500, `closed ${Math.round(closedAt - left)} ms after`);
      });

      await t.step("a 302 is answered as it is, not followed", async () => {
        // 307 and 308 are followed by rules of their own (provider_redirect_test.ts).
        const before = provider.requests.length;
        script = async (_req, reply) => {
          await reply.write(head(302, { location: "/v1/elsewhere", "content-length": 0 }));
        };
        const r = await http(s.url, "POST", PATH, {
          token: owner,
          body: { message: "Moved?", visitor_id: "pc-307" },
        });
        assertEquals(r.status, 502, r.text);
        assertMatch(r.body.message, /HTTP 302/);
        assertEquals(provider.requests.length - before, 1);
        assertOk(provider.requests.every((q) => !q.path.includes("elsewhere")));
      });

      await t.step(
        "a request the provider read and dropped is sent again only by the retry policy",
        async () => {
          // A kept-alive connection that dies after the request went out: the transport
          // must not resend it; call_provider's one visible retry (after 250 ms) may.
          script = (req, reply) => answerNormally(req, reply, "Warm.");
          await http(s.url, "POST", PATH, {
            token: owner,
            body: { message: "Warm?", visitor_id: "pc-drop" },
          });
          const before = provider.requests.length;
          const times: number[] = [];
          script = (_req, reply) => {
            times.push(performance.now());
            reply.close();
            return Promise.resolve();
          };
          const r = await http(s.url, "POST", PATH, {
            token: owner,
            body: { message: "Drop?", visitor_id: "pc-drop" },
          });
          assertEquals(r.status, 502, r.text);
          assertMatch(r.body.message, /connection closed/);
          assertEquals(
            provider.requests.length - before,
            2,
            "the request and the policy's one retry",
          );
          assertOk(times[1]! - times[0]! >= 200, "the second is the policy's, after its pause");
        },
      );

      await t.step("a 1xx interim answer is skipped for the real one", async () => {
        script = async (req, reply) => {
          await reply.write(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n",
          );
          await answerNormally(req, reply, "After the hints.");
        };
        const r = await postStream(s.url, KEY, { visitor_id: visitor(), message: "Hints?" });
        assertEquals(deltas(r.events), "After the hints.");
      });
    } finally {
      await s.stop();
      await provider.close();
    }
  },
);
