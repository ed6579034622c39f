/**
 * An OpenAI-compatible provider over TLS (Deno.serve with a test
 * certificate): chat completions, streamed or not, with one fixed reply;
 * each request's client port is recorded, so a test can tell a kept-alive
 * connection from a new one.
 */
/** A chat-completions provider over TLS on `port`; records each request's client port. */
export function tlsProvider(port: number, pair: { cert: string; key: string }) {
  const clientPorts: number[] = [];
  const ac = new AbortController();
  const server = Deno.serve(
    { port, hostname: "127.0.0.1", ...pair, signal: ac.signal, onListen() {} },
    async (req, info) => {
      const body = await req.json();
      if (!new URL(req.url).pathname.endsWith("/chat/completions")) {
        return Response.json({ error: { message: "no" } }, { status: 404 });
      }
      clientPorts.push(info.remoteAddr.port);
      const text = "Served over TLS.";
      if (!body.stream) {
        return Response.json({
          id: "x",
          object: "chat.completion",
          created: 1,
          model: body.model,
          choices: [{
            index: 0,
            message: { role: "assistant", content: text },
            finish_reason: "stop",
          }],
          usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
        });
      }
      const event = (delta: unknown) =>
        `data: ${
          JSON.stringify({
            id: "x",
            object: "chat.completion.chunk",
            created: 1,
            model: body.model,
            choices: [{ index: 0, delta, finish_reason: null }],
          })
        }\n\n`;
      return new Response(event({ content: text }) + "data: [DONE]\n\n", {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  return {
    clientPorts,
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
}
