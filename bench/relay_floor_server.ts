/**
 * The least any server between the widget and its provider can add: a bare
 * `Deno.serve` that forwards each POST to the stub provider with the
 * runtime's fetch and pipes the provider's body straight back. The widget
 * stream bench runs it as a process of its own, beside the server, and times
 * it like the stub itself: what it adds over the stub is the cost of one more
 * process and HTTP hop on this machine, which Parley's overhead includes too.
 */
const stub = Deno.env.get("STUB_URL")!;
const port = Number(Deno.env.get("PORT"));
Deno.serve({ port, hostname: "127.0.0.1", onListen() {} }, async (req) => {
  const upstream = await fetch(`${stub}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-relay" },
    body: await req.text(),
  });
  return new Response(upstream.body, {
    status: upstream.status,
    headers: { "content-type": "text/event-stream" },
  });
});
