/**
 * One chat completion through the OpenAI protocol, streamed when the caller
 * wants deltas. Token usage is read from the provider's answer (requested
 * with `stream_options.include_usage` when streaming); estimated only when a
 * vendor omits it.
 */
import type OpenAI from "openai";
import { callProvider } from "./call_provider.ts";
import { ProviderUnavailable } from "../errors.ts";
import { estimateTokens } from "./token_budget.ts";
import { observeProviderCall } from "../observability/provider_calls.ts";
import { spanEvent } from "../observability/tracing.ts";
import { readChatStream } from "./chat_stream.ts";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatResult {
  content: string;
  tokensIn: number;
  tokensOut: number;
}

export interface ChatOptions {
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
  maxTokens?: number;
  temperature?: number;
  /** Streaming: give up when no chunk arrives for this long. */
  idleTimeoutMs?: number;
  /**
   * Structured output (non-streamed calls): the reply is JSON matching this
   * schema, as OpenAI's `response_format` json_schema asks the model.
   */
  responseFormat?: OpenAI.ResponseFormatJSONSchema;
}

const STALLED_MESSAGE =
  "The AI provider stopped answering mid-reply. The key was not the problem: check the " +
  "provider's status or the network.";

/** One call, measured (/metrics) and traced when those are on (observability/provider_calls.ts). */
export function completeChat(
  client: OpenAI,
  model: string,
  messages: ChatMessage[],
  opts: ChatOptions = {},
): Promise<ChatResult> {
  return observeProviderCall(
    client,
    model,
    "chat",
    () => chat(client, model, messages, opts),
    (r) => ({ in: r.tokensIn, out: r.tokensOut }),
  );
}

async function chat(
  client: OpenAI,
  model: string,
  messages: ChatMessage[],
  opts: ChatOptions,
): Promise<ChatResult> {
  let emitted = false;
  const markEmitted = () => {
    if (!emitted) spanEvent("first_delta");
    emitted = true;
  };
  const result = await callProvider(async () => {
    if (!opts.onDelta) return await once(client, model, messages, opts);
    return await streamed(client, model, messages, opts, markEmitted);
  }, { signal: opts.signal, canRetry: () => !emitted });
  const promptChars = messages.reduce((n, m) => n + m.content.length, 0);
  return {
    content: result.content,
    tokensIn: result.tokensIn || Math.ceil(promptChars / 4),
    tokensOut: result.tokensOut || estimateTokens(result.content),
  };
}

async function once(
  client: OpenAI,
  model: string,
  messages: ChatMessage[],
  opts: ChatOptions,
): Promise<ChatResult> {
  const res = await client.chat.completions.create({
    model,
    messages,
    max_tokens: opts.maxTokens,
    temperature: opts.temperature,
    ...(opts.responseFormat ? { response_format: opts.responseFormat } : {}),
  }, { signal: opts.signal });
  return {
    content: res.choices[0]?.message?.content ?? "",
    tokensIn: res.usage?.prompt_tokens ?? 0,
    tokensOut: res.usage?.completion_tokens ?? 0,
  };
}

async function streamed(
  client: OpenAI,
  model: string,
  messages: ChatMessage[],
  opts: ChatOptions,
  markEmitted: () => void,
): Promise<ChatResult> {
  // The SDK's timeout covers the wait for the response, not a stream that
  // stalls halfway: an idle watch aborts it, and the caller's abort is forwarded.
  const ac = new AbortController();
  const forward = () => ac.abort(opts.signal?.reason);
  opts.signal?.addEventListener("abort", forward, { once: true });
  let stalled = false;
  const idle = opts.idleTimeoutMs
    ? new IdleWatch(opts.idleTimeoutMs, () => {
      stalled = true;
      ac.abort();
    })
    : null;
  try {
    // The SDK builds, authenticates and sends the request, and turns a refused one
    // into its errors; the event stream is read here (chat_stream.ts says why).
    const response = await client.chat.completions.create({
      model,
      messages,
      max_tokens: opts.maxTokens,
      temperature: opts.temperature,
      stream: true,
      stream_options: { include_usage: true },
    }, { signal: ac.signal }).asResponse();
    let content = "";
    let tokensIn = 0;
    let tokensOut = 0;
    idle?.start();
    await readChatStream(response, ac.signal, (chunk) => {
      idle?.touch();
      const delta = chunk.choices[0]?.delta?.content;
      if (chunk.usage) {
        tokensIn = chunk.usage.prompt_tokens;
        tokensOut = chunk.usage.completion_tokens;
      }
      if (!delta) return false;
      const first = content === "";
      content += delta;
      markEmitted();
      opts.onDelta!(delta);
      // The first delta goes out to the visitor before the rest of its packet is read.
      return first;
    });
    if (stalled) throw new ProviderUnavailable(STALLED_MESSAGE, "unreachable");
    // An aborted stream ends quietly: a cut-off answer must not pass as complete.
    opts.signal?.throwIfAborted();
    return { content, tokensIn, tokensOut };
  } catch (err) {
    if (stalled) throw new ProviderUnavailable(STALLED_MESSAGE, "unreachable");
    throw err;
  } finally {
    idle?.stop();
    opts.signal?.removeEventListener("abort", forward);
  }
}

/**
 * Fires when nothing happened for `ms`: one timer per stream, moved on only
 * when it fires (a fragment just records the time; no timer per fragment).
 */
class IdleWatch {
  #last = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly ms: number, private readonly onIdle: () => void) {}

  start(): void {
    this.#last = performance.now();
    this.#arm(this.ms);
  }

  touch(): void {
    this.#last = performance.now();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => {
      const quiet = performance.now() - this.#last;
      if (quiet >= this.ms) this.onIdle();
      else this.#arm(this.ms - quiet);
    }, ms);
  }
}
