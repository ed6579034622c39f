/**
 * Reads a Prometheus text exposition (what `/metrics` answers) into samples,
 * so tests can ask how far a series moved between two scrapes.
 */
import { http } from "../helpers/http.ts";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c) => (c === "n" ? "\n" : c));
    }
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** One scrape: the raw text and a sum over the series matching a name and some labels. */
export interface Scrape {
  text: string;
  samples: Sample[];
  sum(name: string, labels?: Record<string, string>): number;
  has(name: string, labels?: Record<string, string>): boolean;
}

function matches(s: Sample, name: string, labels: Record<string, string>): boolean {
  return s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v);
}

export async function scrape(baseUrl: string, token: string): Promise<Scrape> {
  const r = await http(baseUrl, "GET", "/metrics", { token });
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}: ${r.text}`);
  const samples = parseExposition(r.text);
  return {
    text: r.text,
    samples,
    sum: (name, labels = {}) =>
      samples.filter((s) => matches(s, name, labels)).reduce((n, s) => n + s.value, 0),
    has: (name, labels = {}) => samples.some((s) => matches(s, name, labels)),
  };
}
