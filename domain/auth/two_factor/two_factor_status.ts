/** Whether the signed-in user has two-factor on, codes left, and whether the workspace requires it. */
import type { Executor } from "../../../db/client.ts";
import {
  countUnusedRecoveryCodes,
  findTwoFactorState,
  workspaceRequiresTwoFactor,
} from "../../../db/two_factor.ts";

export interface TwoFactorStatus {
  enabled: boolean;
  enabled_at: string | null;
  recovery_codes_left: number;
  required_by_workspace: boolean;
}

export async function twoFactorStatus(
  sql: Executor,
  who: { userId: number; workspaceId: number },
): Promise<TwoFactorStatus> {
  const state = await findTwoFactorState(sql, who.userId);
  return {
    enabled: state.enabledAt !== null,
    enabled_at: state.enabledAt?.toISOString() ?? null,
    recovery_codes_left: state.enabledAt ? await countUnusedRecoveryCodes(sql, who.userId) : 0,
    required_by_workspace: await workspaceRequiresTwoFactor(sql, who.workspaceId),
  };
}
