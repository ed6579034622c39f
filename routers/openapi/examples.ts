/**
 * Example values for the reference, built from a schema: a field's own
 * `examples`, its default, const or first enum value, else a plausible value
 * by field name (keys, ids, e-mails, messages), else one by type. Hand-written
 * examples in meta win over these; these make sure no operation lacks one.
 */
import type { JsonSchema } from "./json_schema.ts";

const BY_NAME: Record<string, unknown> = {
  key: "demo-bot",
  public_key: "demo-bot",
  provider: "provider_1",
  api_key: "sk-live-4b1f9c2e7a",
  visitor_id: "v-7f3a9c",
  conversation_id: "0b6f5c1e-3d2a-4e8f-9a7b-1c2d3e4f5a6b",
  public_id: "0b6f5c1e-3d2a-4e8f-9a7b-1c2d3e4f5a6b",
  conversation: "0b6f5c1e-3d2a-4e8f-9a7b-1c2d3e4f5a6b",
  email: "owner@example.com",
  password: "correct horse battery staple",
  name: "Acme Support",
  title: "Shipping times",
  content: "Orders ship within two working days.",
  message: "Do you ship to Iceland?",
  question: "Do you ship to Iceland?",
  answer: "Yes, within five working days.",
  model: "gpt-4o-mini",
  token: "12|pk0Yb2X9mQ4rT7uV1wZ3aC5dE8fG0hJ2",
  source_url: "https://example.com/help",
  url: "https://example.com/help",
  page_url: "https://example.com/pricing",
  primary_color: "#4f46e5",
  last_four: "9c2e",
  role: "owner",
  plan: "pro",
  slug: "acme",
  label: "OpenAI",
  powered_by: "Parley",
  version: "1.0.0",
  handoff_state: "bot_active",
  position: "right",
  theme: "ocean",
  launcher_text: "Chat with us",
  welcome_message: "Hi! How can we help you today?",
  persona: "A friendly, concise support assistant.",
  instructions: "Answer from the knowledge provided; offer a human when unsure.",
  locale: "en-GB",
  timezone: "Europe/Berlin",
  referrer: "https://www.google.com/",
  page_title: "Pricing",
  comment: "Quick and helpful, thanks!",
  error: "The site could not be reached.",
  note: "A human agent is handling this conversation.",
  snippet: '<script src="https://parley.example.com/widget.js" data-key="demo-bot" defer></script>',
};

const BY_FORMAT: Record<string, unknown> = {
  uuid: "0b6f5c1e-3d2a-4e8f-9a7b-1c2d3e4f5a6b",
  email: "owner@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  "date-time": "2026-11-21T07:06:17.123000Z",
};

export function exampleOf(schema: JsonSchema, name = "", depth = 0): unknown {
  if (depth > 8) return null;
  const examples = schema.examples as unknown[] | undefined;
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  if ("example" in schema) return schema.example;
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) {
    const first = variants.find((v) => v.type !== "null") ?? variants[0];
    return first ? exampleOf(first, name, depth + 1) : null;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== "null") ?? types[0];
  switch (type) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(props)) out[k] = exampleOf(v, k, depth + 1);
      return out;
    }
    case "array": {
      const items = schema.items as JsonSchema | undefined;
      return items ? [exampleOf(items, singular(name), depth + 1)] : [];
    }
    case "string": {
      if (name in BY_NAME && typeof BY_NAME[name] === "string") return BY_NAME[name];
      if (typeof schema.format === "string" && schema.format in BY_FORMAT) {
        return BY_FORMAT[schema.format];
      }
      if (name.endsWith("_at") || name === "since" || name === "at") {
        return BY_FORMAT["date-time"];
      }
      if (name.endsWith("_url")) return "https://example.com/";
      return name ? name.replace(/_/g, " ") : "text";
    }
    case "integer":
      return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1.5;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return name in BY_NAME ? BY_NAME[name] : null;
  }
}

function singular(name: string): string {
  return name.endsWith("s") ? name.slice(0, -1) : name;
}
