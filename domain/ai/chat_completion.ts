/**
 * One chat completion through the OpenAI protocol, streamed when the caller
 * wants deltas. Token usage is read from the provider's answer (requested
 * with `stream_options.include_usage` when streaming); estimated only when a
 * vendor omits it.
 */
import type OpenAI from "openai";
import { callProvider } from "./call_provider.ts";
import { estimateTokens } from "./token_budget.ts";

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
}

export async function completeChat(
  client: OpenAI,
  model: string,
  messages: ChatMessage[],
  opts: ChatOptions = {},
): Promise<ChatResult> {
  let emitted = false;
  const result = await callProvider(async () => {
    if (!opts.onDelta) return await once(client, model, messages, opts);
    return await streamed(client, model, messages, opts, () => (emitted = true));
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
  const stream = await client.chat.completions.create({
    model,
    messages,
    max_tokens: opts.maxTokens,
    temperature: opts.temperature,
    stream: true,
    stream_options: { include_usage: true },
  }, { signal: opts.signal });
  let content = "";
  let tokensIn = 0;
  let tokensOut = 0;
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta?.content;
    if (delta) {
      content += delta;
      markEmitted();
      opts.onDelta!(delta);
    }
    if (chunk.usage) {
      tokensIn = chunk.usage.prompt_tokens;
      tokensOut = chunk.usage.completion_tokens;
    }
  }
  // The SDK's stream ends quietly on abort: a cut-off answer must not pass as complete.
  opts.signal?.throwIfAborted();
  return { content, tokensIn, tokensOut };
}
