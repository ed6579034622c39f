/** The widget surface: a map of its procedures, nothing else. The SSE stream is in stream_routes.ts. */
import { router } from "../trpc.ts";
import { widgetConfig } from "./config.ts";
import { widgetConversation } from "./conversation.ts";
import { widgetReset } from "./reset.ts";
import { widgetHeartbeat } from "./heartbeat.ts";
import { widgetHandoff } from "./handoff.ts";
import { widgetRating } from "./rating.ts";
import { widgetRecommendationClick } from "./recommendation_click.ts";
import { widgetScreenEvents, widgetScreenShare } from "./screen_share.ts";

export const widgetRouter = router({
  config: widgetConfig,
  conversation: widgetConversation,
  reset: widgetReset,
  heartbeat: widgetHeartbeat,
  handoff: widgetHandoff,
  rating: widgetRating,
  recommendationClick: widgetRecommendationClick,
  screenShare: widgetScreenShare,
  screenEvents: widgetScreenEvents,
});
