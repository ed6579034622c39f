/**
 * The channel names (docs/realtime.md), parsed once. Agent and dashboard
 * channels are `private-`/`presence-` and need a signature from a
 * broadcasting/auth endpoint (the agent API's or the dashboard's); the
 * widget's channel is public but names an HMAC token only its visitor gets.
 */
export type ChannelRef =
  | { kind: "workspace"; workspaceId: number }
  | { kind: "user"; userId: number }
  | { kind: "conversation"; conversationId: string }
  | { kind: "presence"; workspaceId: number }
  | { kind: "dashboard"; workspaceId: number }
  | { kind: "screen"; conversationId: string }
  | { kind: "widget"; conversationId: string; token: string };

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const ID = "([1-9][0-9]{0,15})";
const PATTERNS: [RegExp, (m: RegExpExecArray) => ChannelRef][] = [
  [new RegExp(`^private-workspace\\.${ID}$`), (m) => ({ kind: "workspace", workspaceId: +m[1]! })],
  [new RegExp(`^private-user\\.${ID}$`), (m) => ({ kind: "user", userId: +m[1]! })],
  [
    new RegExp(`^private-conversation\\.(${UUID})$`),
    (m) => ({ kind: "conversation", conversationId: m[1]! }),
  ],
  [
    new RegExp(`^private-screen\\.(${UUID})$`),
    (m) => ({ kind: "screen", conversationId: m[1]! }),
  ],
  [new RegExp(`^presence-workspace\\.${ID}$`), (m) => ({ kind: "presence", workspaceId: +m[1]! })],
  [new RegExp(`^private-dashboard\\.${ID}$`), (m) => ({ kind: "dashboard", workspaceId: +m[1]! })],
  [
    new RegExp(`^conversation-widget\\.(${UUID})\\.([A-Za-z0-9_-]{22})$`),
    (m) => ({ kind: "widget", conversationId: m[1]!, token: m[2]! }),
  ],
];

/** The channel a name denotes, or null for any name Parley does not serve. */
export function parseChannel(name: string): ChannelRef | null {
  if (name.length > 164) return null;
  for (const [re, build] of PATTERNS) {
    const m = re.exec(name);
    if (m) return build(m);
  }
  return null;
}

export const channelName = {
  workspace: (workspaceId: number) => `private-workspace.${workspaceId}`,
  user: (userId: number) => `private-user.${userId}`,
  conversation: (conversationId: string) => `private-conversation.${conversationId}`,
  presence: (workspaceId: number) => `presence-workspace.${workspaceId}`,
  /** The owners' dashboard of a workspace: crawl progress, usage changes. */
  dashboard: (workspaceId: number) => `private-dashboard.${workspaceId}`,
  screen: (conversationId: string) => `private-screen.${conversationId}`,
  widget: (conversationId: string, token: string) =>
    `conversation-widget.${conversationId}.${token}`,
};

/**
 * A channel's kind from its name's prefix, for metrics labels (no ids):
 * `workspace`, `user`, `conversation`, `presence`, `widget` or `other`.
 */
export function channelKind(name: string): string {
  if (name.startsWith("private-workspace.")) return "workspace";
  if (name.startsWith("private-conversation.")) return "conversation";
  if (name.startsWith("private-user.")) return "user";
  if (name.startsWith("presence-workspace.")) return "presence";
  if (name.startsWith("private-dashboard.")) return "dashboard";
  if (name.startsWith("private-screen.")) return "screen";
  if (name.startsWith("conversation-widget.")) return "widget";
  return "other";
}

/** Private and presence channels need a signature; presence ones also carry a member. */
export function needsSignature(name: string): boolean {
  return name.startsWith("private-") || name.startsWith("presence-");
}
