/**
 * The report's tables: per agent (the conversation's assigned member), per
 * bot and per tag, folded from the same rows as the headline figures so a
 * table's column adds up to (or, for medians, is computed like) the figure.
 * Rows come most conversations first; the screen sorts them as asked.
 */
import type { ReportLabels } from "../../db/report_labels.ts";
import type { DurationStats } from "../../db/report_conversations.ts";
import { type FigureRows, ratingFigures, seconds, share } from "./report_figures.ts";
import { microCentsToUnits } from "../analytics/month_analytics.ts";

export interface AgentRow {
  id: number;
  name: string;
  conversations: number;
  first_response_median_seconds: number | null;
  resolution_median_seconds: number | null;
  ratings: number;
  good_share: number | null;
}

export interface BotRow {
  key: string;
  name: string;
  conversations: number;
  resolved: number;
  ai_resolution_rate: number | null;
  ratings: number;
  good_share: number | null;
  tokens: number;
  cost: number;
}

export interface TagRow {
  id: number;
  name: string;
  conversations: number;
  resolved: number;
  resolution_median_seconds: number | null;
}

export interface Breakdowns {
  agents: AgentRow[];
  bots: BotRow[];
  tags: TagRow[];
}

const stat = (rows: DurationStats[], kind: DurationStats["kind"], id: number) =>
  rows.find((r) => r.kind === kind && r.id === id);

const byConversations = <R extends { conversations: number; name: string }>(a: R, b: R) =>
  b.conversations - a.conversations || a.name.localeCompare(b.name);

export function foldBreakdowns(
  rows: FigureRows,
  tagStarted: { tag: number; conversations: number }[],
  labels: ReportLabels,
): Breakdowns {
  const seen = (ids: (number | null)[]) => new Set(ids.filter((i): i is number => i !== null));
  const agentIds = seen([
    ...rows.started.map((r) => r.agent),
    ...rows.ratings.map((r) => r.agent),
    ...rows.resolutions.filter((r) => r.kind === "agent").map((r) => r.id),
    ...rows.firstResponses.filter((r) => r.kind === "agent").map((r) => r.id),
  ]);
  const agents = labels.members.filter((m) => agentIds.has(m.id)).map((m): AgentRow => {
    const ratings = ratingFigures(rows.ratings.filter((r) => r.agent === m.id), 0);
    return {
      id: m.id,
      name: m.name,
      conversations: rows.started.filter((r) => r.agent === m.id)
        .reduce((a, r) => a + r.conversations, 0),
      first_response_median_seconds: seconds(stat(rows.firstResponses, "agent", m.id)?.median),
      resolution_median_seconds: seconds(stat(rows.resolutions, "agent", m.id)?.median),
      ratings: ratings.count,
      good_share: ratings.good_share,
    };
  });
  const botIds = seen([
    ...rows.started.map((r) => r.bot),
    ...rows.messages.map((r) => r.bot),
    ...rows.assist.map((r) => r.bot),
    ...rows.resolutions.filter((r) => r.kind === "bot").map((r) => r.id),
  ]);
  const bots = labels.bots.filter((b) => botIds.has(b.id)).map((b): BotRow => {
    const res = stat(rows.resolutions, "bot", b.id);
    const ratings = ratingFigures(rows.ratings.filter((r) => r.bot === b.id), 0);
    const messages = rows.messages.filter((m) => m.bot === b.id);
    const assist = rows.assist.filter((r) => r.bot === b.id);
    const cost = [...messages, ...assist].reduce((a, r) => a + BigInt(r.cost_micro_cents), 0n);
    return {
      key: b.key,
      name: b.name,
      conversations: rows.started.filter((r) => r.bot === b.id)
        .reduce((a, r) => a + r.conversations, 0),
      resolved: res?.n ?? 0,
      ai_resolution_rate: share(res?.m ?? 0, res?.n ?? 0),
      ratings: ratings.count,
      good_share: ratings.good_share,
      tokens: [...messages, ...assist].reduce((a, r) => a + Number(r.tokens), 0),
      cost: microCentsToUnits(cost),
    };
  });
  const tagIds = seen([
    ...tagStarted.map((r) => r.tag),
    ...rows.resolutions.filter((r) => r.kind === "tag").map((r) => r.id),
  ]);
  const tags = labels.tags.filter((t) => tagIds.has(t.id)).map((t): TagRow => {
    const res = stat(rows.resolutions, "tag", t.id);
    return {
      id: t.id,
      name: t.name,
      conversations: tagStarted.find((r) => r.tag === t.id)?.conversations ?? 0,
      resolved: res?.n ?? 0,
      resolution_median_seconds: seconds(res?.median),
    };
  });
  return {
    agents: agents.sort(byConversations),
    bots: bots.sort(byConversations),
    tags: tags.sort(byConversations),
  };
}
