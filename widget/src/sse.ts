/// <reference lib="dom" />
/**
 * A Server-Sent Events reader over a fetch body. EventSource cannot POST, so
 * the widget reads the stream itself; comments (`: ping`) are skipped.
 */

export interface SseEvent {
  event: string;
  data: string;
}

/** Calls `onEvent` for each complete event, in order, until the body ends. */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onEvent: (e: SseEvent) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    // Normalise line ends; a lone CR at the end may be the first half of a CRLF split across reads.
    buffer = (buffer + decoder.decode(value, { stream: true })).replace(/\r\n|\r(?!$)/g, "\n");
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const parsed = parseBlock(block);
      if (parsed) onEvent(parsed);
      cut = buffer.indexOf("\n\n");
    }
  }
  const last = parseBlock(buffer.replace(/\r$/, ""));
  if (last) onEvent(last);
}

function parseBlock(block: string): SseEvent | null {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { event, data: data.join("\n") } : null;
}
