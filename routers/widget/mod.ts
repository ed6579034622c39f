/** The widget surface: a map of its procedures, nothing else. */
import { router } from "../trpc.ts";

export const widgetRouter = router({});
