/** System procedures (no surface of their own): a map, nothing else. */
import { router } from "../trpc.ts";
import { status } from "./status.ts";

export const systemRouter = router({ status });
