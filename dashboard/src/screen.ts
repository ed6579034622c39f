/// <reference lib="dom" />
/**
 * What a screen of the dashboard is: a path (the first segment of the URL's
 * hash), a title for the navigation, and a render function given the app's
 * context and the rest of the hash. Adding a screen is one view file and one
 * line in `screens.ts`.
 */
import type {
  DashboardClient,
  DashboardSession,
  Permission,
} from "../../clients/dashboard_client.ts";
import type { DashboardLive } from "../../clients/dashboard_live.ts";

export interface ScreenContext {
  client: DashboardClient;
  session: DashboardSession;
  /** Whether the signed-in role holds a permission (a viewer holds none: read-only). */
  can(permission: Permission): boolean;
  /** Go to `#/<path>`. */
  navigate(path: string): void;
  /** Runs when the screen is left (stop timers, leave channels). */
  onLeave(fn: () => void): void;
  /** A short message in the app's status line (aria-live). */
  notify(message: string): void;
  /**
   * Marks the moment the screen's data is in hand: the shell then measures
   * the render proper (`screen-render:<path>`, DOM built and laid out).
   */
  dataReady(): void;
  /**
   * The workspace's dashboard channel (crawl progress, figures that changed).
   * While it is not `live`, a screen that shows moving state polls instead.
   */
  live: DashboardLive;
}

export interface Screen {
  path: string;
  title: string;
  /** Listed in the navigation and opened only for roles holding it (the audit log). */
  permission?: Permission;
  render(ctx: ScreenContext, params: string[]): HTMLElement | Promise<HTMLElement>;
}
